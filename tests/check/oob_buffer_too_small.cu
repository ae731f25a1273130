// expect: out-of-bounds line 6
// run: --kernel oob_buffer_too_small --grid 4 --block 32 --arg f32[100]=iota --arg f32[128]
// Correct kernel, wrong launch: 128 threads read a 100-element input.
extern "C" __global__ void oob_buffer_too_small(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2.0f * in[i];  // <- planted bug
}
