// expect: race line 15
// run: --kernel race_in_noinline_helper --grid 1 --block 64 --arg i32[1]
// A race inside a helper the compiler keeps as a call: reported at the
// student's call line (15) with the helper's own line (9) beside it.
__device__ __noinline__ void bump(int* s, int i) {
  // Every thread of both warps adds to the same word, with no barrier
  // between the warps' read-modify-writes.
  int v = s[i];
  s[i] = v + 1;  // <- planted bug (inside the helper)
}
extern "C" __global__ void race_in_noinline_helper(int* out) {
  __shared__ int s[1];
  if (threadIdx.x == 0) s[0] = 0;
  __syncthreads();
  bump(s, 0);  // <- reached from here
  __syncthreads();
  if (threadIdx.x == 0) out[0] = s[0];
}
