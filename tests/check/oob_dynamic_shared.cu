// expect: out-of-bounds line 7
// run: --kernel oob_dynamic_shared --grid 1 --block 64 --smem 128 --arg f32[64]=iota --arg f32[64]
// Dynamic shared memory sized for 32 floats (--smem 128), used for 64.
extern "C" __global__ void oob_dynamic_shared(const float* in, float* out) {
  extern __shared__ float buf[];
  int t = threadIdx.x;
  buf[t] = in[t];  // <- planted bug
  __syncthreads();
  out[t] = buf[63 - t];
}
