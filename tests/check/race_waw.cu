// expect: race line 7
// run: --kernel race_waw --grid 1 --block 64 --arg i32[32]
// Two warps write the same 32 slots with different values and no barrier.
extern "C" __global__ void race_waw(int* out) {
  __shared__ int s[32];
  int t = threadIdx.x;
  s[t % 32] = t;  // <- planted bug
  __syncthreads();
  if (t < 32) out[t] = s[t];
}
