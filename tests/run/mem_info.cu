// cudaMemGetInfo counts live cudaMalloc bytes and cudaFree gives them back
// (tests/cli/run.sh).
#include <cstdio>

int main() {
  size_t free0 = 0, total = 0, free1 = 0, free2 = 0;
  cudaMemGetInfo(&free0, &total);
  float* a = nullptr;
  cudaMalloc(&a, 1000 * sizeof(float));
  cudaMemGetInfo(&free1, &total);
  cudaFree(a);
  cudaMemGetInfo(&free2, &total);
  std::printf("used %zu freed %zu\n", free0 - free1, free2 - free1);
  return 0;
}
