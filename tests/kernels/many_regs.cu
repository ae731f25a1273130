// tests/kernels/many_regs.cu: a kernel that keeps 72 running sums in
// registers, so ptxas gives it more than 64 registers per thread: a block of
// 1024 threads then needs more than the 65536 registers a block may have,
// and the launch is refused (cudaErrorLaunchOutOfResources) as a GPU would.
#define SUMS 72
extern "C" __global__ void many_regs(const float* in, float* out, int n) {
  float acc[SUMS];
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int j = 0; j < SUMS; ++j) acc[j] = in[(t + j) % n];
  for (int r = 0; r < n; ++r) {
    float x = in[r];
#pragma unroll
    for (int j = 0; j < SUMS; ++j) acc[j] = acc[j] * x + acc[(j + 1) % SUMS];
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < SUMS; ++j) s += acc[j];
  if (t < n) out[t] = s;
}
