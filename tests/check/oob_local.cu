// expect: out-of-bounds line 7
// run: --kernel oob_local --grid 1 --block 32 --arg i32[32] --arg i32=4000
// A per-thread array indexed by an unchecked argument.
extern "C" __global__ void oob_local(int* out, int k) {
  int hist[8];
  for (int j = 0; j < 8; ++j) hist[j] = j * threadIdx.x;
  hist[k & 0xfff] += 1;  // <- planted bug
  out[threadIdx.x] = hist[threadIdx.x & 7];
}
