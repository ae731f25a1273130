// two_files_main.cu + two_files_kernels.cu: a program in two files, each
// with its own kernels and __device__ variables (two fat binaries).
#include <cstdio>

#include <cuda_runtime.h>

__global__ void add_offset(int* x, int n);  // in two_files_kernels.cu
__device__ int offset_here = 5;

__global__ void add_here(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += offset_here;
}

int main() {
  const int n = 100;
  int h[n] = {};
  int* d;
  cudaMalloc(&d, sizeof h);
  cudaMemset(d, 0, sizeof h);
  add_here<<<1, 128>>>(d, n);
  add_offset<<<1, 128>>>(d, n);
  add_here<<<1, 128>>>(d, n);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  bool ok = cudaGetLastError() == cudaSuccess;
  for (int i = 0; i < n; ++i) ok &= h[i] == 5 + 1000 + 5;
  std::printf("x[0] = %d: %s\n", h[0], ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
