// expect: race line 15
// run: --kernel race_in_inlined_helper --grid 1 --block 64 --arg i32[1]
// The same race in a helper the compiler inlines (its PTX says
// `inlined_at`): the call line (15), with the helper's own line (9).
__device__ __forceinline__ void bump(int* s, int i) {
  // Every thread of both warps adds to the same word, with no barrier
  // between the warps' read-modify-writes.
  int v = s[i];
  s[i] = v + 1;  // <- planted bug (inside the helper)
}
extern "C" __global__ void race_in_inlined_helper(int* out) {
  __shared__ int s[1];
  if (threadIdx.x == 0) s[0] = 0;
  __syncthreads();
  bump(s, 0);  // <- reached from here
  __syncthreads();
  if (threadIdx.x == 0) out[0] = s[0];
}
