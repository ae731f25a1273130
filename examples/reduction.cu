// reduction.cu: the sum of a large array, in two passes of a block-level
// tree reduction: each block sums its slice in shared memory (sequential
// addressing, so active threads stay contiguous and there are no bank
// conflicts), the second launch sums the blocks' partial results. The last
// five steps use warp shuffles, no shared memory and no __syncthreads().
// Checked against a double-precision CPU sum; timed with events.
//
//   gpulab run examples/reduction.cu               (n = 1 << 16)
//   gpulab run examples/reduction.cu -- 1000000
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                                      \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,              \
                   cudaGetErrorString(err_));                                                 \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

constexpr int BLOCK = 256;

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Each thread first adds a grid-strided run of elements (so any n fits any
// grid), then the block reduces its BLOCK values to one.
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[BLOCK];
  float v = 0.0f;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) v += in[i];
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int stride = BLOCK / 2; stride >= 32; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x < 32) {
    v = warp_sum(partial[threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 16;
  const int blocks = std::min((n + BLOCK - 1) / BLOCK, 256);
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = float((i * 37) % 101) / 101.0f - 0.25f;
  double ref = 0;
  for (float v : x) ref += v;

  float *d_x, *d_partial, *d_sum;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_partial, blocks * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_sum, sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  block_sum<<<blocks, BLOCK>>>(d_x, d_partial, n);  // pass 1: one partial sum per block
  block_sum<<<1, BLOCK>>>(d_partial, d_sum, blocks);  // pass 2: the partial sums
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

  float sum = 0;
  CUDA_CHECK(cudaMemcpy(&sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
  const double rel = std::fabs(sum - ref) / std::fmax(std::fabs(ref), 1.0);
  std::printf("reduction: n = %d, %d blocks, sum %.6f (CPU %.6f), rel error %.2e, %.4f ms\n", n, blocks, sum, ref,
              rel, ms);
  const bool ok = rel < 1e-5;
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_partial));
  CUDA_CHECK(cudaFree(d_sum));
  return ok ? 0 : 1;
}
