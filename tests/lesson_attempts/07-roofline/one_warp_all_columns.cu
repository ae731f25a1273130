// exercise: layer-small-batch
// dodge: the first warp of block 0 computes every column, 32 at a time (W still read once,
//        coalesced); every other warp exits at once
// expect: max_busiest_warp_vs_mean
#define MAX_BATCH 8
extern "C" __global__ void layer_forward(int M, int N, int K, float alpha, const float* X, const float* W,
                                         float beta, float* Y) {
  if (blockIdx.x != 0 || threadIdx.x >= 32) return;
  for (int col = threadIdx.x; col < N; col += 32) {
    float acc[MAX_BATCH];
    for (int row = 0; row < MAX_BATCH; ++row) acc[row] = 0.f;
    for (int k = 0; k < K; ++k) {
      float w = W[k * N + col];
#pragma unroll
      for (int row = 0; row < MAX_BATCH; ++row)
        if (row < M) acc[row] += X[row * K + k] * w;
    }
#pragma unroll
    for (int row = 0; row < MAX_BATCH; ++row)
      if (row < M) Y[row * N + col] = alpha * acc[row];
  }
}
