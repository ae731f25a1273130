// expect: clean
// run: --kernel ok_cg_tile64_sync --grid 1 --block 128 --arg f32[128]=iota --arg f32[128]
// A cooperative-groups tile of 64 threads spans two warps; tile.sync() is
// built from atomics and spin reads on a shared word (cooperative_groups
// headers), which the checks follow as release and acquire. Each tile then
// reads only what its own threads wrote.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void ok_cg_tile64_sync(const float* in, float* out) {
  __shared__ cg::block_tile_memory<128> scratch;
  cg::thread_block block = cg::this_thread_block(scratch);
  __shared__ float s[128];
  auto tile = cg::tiled_partition<64>(block);
  int t = threadIdx.x;
  s[t] = in[t];
  tile.sync();
  out[t] = s[(t & ~63) + (63 - (t & 63))];
}
