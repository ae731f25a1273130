// expect: clean
// run: --kernel ok_warp_shuffle_reduce --grid 4 --block 128 --arg f32[512]=iota --arg f32[1]
// Warp reductions with shuffles, one atomicAdd per warp.
extern "C" __global__ void ok_warp_shuffle_reduce(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}
