// exercise: scan
// better: each warp scans its 32 values with __shfl_up_sync, warp totals go through shared memory once: fewer wavefronts and barriers than Hillis-Steele in shared memory
// expect: pass
#define BLOCK 256
extern "C" __global__ void scan_rows(const float* X, float* Y, int M, int N) {
  __shared__ float warp_total[BLOCK / 32];
  int t = threadIdx.x, lane = t % 32, warp = t / 32;
  size_t at = (size_t)blockIdx.x * N + t;
  float v = t < N ? X[at] : 0.f;
  for (int k = 1; k < 32; k *= 2) {
    float left = __shfl_up_sync(0xffffffffu, v, k);
    if (lane >= k) v += left;
  }
  if (lane == 31) warp_total[warp] = v;
  __syncthreads();
  float before = 0.f;
  for (int w = 0; w < warp; ++w) before += warp_total[w];
  if (t < N) Y[at] = v + before;
}
