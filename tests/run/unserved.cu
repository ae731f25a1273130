// unserved.cu: IPC memory handles are not served by the lab's runtime;
// gpulab run must name the call instead of running something else.
#include <cuda_runtime.h>

__global__ void inc(int* x) { x[threadIdx.x] += 1; }

int main() {
  int* x;
  cudaMalloc(&x, 64 * sizeof(int));
  cudaIpcMemHandle_t handle;
  cudaIpcGetMemHandle(&handle, x);
  inc<<<1, 64>>>(x);
  cudaDeviceSynchronize();
  return 0;
}
