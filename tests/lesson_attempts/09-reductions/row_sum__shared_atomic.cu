// exercise: row-sum
// dodge: each thread sums its share, then all 256 atomicAdd into one shared float: 32 same-address updates per warp
// expect: max_shared_wavefronts max_bank_conflicts
extern "C" __global__ void row_sum(const float* X, float* y, int M, int N) {
  __shared__ float total;
  const float* row = X + (size_t)blockIdx.x * N;
  if (threadIdx.x == 0) total = 0.f;
  __syncthreads();
  float v = 0.f;
  for (int j = threadIdx.x; j < N; j += blockDim.x) v += row[j];
  atomicAdd(&total, v);
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = total;
}
