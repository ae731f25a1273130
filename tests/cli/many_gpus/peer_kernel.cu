// tests/cli/many_gpus/peer_kernel.cu: a kernel on GPU 0 reads GPU 1's buffer
// directly. Without peer access the launch is refused; after
// cudaDeviceEnablePeerAccess the loads cross the link, and the run's link
// table counts their bytes from GPU 1 to GPU 0 (4096 floats, 16384 bytes).
#include <cstdio>

#include <cuda_runtime.h>

__global__ void twice(const float* peer, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * peer[i];
}

int main() {
  const int n = 4096;
  float *remote, *out;
  cudaSetDevice(1);
  cudaMalloc(&remote, n * sizeof(float));
  cudaMemset(remote, 0, n * sizeof(float));
  cudaSetDevice(0);
  cudaMalloc(&out, n * sizeof(float));
  twice<<<n / 256, 256>>>(remote, out, n);
  std::printf("without peer access: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaDeviceEnablePeerAccess(1, 0);
  twice<<<n / 256, 256>>>(remote, out, n);
  std::printf("with peer access: %s\n", cudaGetErrorName(cudaGetLastError()));
  std::printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
