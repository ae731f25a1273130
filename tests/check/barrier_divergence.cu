// expect: barrier-divergence line 9
// run: --kernel barrier_divergence --grid 1 --block 64 --arg f32[64]
// __syncthreads() inside a branch that only half of the first warp takes.
extern "C" __global__ void barrier_divergence(float* out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = float(t);
  if (t < 16) {
    __syncthreads();  // <- planted bug
  }
  out[t] = s[t];
}
