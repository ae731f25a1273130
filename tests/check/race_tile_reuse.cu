// expect: race line 10 ; race line 12
// run: --kernel race_tile_reuse --grid 1 --block 64 --arg f32[512]=iota --arg f32[64] --arg i32=8
// A tiled sum that reloads its tile each step but lacks the second barrier:
// a fast warp overwrites the tile while a slow one still reads the old step.
extern "C" __global__ void race_tile_reuse(const float* in, float* out, int steps) {
  __shared__ float tile[64];
  int t = threadIdx.x;
  float acc = 0.0f;
  for (int s = 0; s < steps; ++s) {
    tile[t] = in[s * 64 + t];  // <- planted bug
    __syncthreads();
    acc += tile[63 - t];  // <- planted bug
    // missing: __syncthreads();
  }
  out[t] = acc;
}
