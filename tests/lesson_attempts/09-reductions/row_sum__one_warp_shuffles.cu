// exercise: row-sum
// dodge: warp 0 reads the whole row (coalesced) and reduces it with shuffles; warps 1-7 do nothing
// expect: max_busiest_warp_vs_mean
extern "C" __global__ void row_sum(const float* X, float* y, int M, int N) {
  const float* row = X + (size_t)blockIdx.x * N;
  if (threadIdx.x >= 32) return;
  float v = 0.f;
  for (int j = threadIdx.x; j < N; j += 32) v += row[j];
  for (int k = 16; k > 0; k /= 2) v += __shfl_down_sync(0xffffffffu, v, k);
  if (threadIdx.x == 0) y[blockIdx.x] = v;
}
