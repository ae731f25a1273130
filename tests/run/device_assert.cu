// device_assert.cu: a kernel whose assert fails in one thread. On a GPU the
// device prints the failed assertion and the next synchronising call returns
// cudaErrorAssert; the error is sticky.
#include <cassert>
#include <cstdio>

#include <cuda_runtime.h>

__global__ void check_positive(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] >= 0);
}

__global__ void fine(int* v) { v[threadIdx.x] = threadIdx.x; }

int main() {
  const int n = 256;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i == 77 ? -1 : i;
  int* d;
  cudaMalloc(&d, sizeof h);
  fine<<<1, 64>>>(d);  // a kernel with no failing assert is unaffected
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  check_positive<<<2, 128>>>(d, n);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("after the launch: %s\n", cudaGetErrorName(e));
  cudaError_t again = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("next call: %s\n", cudaGetErrorName(again));
  return e == cudaErrorAssert && again == cudaErrorAssert ? 0 : 2;
}
