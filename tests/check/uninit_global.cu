// expect: uninitialized-read line 6
// run: --kernel uninit_global --grid 1 --block 64 --arg f32[64]=uninit --arg f32[64]
// Accumulates into an output buffer that was never cleared (created with =uninit).
extern "C" __global__ void uninit_global(float* acc, float* out) {
  int t = threadIdx.x;
  acc[t] += 1.0f;  // <- planted bug
  out[t] = acc[t];
}
