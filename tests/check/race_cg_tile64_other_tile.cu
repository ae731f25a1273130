// expect: race line 14
// run: --kernel race_cg_tile64_other_tile --grid 1 --block 128 --arg f32[128]=iota --arg f32[128]
// The twin of ok_cg_tile64_sync: each thread reads a value the other tile
// wrote, but tile.sync() orders only the tile's own 64 threads; the block
// needs block.sync() (__syncthreads()) here.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void race_cg_tile64_other_tile(const float* in, float* out) {
  __shared__ cg::block_tile_memory<128> scratch;
  cg::thread_block block = cg::this_thread_block(scratch);
  __shared__ float s[128];
  auto tile = cg::tiled_partition<64>(block);
  int t = threadIdx.x;
  s[t] = in[t];  // <- planted bug: the other tile's read below is not ordered with this write
  tile.sync();
  out[t] = s[127 - t];
}
