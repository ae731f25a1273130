// exercise: row-sum
// dodge: every thread adds each of its elements to y[row] with a global atomicAdd: N updates of one address
// expect: max_global_store_requests
extern "C" __global__ void row_sum(const float* X, float* y, int M, int N) {
  const float* row = X + (size_t)blockIdx.x * N;
  if (threadIdx.x == 0) y[blockIdx.x] = 0.f;
  __syncthreads();
  for (int j = threadIdx.x; j < N; j += blockDim.x) atomicAdd(&y[blockIdx.x], row[j]);
}
