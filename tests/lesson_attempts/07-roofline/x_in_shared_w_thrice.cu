// exercise: layer-small-batch
// dodge: X staged in shared memory saves its broadcast sectors, and the saving is spent re-reading W: each W
//        element is loaded three times (once per group of rows), which one combined load bound let through
// expect: max_global_load_sectors
#define MAX_BATCH 8
#define MAX_K 64
extern "C" __global__ void layer_forward(int M, int N, int K, float alpha, const float* X, const float* W,
                                         float beta, float* Y) {
  __shared__ float xs[MAX_BATCH * MAX_K];
  for (int e = threadIdx.x; e < M * K; e += blockDim.x) xs[e] = X[e];
  __syncthreads();
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  float acc[MAX_BATCH];
  for (int row = 0; row < MAX_BATCH; ++row) acc[row] = 0.f;
  for (int r0 = 0; r0 < MAX_BATCH; r0 += 3)  // rows in groups of three: W read once per group
    for (int k = 0; k < K; ++k) {
      float w = W[k * N + col];
      for (int row = r0; row < r0 + 3 && row < MAX_BATCH; ++row)
        if (row < M) acc[row] += xs[row * K + k] * w;
    }
#pragma unroll
  for (int row = 0; row < MAX_BATCH; ++row)
    if (row < M) Y[row * N + col] = alpha * acc[row];
}
