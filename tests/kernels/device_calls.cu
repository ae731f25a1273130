// Device code as written: assert, printf and cooperative groups, for the
// `gpulab sim` tests in tests/cli/run.sh.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/std/cassert>

namespace cg = cooperative_groups;

// Fails for negative elements (one thread in the tests).
extern "C" __global__ void assert_nonneg(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] >= 0);
}

// No assert fails here, though the file has asserts: the launch is clean.
extern "C" __global__ void plain_copy(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

extern "C" __global__ void say(int tag) {
  if (threadIdx.x % 8 == 0) printf("b%d t%d tag %d\n", blockIdx.x, threadIdx.x, tag);
}

// Sums of 64-thread tiles: cg::reduce over two warps goes through the
// reserved shared memory (%reserved_smem_offset_1).
extern "C" __global__ void pair_sums(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<64> pair = cg::tiled_partition<64>(block);
  int s = cg::reduce(pair, in[blockIdx.x * blockDim.x + block.thread_rank()], cg::plus<int>());
  if (pair.thread_rank() == 0) out[blockIdx.x * (blockDim.x / 64) + pair.meta_group_rank()] = s;
}
