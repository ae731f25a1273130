// vector_add.cu: the first CUDA program of every course, whole: allocate on
// the host and the device, copy in, launch one thread per element, copy
// out, time the kernel with events, check every element on the CPU.
//
//   gpulab run examples/vector_add.cu              (simulated; times are predictions)
//   gpulab run examples/vector_add.cu -- 1000000   (n elements)
//   nvcc examples/vector_add.cu -o vadd && ./vadd  (on a machine with a GPU)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

// Every runtime call is checked: a failure names the call, the file and the line.
#define CUDA_CHECK(call)                                                                      \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,        \
                   cudaGetErrorString(err_), cudaGetErrorName(err_));                         \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

// One thread per element; the guard covers the last, partial block.
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 50000;
  const size_t bytes = size_t(n) * sizeof(float);

  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i % 1000) * 0.5f;
    b[i] = float((i * 7) % 1000) * 0.25f;
  }

  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  CUDA_CHECK(cudaMalloc(&d_a, bytes));
  CUDA_CHECK(cudaMalloc(&d_b, bytes));
  CUDA_CHECK(cudaMalloc(&d_c, bytes));
  CUDA_CHECK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice));

  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  vector_add<<<blocks, threads>>>(d_a, d_b, d_c, n);
  CUDA_CHECK(cudaGetLastError());  // launch errors (bad configuration)
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));  // faults inside the kernel surface here
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

  CUDA_CHECK(cudaMemcpy(c.data(), d_c, bytes, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    if (c[i] != a[i] + b[i]) {
      if (++wrong <= 5) std::printf("mismatch at %d: %f != %f\n", i, c[i], a[i] + b[i]);
    }
  }
  const double gbs = 3.0 * bytes / (ms * 1e-3) / 1e9;
  std::printf("vector_add: n = %d, %d blocks of %d threads, %.4f ms (%.1f GB/s)\n", n, blocks, threads, ms, gbs);
  std::printf("%s\n", wrong ? "FAILED" : "PASSED");

  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaFree(d_c));
  return wrong ? 1 : 0;
}
