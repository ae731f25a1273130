// docs/examples/strided_copy.cu: a user's kernel for `gpulab view` (docs/visual.md).
// Each thread copies one float from `in`, `stride` floats apart: with
// stride 1 a warp reads 4 sectors, with stride 8 or more one sector per lane.
extern "C" __global__ void strided_copy(const float* in, float* out, int stride, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(long long)i * stride % n];
}
