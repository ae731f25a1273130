// exercise: scan
// dodge: every thread re-reads its whole prefix X[row][0..t] from global memory: O(N^2) loads
// expect: max_global_load_requests
extern "C" __global__ void scan_rows(const float* X, float* Y, int M, int N) {
  size_t row = (size_t)blockIdx.x * N;
  int t = threadIdx.x;
  if (t >= N) return;
  float v = 0.f;
  for (int j = 0; j <= t; ++j) v += X[row + j];
  Y[row + t] = v;
}
