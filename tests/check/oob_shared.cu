// expect: out-of-bounds line 7
// run: --kernel oob_shared --grid 1 --block 64 --arg f32[64]=iota --arg f32[64]
// A shifted copy through shared memory that writes one slot past the tile.
extern "C" __global__ void oob_shared(const float* in, float* out) {
  __shared__ float tile[64];
  int t = threadIdx.x;
  tile[t + 1] = in[t];  // <- planted bug
  __syncthreads();
  out[t] = t > 0 ? tile[t] : 0.0f;
}
