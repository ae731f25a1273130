// host_deref.cu: the host dereferences a cudaMalloc pointer, a bug that
// crashes on a GPU. The lab maps managed memory into the program, but only
// its pages: this must still crash, not quietly work (docs/run.md).
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(int));
  std::printf("reading device memory on the host\n");
  std::fflush(stdout);
  volatile int v = d[3];  // the bug
  std::printf("read %d: the lab let the host read device memory\n", v);
  return 0;
}
