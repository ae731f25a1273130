// A kernel on GPU 0 reads GPU 1's buffer through a pointer inside a struct
// argument (issue 26: only bare pointer arguments were guarded, so a ring
// could move its data with 0 link bytes). The access itself faults.
#include <cstdio>

struct Views {
  const float* other;  // allocated on device 1
  float* out;          // allocated on device 0
};

__global__ void read_other(Views v) { v.out[threadIdx.x] = v.other[threadIdx.x]; }

int main() {
  float *on1 = nullptr, *on0 = nullptr;
  cudaSetDevice(1);
  cudaMalloc(&on1, 32 * sizeof(float));
  cudaSetDevice(0);
  cudaMalloc(&on0, 32 * sizeof(float));
  read_other<<<1, 32>>>(Views{on1, on0});
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("synchronize %s\n", cudaGetErrorName(e));
  return e == cudaSuccess ? 0 : 1;
}
