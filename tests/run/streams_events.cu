// streams_events.cu: a program with several kernels, two streams, async
// copies, events on both streams, a __constant__ table, a kernel that opts
// in to more than 48 KB of dynamic shared memory, device properties and the
// occupancy API. tests/cli/run.sh runs it through `gpulab run`.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

__constant__ float coeffs[4];
__device__ int launches_seen;

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * coeffs[0] + coeffs[1];
  if (i == 0) atomicAdd(&launches_seen, 1);
}

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  if (i == 0) atomicAdd(&launches_seen, 1);
}

// Reverses each block's slice through dynamic shared memory (sized at launch).
__global__ void reverse_blocks(const float* in, float* out, int per_block) {
  extern __shared__ float buf[];
  const float* src = in + blockIdx.x * per_block;
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) buf[i] = src[i];
  __syncthreads();
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) out[blockIdx.x * per_block + i] = buf[per_block - 1 - i];
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&launches_seen, 1);
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  CHECK(cudaSetDevice(0));
  std::printf("device: %s, %d SMs, cc %d.%d, %d devices\n", prop.name, prop.multiProcessorCount, prop.major,
              prop.minor, count);

  const int n = 32768;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) { a[i] = float(i); b[i] = float(2 * i); }
  const float h_coeffs[4] = {2.0f, 1.0f, 0.0f, 0.0f};
  CHECK(cudaMemcpyToSymbol(coeffs, h_coeffs, sizeof h_coeffs));

  float *da, *db, *dc, *dr;
  float* pinned;
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CHECK(cudaMalloc(&dr, n * sizeof(float)));
  CHECK(cudaMallocHost(&pinned, n * sizeof(float)));

  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t e0, e1, e2;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventCreate(&e2));

  CHECK(cudaEventRecord(e0, s1));
  CHECK(cudaMemcpyAsync(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice, s1));
  CHECK(cudaMemcpyAsync(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice, s2));
  scale<<<n / 256, 256, 0, s1>>>(da, n);  // a = 2a + 1
  CHECK(cudaEventRecord(e1, s2));
  CHECK(cudaStreamWaitEvent(s1, e1, 0));
  add<<<n / 256, 256, 0, s1>>>(da, db, dc, n);  // c = 2a + 1 + 2i
  CHECK(cudaMemcpyAsync(pinned, dc, n * sizeof(float), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaEventRecord(e2, s1));
  CHECK(cudaStreamSynchronize(s1));

  // 64 KB of dynamic shared memory per block: above the 48 KB default, so the kernel opts in.
  const int per_block = 16384;
  const size_t smem = per_block * sizeof(float);
  reverse_blocks<<<n / per_block, 256, smem>>>(dc, dr, per_block);
  cudaError_t refused = cudaGetLastError();
  std::printf("without opt-in: %s\n", cudaGetErrorName(refused));
  if (refused == cudaSuccess) return 1;
  CHECK(cudaFuncSetAttribute(reverse_blocks, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  CHECK(cudaMemsetAsync(dr, 0, n * sizeof(float), s2));
  reverse_blocks<<<n / per_block, 256, smem, s2>>>(dc, dr, per_block);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(c.data(), dr, n * sizeof(float), cudaMemcpyDeviceToHost));

  int blocks_per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, add, 256, 0));
  int seen = 0;
  CHECK(cudaMemcpyFromSymbol(&seen, launches_seen, sizeof seen));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e2));

  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    float want_c = 2.0f * a[i] + 1.0f + b[i];
    if (pinned[i] != want_c) ++wrong;
    int blk = i / per_block, j = i % per_block;
    float want_r = 2.0f * a[blk * per_block + per_block - 1 - j] + 1.0f + b[blk * per_block + per_block - 1 - j];
    if (c[i] != want_r) ++wrong;
  }
  std::printf("launches seen on the device: %d, occupancy of add: %d blocks/SM, elapsed %s\n", seen, blocks_per_sm,
              ms > 0 ? "> 0" : "0");
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
  CHECK(cudaEventDestroy(e2));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dr));
  std::printf("%s (%d wrong)\n", wrong || seen != 3 ? "FAILED" : "PASSED", wrong);
  return wrong || seen != 3 ? 1 : 0;
}
