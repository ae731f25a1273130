// expect: invalid-mask line 9
// run: --kernel invalid_mask_exited --grid 1 --block 32 --arg f32[32]=iota --arg f32[1] --arg i32=20
// Threads past n return early, then the rest reduce with a full mask that
// still names the exited lanes.
extern "C" __global__ void invalid_mask_exited(const float* in, float* out, int n) {
  int t = threadIdx.x;
  if (t >= n) return;
  float v = in[t];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);  // <- planted bug
  if (t == 0) out[0] = v;
}
