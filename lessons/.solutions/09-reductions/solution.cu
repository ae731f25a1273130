// Lesson 9, exercise row-sum (reference solution): y[row] = the sum of row
// `row` of X, one block of 256 threads per row.
//
// 1. Each thread adds its strided share of the row in a register (thread t
//    takes columns t, t + 256, ...): every load is coalesced and most of the
//    additions happen here, with no shared memory and no barrier.
// 2. Each warp adds its 32 partial sums with __shfl_down_sync: five steps,
//    register to register.
// 3. Lane 0 of each warp leaves its warp's sum in shared memory; after one
//    __syncthreads(), warp 0 adds those 8 the same way and thread 0 writes y.
#define BLOCK 256

__device__ float warp_sum(float v) {
  for (int k = 16; k > 0; k /= 2) v += __shfl_down_sync(0xffffffffu, v, k);
  return v;
}

extern "C" __global__ void row_sum(const float* X, float* y, int M, int N) {
  __shared__ float warp_sums[BLOCK / 32];
  const float* row = X + (size_t)blockIdx.x * N;
  int tid = threadIdx.x;
  float v = 0.f;
  for (int j = tid; j < N; j += blockDim.x) v += row[j];
  v = warp_sum(v);
  if (tid % 32 == 0) warp_sums[tid / 32] = v;
  __syncthreads();
  if (tid < 32) {
    v = tid < blockDim.x / 32 ? warp_sums[tid] : 0.f;
    v = warp_sum(v);
    if (tid == 0) y[blockIdx.x] = v;
  }
}
