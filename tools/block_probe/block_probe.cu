// tools/block_probe/block_probe.cu: when a GPU starts and ends each block, read
// off the SM's own clock, to find what a block costs beyond its instructions
// (docs/fidelity.md, "The block scheduler"). A measuring tool, not part of the
// lab's build: on a machine with a GPU,
//   nvcc -O3 -arch=native -o block_probe tools/block_probe/block_probe.cu && ./block_probe
// Each block's thread 0 reads clock64() and %smid as the block starts and
// again after a __syncthreads() at its end. Per SM, with blocks sorted by
// start:
//  * "start gap": cycles between consecutive block starts on one SM. Many
//    small blocks per SM: the rate the GPU deals blocks to that SM.
//  * "turnaround": with one block per SM resident (dynamic shared memory
//    holds the rest back), the next block's start less the last one's end:
//    what retiring a block and placing and starting the next costs.
//  * "life": a block's end less its start (its own instructions).
// Timestamps on different SMs are not compared (each SM has its own clock).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(err_)); std::exit(1); } } while (0)

extern "C" __global__ void stamp(unsigned long long* start, unsigned long long* end, unsigned* sm, int work) {
  extern __shared__ float pad[];
  unsigned long long t0 = clock64();
  float acc = threadIdx.x;
  for (int i = 0; i < work; ++i) acc = acc * 0.999f + 1.0f;  // a block that lives `work` dependent FMAs
  if (acc == -1.0f) pad[0] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    start[blockIdx.x] = t0;
    end[blockIdx.x] = clock64();
    sm[blockIdx.x] = id;
  }
}

struct Stats { double start_gap = 0, turnaround = 0, life = 0; double gap_p10 = 0, gap_p90 = 0; int n = 0; };

static Stats run(int sms, int per_sm, int threads, size_t smem, int work, float* ms_out) {
  const int grid = sms * per_sm;
  unsigned long long *s, *e; unsigned* m;
  CK(cudaMalloc(&s, grid * 8)); CK(cudaMalloc(&e, grid * 8)); CK(cudaMalloc(&m, grid * 4));
  CK(cudaFuncSetAttribute(stamp, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int rep = 0; rep < 3; ++rep) stamp<<<grid, threads, smem>>>(s, e, m, work);  // warm-up
  CK(cudaEventRecord(a));
  stamp<<<grid, threads, smem>>>(s, e, m, work);
  CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
  CK(cudaEventElapsedTime(ms_out, a, b));
  std::vector<unsigned long long> hs(grid), he(grid); std::vector<unsigned> hm(grid);
  CK(cudaMemcpy(hs.data(), s, grid * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(he.data(), e, grid * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hm.data(), m, grid * 4, cudaMemcpyDeviceToHost));
  std::vector<std::vector<int>> by_sm(1024);
  for (int i = 0; i < grid; ++i) by_sm[hm[i] % 1024].push_back(i);
  Stats st; std::vector<double> gaps; double turn = 0, life = 0; int nt = 0, nl = 0;
  for (auto& v : by_sm) {
    std::sort(v.begin(), v.end(), [&](int x, int y) { return hs[x] < hs[y]; });
    for (size_t k = 0; k < v.size(); ++k) {
      life += double(he[v[k]] - hs[v[k]]); ++nl;
      if (k == 0) continue;
      gaps.push_back(double(hs[v[k]] - hs[v[k - 1]]));
      turn += double(hs[v[k]]) - double(he[v[k - 1]]); ++nt;
    }
  }
  std::sort(gaps.begin(), gaps.end());
  double sum = 0; for (double g : gaps) sum += g;
  st.n = int(gaps.size());
  if (!gaps.empty()) {
    st.start_gap = sum / gaps.size();
    st.gap_p10 = gaps[gaps.size() / 10];
    st.gap_p90 = gaps[gaps.size() * 9 / 10];
  }
  st.turnaround = nt ? turn / nt : 0;
  st.life = nl ? life / nl : 0;
  CK(cudaFree(s)); CK(cudaFree(e)); CK(cudaFree(m));
  return st;
}

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  const int sms = p.multiProcessorCount;
  const size_t one_per_sm = p.sharedMemPerMultiprocessor - 2048;  // more than half: one block per SM
  std::printf("%s, %d SMs, %zu B shared per SM\n", p.name, sms, (size_t)p.sharedMemPerMultiprocessor);
  std::printf("%-44s %9s %10s %9s %9s %11s %9s\n", "launch", "ms", "start gap", "gap p10", "gap p90", "turnaround", "life");
  struct C { const char* what; int per_sm, threads; bool one; int work; };
  const C cs[] = {
    {"128 thr, 64/SM, as many resident as fit", 64, 128, false, 0},
    {"32 thr, 64/SM, as many resident as fit", 64, 32, false, 0},
    {"1024 thr, 32/SM, as many resident as fit", 32, 1024, false, 0},
    {"128 thr, 16/SM, one resident per SM", 16, 128, true, 0},
    {"1024 thr, 16/SM, one resident per SM", 16, 1024, true, 0},
    {"32 thr, 16/SM, one resident per SM", 16, 32, true, 0},
    {"128 thr, 16/SM, one resident, 256 FMAs", 16, 128, true, 256},
    {"128 thr, 64/SM, as many as fit, 256 FMAs", 64, 128, false, 256},
  };
  for (const C& c : cs) {
    float ms = 0;
    Stats st = run(sms, c.per_sm, c.threads, c.one ? one_per_sm : 0, c.work, &ms);
    std::printf("%-44s %9.4f %10.1f %9.0f %9.0f %11.1f %9.1f\n", c.what, ms, st.start_gap, st.gap_p10, st.gap_p90,
                st.turnaround, st.life);
  }
  return 0;
}
