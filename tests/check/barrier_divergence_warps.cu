// expect: barrier-divergence line 9
// run: --kernel barrier_divergence_warps --grid 1 --block 128 --arg f32[128]
// Only the first two warps reach the barrier; the others skip it.
extern "C" __global__ void barrier_divergence_warps(float* out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  s[t] = float(t);
  if (t < 64) {
    __syncthreads();  // <- planted bug
    out[t] = s[127 - t];
  }
}
