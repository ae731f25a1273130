// expect: invalid-mask line 11
// run: --kernel invalid_mask_half_names_other --grid 1 --block 32 --arg f32[32]=iota --arg f32[2]
// The twin of ok_segmented_shuffle_masks with the masks swapped: each half
// names the other half's lanes, not its own, so the lanes executing the
// shuffle are outside the mask they pass.
extern "C" __global__ void invalid_mask_half_names_other(const float* in, float* out) {
  int t = threadIdx.x, lane = t & 31;
  unsigned mask = lane < 16 ? 0xffff0000u : 0x0000ffffu;
  float v = in[t];
  for (int o = 8; o > 0; o /= 2)
    v += __shfl_down_sync(mask, v, o, 16);  // <- planted bug
  if ((lane & 15) == 0) out[t / 16] = v;
}
