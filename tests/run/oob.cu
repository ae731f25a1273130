// oob.cu: the second launch writes one element past its buffer (`<=` for `<`).
#include <cstdio>

#include <cuda_runtime.h>

__global__ void fill(float* x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) x[i] = v;
}

int main() {
  float* d;
  cudaMalloc(&d, 100 * sizeof(float));
  fill<<<1, 64>>>(d, 50, 1.0f);
  fill<<<2, 64>>>(d, 100, 2.0f);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("synchronize: %s\n", cudaGetErrorName(e));
  return 0;
}
