// expect: barrier-divergence line 11; race line 12
// run: --kernel barrier_skipped_warps --grid 1 --block 128 --arg f32[128]
// Warps 0-1 wait at the barrier inside the branch; warps 2-3 skip it and run
// on to the store below while the others wait. A __syncthreads() in
// conditional code must be reached by every thread of the block (CUDA
// Programming Guide).
extern "C" __global__ void barrier_skipped_warps(float* out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  s[t] = float(t);
  if (t < 64) __syncthreads();  // <- planted bug
  out[t] = s[127 - t];
}
