// expect: out-of-bounds line 6
// run: --kernel oob_global_write --grid 1 --block 64 --arg i32[32] --arg i32=32
// The bound test is off by one: thread n writes one element past the end.
extern "C" __global__ void oob_global_write(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = i;  // <- planted bug
}
