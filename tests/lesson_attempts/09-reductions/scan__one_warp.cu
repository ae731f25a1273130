// exercise: scan
// dodge: warp 0 scans the row 32 elements at a time with shuffles, carrying the running total; warps 1-7 do nothing
// expect: max_busiest_warp_vs_mean
extern "C" __global__ void scan_rows(const float* X, float* Y, int M, int N) {
  size_t row = (size_t)blockIdx.x * N;
  int lane = threadIdx.x;
  if (lane >= 32) return;
  float carry = 0.f;
  for (int base = 0; base < N; base += 32) {
    float v = base + lane < N ? X[row + base + lane] : 0.f;
    for (int k = 1; k < 32; k *= 2) {
      float left = __shfl_up_sync(0xffffffffu, v, k);
      if (lane >= k) v += left;
    }
    v += carry;
    if (base + lane < N) Y[row + base + lane] = v;
    carry = __shfl_sync(0xffffffffu, v, 31);
  }
}
