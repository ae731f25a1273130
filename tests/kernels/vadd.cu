// Vector add: the smallest complete kernel, used by the CLI contract tests.
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Writes one element past the end of `out` from the last thread.
extern "C" __global__ void past_end(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = i;
}
