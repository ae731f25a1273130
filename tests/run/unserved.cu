// unserved.cu: managed memory is not served by the lab's runtime; gpulab run
// must name the call instead of running something else.
#include <cuda_runtime.h>

__global__ void inc(int* x) { x[threadIdx.x] += 1; }

int main() {
  int* x;
  cudaMallocManaged(&x, 64 * sizeof(int));
  inc<<<1, 64>>>(x);
  cudaDeviceSynchronize();
  return x[0] == 1 ? 0 : 1;
}
