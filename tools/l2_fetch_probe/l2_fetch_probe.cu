// tools/l2_fetch_probe/l2_fetch_probe.cu: how many bytes the L2 fetches from
// DRAM for a lane's 4-byte read, seen through strided reads (docs/fidelity.md,
// sixteenth round, "the stride rows"). A measuring tool, not part of the
// lab's build: on a machine with a GPU,
//   nvcc -O3 -arch=native -o l2_fetch_probe tools/l2_fetch_probe/l2_fetch_probe.cu && ./l2_fetch_probe
// Prints the driver's L2 fetch granularity limit (cudaLimitMaxL2FetchGranularity,
// a hint in bytes), then, under that default and with the limit set to 32, 64
// and 128 bytes, the useful read rate of 4M threads each reading one float
// `stride` floats apart (stride 8: one 32-byte sector per lane; 16: every
// other sector; 32: one sector per 128-byte line). If the L2 fetches 64 bytes
// from DRAM per missed sector, stride 16 moves twice the bytes stride 8 does.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(err_)); std::exit(1); } } while (0)

extern "C" __global__ void strided_read(const float* a, float* out, int stride, float never) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const float v = a[i * stride];
  if (v == never) out[threadIdx.x] = v;
}

int main() {
  const long long threads = 1ll << 22;
  const int strides[] = {1, 2, 4, 8, 16, 32};
  float *a, *out;
  CK(cudaMalloc(&a, threads * 32 * sizeof(float)));
  CK(cudaMalloc(&out, 1024 * sizeof(float)));
  CK(cudaMemset(a, 0, threads * 32 * sizeof(float)));
  size_t dflt = 0;
  CK(cudaDeviceGetLimit(&dflt, cudaLimitMaxL2FetchGranularity));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("%s: cudaLimitMaxL2FetchGranularity = %zu bytes (default)\n", p.name, dflt);
  std::printf("%-10s", "limit");
  for (int s : strides) std::printf("  stride %-3d", s);
  std::printf("   (useful GB/s: 4 bytes a thread / median of 7 launches)\n");
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (size_t limit : {dflt, (size_t)32, (size_t)64, (size_t)128, dflt}) {
    CK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, limit));
    size_t got = 0;
    CK(cudaDeviceGetLimit(&got, cudaLimitMaxL2FetchGranularity));
    std::printf("%3zu (%3zu) ", limit, got);
    for (int s : strides) {
      std::vector<float> ms;
      for (int r = 0; r < 9; ++r) {
        CK(cudaEventRecord(e0));
        strided_read<<<unsigned(threads / 256), 256>>>(a, out, s, -1.0f);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t = 0;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (r >= 2) ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      std::printf("  %10.0f", threads * 4.0 / (ms[ms.size() / 2] * 1e-3) / 1e9);
    }
    std::printf("\n");
  }
  return 0;
}
