// exercise: layer-small-batch
// dodge: W read once, but each row's partial sums make a round trip through Y in global memory (write, read
//        back, add, write again every 16 k) instead of staying in registers: within the combined bounds' slack
// expect: max_global_load_requests
#define MAX_BATCH 8
extern "C" __global__ void layer_forward(int M, int N, int K, float alpha, const float* X, const float* W,
                                         float beta, float* Y) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  for (int row = 0; row < M; ++row) Y[row * N + col] = 0.f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    float acc[MAX_BATCH];
    for (int row = 0; row < MAX_BATCH; ++row) acc[row] = 0.f;
    for (int k = k0; k < k0 + 16 && k < K; ++k) {
      float w = W[k * N + col];
#pragma unroll
      for (int row = 0; row < MAX_BATCH; ++row)
        if (row < M) acc[row] += X[row * K + k] * w;
    }
#pragma unroll
    for (int row = 0; row < MAX_BATCH; ++row)
      if (row < M) Y[row * N + col] += alpha * acc[row];  // read back, add, write again
  }
}
