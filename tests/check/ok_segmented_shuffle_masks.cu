// expect: clean
// run: --kernel ok_segmented_shuffle_masks --grid 1 --block 64 --arg f32[64]=iota --arg f32[4]
// Each half-warp reduces on its own, passing its own member mask: lanes
// 0-15 name 0x0000ffff and lanes 16-31 name 0xffff0000 in one shuffle. A
// mask names the lanes that execute it together, per lane (PTX ISA,
// shfl.sync: membermask), which is what a thread_block_tile<16> does.
extern "C" __global__ void ok_segmented_shuffle_masks(const float* in, float* out) {
  int t = threadIdx.x, lane = t & 31;
  unsigned mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
  float v = in[t];
  for (int o = 8; o > 0; o /= 2) v += __shfl_down_sync(mask, v, o, 16);
  if ((lane & 15) == 0) out[t / 16] = v;
}
