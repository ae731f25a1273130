// expect: invalid-mask line 8
// run: --kernel invalid_mask_diverged --grid 1 --block 32 --arg f32[32]=iota --arg f32[32]
// A full-warp shuffle inside a branch half the warp takes: the mask names
// lanes that never execute it.
extern "C" __global__ void invalid_mask_diverged(const float* in, float* out) {
  int t = threadIdx.x;
  float v = in[t];
  if (t < 16) v += __shfl_down_sync(0xffffffffu, v, 8);  // <- planted bug
  out[t] = v;
}
