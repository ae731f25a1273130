// expect: clean
// run: --kernel ok_uninit_output --grid 2 --block 48 --arg f32[96]=iota --arg f32[96]=uninit --arg i32=90
// Writes an uninitialised output before anything reads it; partial last warp,
// early exit past n.
extern "C" __global__ void ok_uninit_output(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] * 3.0f;
  out[i] += 1.0f;
}
