// The second file of two_files_main.cu's program.
__device__ int offset_there = 1000;

__global__ void add_offset(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += offset_there;
}
