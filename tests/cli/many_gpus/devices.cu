// tests/cli/many_gpus/devices.cu: what a program sees of `gpulab run --gpus 2`
// (tests/cli/many_gpus.sh): the count, a device past the last refused, each
// device's own cudaMemGetInfo, and a launch on device 0 given device 1's
// memory refused (its loads would cross a link the lab does not charge).
#include <cstdio>

__global__ void touch(float* p) { p[threadIdx.x] = 1.f; }

int main() {
  int n = 0;
  cudaGetDeviceCount(&n);
  std::printf("devices %d\n", n);
  std::printf("set past the last %s\n", cudaGetErrorName(cudaSetDevice(n)));
  float* a = nullptr;
  size_t free_bytes = 0, total = 0;
  cudaSetDevice(1);
  cudaMalloc(&a, 128);
  cudaMemGetInfo(&free_bytes, &total);
  std::printf("device 1 used %zu\n", total - free_bytes);
  cudaSetDevice(0);
  cudaMemGetInfo(&free_bytes, &total);
  std::printf("device 0 used %zu\n", total - free_bytes);
  touch<<<1, 32>>>(a);
  std::printf("launch %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
