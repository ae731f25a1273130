// device_printf.cu: printf from kernels. Output appears per thread, a warp's
// lanes in order, when the host synchronises, after the host's own output.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void hello(int tag) {
  if (threadIdx.x % 16 == 0)
    printf("block %d thread %2d: tag=%d x=%.2f hex=%x %s %c %lld\n", blockIdx.x, threadIdx.x, tag,
           threadIdx.x * 0.5f, 255 + threadIdx.x, threadIdx.x < 32 ? "warp0" : "warp1", 'A' + threadIdx.x / 16,
           (long long)threadIdx.x * 10000000000ll);
}

int main() {
  hello<<<2, 64>>>(7);
  std::printf("host: before synchronize\n");
  std::fflush(stdout);
  cudaDeviceSynchronize();
  std::printf("host: after synchronize\n");
  return 0;
}
