// expect: race line 8 ; race line 9
// run: --kernel race_missing_sync --grid 1 --block 64 --arg f32[64]=iota --arg f32[64]
// Reverse a block through shared memory, without the __syncthreads() between
// the write and the read: a thread reads a slot another warp has not written yet.
extern "C" __global__ void race_missing_sync(const float* in, float* out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = in[t];  // <- planted bug
  out[t] = s[63 - t];  // <- planted bug
}
