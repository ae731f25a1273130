// expect: uninitialized-read line 9
// run: --kernel uninit_shared --grid 1 --block 64 --arg f32[64]=iota --arg f32[64]
// Only the first warp fills the tile, yet every thread reads its own slot.
extern "C" __global__ void uninit_shared(const float* in, float* out) {
  __shared__ float tile[64];
  int t = threadIdx.x;
  if (t < 32) tile[t] = in[t];
  __syncthreads();
  out[t] = tile[t];  // <- planted bug
}
