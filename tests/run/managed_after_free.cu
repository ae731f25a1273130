// managed_after_free.cu: the host reads managed memory after cudaFree, a
// bug that crashes on a GPU. The lab closes the freed pages to the host, so
// it crashes here too instead of reading stale values (docs/run.md).
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  int* m = nullptr;
  cudaMallocManaged(&m, 256 * sizeof(int));
  m[5] = 42;  // the host's to touch while allocated
  std::printf("before cudaFree: %d\n", m[5]);
  cudaFree(m);
  std::fflush(stdout);
  volatile int v = m[5];  // the bug: use after free
  std::printf("read %d after cudaFree: the lab let the host use freed memory\n", v);
  return 0;
}
