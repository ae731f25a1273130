// warp_interleave.cu: a block's warps advance together, as on hardware.
// The kernel has the shape of llm.c's softmax_autoregressive_backward_kernel
// (train_gpt2_fp32.cu): per row, each warp puts its partial sum in a shared
// slot, the block syncs, every warp reads all the slots, and the next row's
// partials are written with no barrier after those reads. That is a race
// (--check reports it), but on hardware a warp reads the slots right after
// the barrier, long before another warp has loaded and reduced its next row,
// so the program works there. A simulator that lets warp 0 run alone to its
// next barrier has it overwrite its slot before warp 1 has read it: warp 1's
// rows then come out wrong every time (lab/sim/launch.cpp, kQuantum).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cmath>
#include <cstdio>

#include <cuda_runtime.h>

namespace cg = cooperative_groups;

constexpr int kT = 64, kRowsPerBlock = 4, kThreads = 256;

// out[t][u] = x[t][u] * (y[t][u] - sum_{v <= t} x[t][v] y[t][v]) for u <= t.
__global__ void rows_minus_dot(float* out, const float* x, const float* y) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ float slot[32];
  if (warp.meta_group_rank() == 0) slot[warp.thread_rank()] = 0.f;
  for (int r = 0; r < kRowsPerBlock; ++r) {
    const int t = kT - 1 - kRowsPerBlock * blockIdx.x - r;
    float part = 0.f;
    for (int u = block.thread_rank(); u <= t; u += kThreads) part += x[t * kT + u] * y[t * kT + u];
    slot[warp.meta_group_rank()] = cg::reduce(warp, part, cg::plus<float>());  // next row: no barrier before
    block.sync();
    const float dot = cg::reduce(warp, slot[warp.thread_rank()], cg::plus<float>());
    for (int u = block.thread_rank(); u <= t; u += kThreads) out[t * kT + u] = x[t * kT + u] * (y[t * kT + u] - dot);
  }
}

int main() {
  const int n = kT * kT;
  static float x[n], y[n], out[n];
  for (int i = 0; i < n; ++i) x[i] = float(i % 13) / 16.f, y[i] = float(i % 7) / 8.f - 0.25f, out[i] = 0.f;
  float *dx, *dy, *dout;
  cudaMalloc(&dx, sizeof x);
  cudaMalloc(&dy, sizeof y);
  cudaMalloc(&dout, sizeof out);
  cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, sizeof y, cudaMemcpyHostToDevice);
  cudaMemset(dout, 0, sizeof out);
  rows_minus_dot<<<kT / kRowsPerBlock, kThreads>>>(dout, dx, dy);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  int wrong = 0, first = -1;
  for (int t = 0; t < kT; ++t) {
    float dot = 0.f;
    for (int u = 0; u <= t; ++u) dot += x[t * kT + u] * y[t * kT + u];
    for (int u = 0; u <= t; ++u) {
      const float want = x[t * kT + u] * (y[t * kT + u] - dot);
      if (std::fabs(out[t * kT + u] - want) > 1e-4f * (1.f + std::fabs(want))) {
        if (first < 0) first = t * kT + u;
        ++wrong;
      }
    }
  }
  if (wrong) {
    printf("FAILED: %d wrong elements, first row %d column %d\n", wrong, first / kT, first % kT);
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
