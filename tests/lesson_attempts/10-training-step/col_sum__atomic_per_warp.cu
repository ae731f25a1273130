// exercise: col-sum
// dodge: all 32 warps share the rows, but each adds its partial sums to db with a global atomicAdd instead of folding them on chip
// expect: max_global_store_requests
extern "C" __global__ void col_sum(int M, int N, const float* dY, float* db, int accumulate) {
  int j = blockIdx.x * 32 + threadIdx.x;
  if (j < N && !accumulate && threadIdx.y == 0) db[j] = 0.f;
  __syncthreads();
  float acc = 0.f;
  for (int i = threadIdx.y; i < M && j < N; i += 32) acc += dY[long(i) * N + j];
  if (j < N) atomicAdd(&db[j], acc);  // 32 atomics per column, in whatever order the warps arrive
}
