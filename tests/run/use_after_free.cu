// use_after_free.cu: a kernel reads a buffer the program already gave back
// with cudaFree. The lab's arena never reuses the memory, so without
// --check the read quietly sees the old values (a GPU may show anything);
// --check reports the use after free at the kernel's line.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void twice(const float* a, float* out) { out[threadIdx.x] = a[threadIdx.x] * 2.0f; }

int main() {
  float *a, *out;
  cudaMalloc(&a, 64 * sizeof(float));
  cudaMalloc(&out, 64 * sizeof(float));
  cudaMemset(a, 0, 64 * sizeof(float));
  cudaFree(a);
  twice<<<1, 64>>>(a, out);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("synchronize: %s\n", cudaGetErrorName(e));
  return 0;
}
