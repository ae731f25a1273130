// Lesson 7 reference solution: load each W element once, use it for the
// whole batch. Per k, one coalesced load of W (4 sectors per warp) feeds M
// FMAs; X[row][k] is one address per warp (a broadcast). This is why larger
// batches use the GPU better: the bytes of W are paid once however many rows
// share them, so FLOPs per byte grow with the batch.
#define MAX_BATCH 8

extern "C" __global__ void layer_forward(int M, int N, int K, float alpha, const float* X, const float* W,
                                         float beta, float* Y) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  float acc[MAX_BATCH];
  for (int row = 0; row < MAX_BATCH; ++row) acc[row] = 0.f;
  for (int k = 0; k < K; ++k) {
    float w = W[k * N + col];  // once
#pragma unroll
    for (int row = 0; row < MAX_BATCH; ++row)
      if (row < M) acc[row] += X[row * K + k] * w;  // reused M times from a register
  }
#pragma unroll
  for (int row = 0; row < MAX_BATCH; ++row)
    if (row < M) Y[row * N + col] = alpha * acc[row];
}
