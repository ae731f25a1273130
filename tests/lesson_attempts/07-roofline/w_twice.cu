// exercise: layer-small-batch
// dodge: the batch in two halves of 4 rows, W read once per half: twice in all (a bound that
//        admits W read twice passed it)
// expect: max_global_load_sectors
#define HALF 4
extern "C" __global__ void layer_forward(int M, int N, int K, float alpha, const float* X, const float* W,
                                         float beta, float* Y) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  for (int r0 = 0; r0 < M; r0 += HALF) {
    float acc[HALF] = {0.f, 0.f, 0.f, 0.f};
    for (int k = 0; k < K; ++k) {
      float w = W[k * N + col];
#pragma unroll
      for (int r = 0; r < HALF; ++r)
        if (r0 + r < M) acc[r] += X[(r0 + r) * K + k] * w;
    }
#pragma unroll
    for (int r = 0; r < HALF; ++r)
      if (r0 + r < M) Y[(r0 + r) * N + col] = alpha * acc[r];
  }
}
