// expect: barrier-divergence line 10
// run: --kernel barrier_divergence_warps --grid 1 --block 128 --arg f32[128]
// Warps 2-3 wait at the barrier inside the branch, warps 0-1 at the one after it: two different barriers pair up.
extern "C" __global__ void barrier_divergence_warps(float* out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  s[t] = float(t);
  if (t >= 64) {
    // Every thread of the block must reach the same __syncthreads() (CUDA Programming Guide).
    __syncthreads();  // <- planted bug
  }
  __syncthreads();
  out[t] = s[127 - t];
}
