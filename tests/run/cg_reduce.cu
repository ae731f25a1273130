// cg_reduce.cu: cooperative groups as written: thread_block, tiled_partition
// of a warp and of two warps (whose reduction uses the reserved shared
// memory, %reserved_smem_offset_*), cg::reduce and group sync.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdio>

#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void tile_sums(const int* in, int* warp_out, int* pair_out, int* total) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<64> pair = cg::tiled_partition<64>(block);
  int v = in[blockIdx.x * blockDim.x + block.thread_rank()];
  int ws = cg::reduce(warp, v, cg::plus<int>());
  int ps = cg::reduce(pair, v, cg::plus<int>());
  block.sync();
  if (warp.thread_rank() == 0) warp_out[blockIdx.x * (blockDim.x / 32) + warp.meta_group_rank()] = ws;
  if (pair.thread_rank() == 0) pair_out[blockIdx.x * (blockDim.x / 64) + pair.meta_group_rank()] = ps;
  if (warp.thread_rank() == 0) atomicAdd(total, ws);
}

int main() {
  const int blocks = 2, threads = 128, n = blocks * threads;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i % 7 + 1;
  int *d_in, *d_warp, *d_pair, *d_total;
  cudaMalloc(&d_in, sizeof h);
  cudaMalloc(&d_warp, n / 32 * sizeof(int));
  cudaMalloc(&d_pair, n / 64 * sizeof(int));
  cudaMalloc(&d_total, sizeof(int));
  cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(d_total, 0, sizeof(int));
  tile_sums<<<blocks, threads>>>(d_in, d_warp, d_pair, d_total);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  int warp[n / 32], pair[n / 64], total = 0;
  cudaMemcpy(warp, d_warp, sizeof warp, cudaMemcpyDeviceToHost);
  cudaMemcpy(pair, d_pair, sizeof pair, cudaMemcpyDeviceToHost);
  cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost);
  int wrong = 0, all = 0;
  for (int w = 0; w < n / 32; ++w) {
    int s = 0;
    for (int i = 0; i < 32; ++i) s += h[w * 32 + i];
    wrong += s != warp[w];
    all += s;
  }
  for (int p = 0; p < n / 64; ++p) {
    int s = 0;
    for (int i = 0; i < 64; ++i) s += h[p * 64 + i];
    wrong += s != pair[p];
  }
  wrong += all != total;
  std::printf("warp sums %d %d ..., pair sums %d %d ..., total %d: %s\n", warp[0], warp[1], pair[0], pair[1], total,
              wrong ? "FAILED" : "PASSED");
  return wrong ? 1 : 0;
}
