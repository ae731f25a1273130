// exercise: col-sum
// dodge: the warp with threadIdx.y == 0 walks every row of its 32 columns while the other 31 warps of the block leave
// expect: max_busiest_warp_vs_mean max_predicted_time_ratio
extern "C" __global__ void col_sum(int M, int N, const float* dY, float* db, int accumulate) {
  int j = blockIdx.x * 32 + threadIdx.x;
  if (threadIdx.y != 0 || j >= N) return;
  float acc = 0.f;
  for (int i = 0; i < M; ++i) acc += dY[long(i) * N + j];
  db[j] = accumulate ? db[j] + acc : acc;
}
