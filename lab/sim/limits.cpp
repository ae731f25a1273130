// lab/sim/limits.cpp: launch limits. The figures are the GPU model's
// (device.h cites the CUDA C++ Programming Guide's Compute Capabilities
// table); the register arithmetic is cuda_occupancy.h's (occupancy.h).
#include "lab/sim/limits.h"

#include <algorithm>

#include <fmt/format.h>

#include "lab/sim/device.h"
#include "lab/sim/occupancy.h"

namespace lab::sim {

void check_launch_limits(const ptx::Kernel& kernel, const LaunchConfig& cfg, const GpuModel& g,
                         const compile::ResourceUsage* resources) {
  const Dim3& b = cfg.block;
  const Dim3& grid = cfg.grid;
  auto fail = [&](const std::string& why) {
    throw LaunchError(fmt::format("kernel '{}': launch --grid {},{},{} --block {},{},{} is not possible on {}: {}",
                                  kernel.name, grid.x, grid.y, grid.z, b.x, b.y, b.z, g.name, why));
  };
  if (b.x == 0 || b.y == 0 || b.z == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0)
    fail("every grid and block dimension must be at least 1");
  const uint64_t threads = b.count();
  if (threads > uint64_t(g.max_threads_per_block))
    fail(fmt::format("{} threads per block exceeds the limit of {}", threads, g.max_threads_per_block));
  if (b.x > uint32_t(g.max_block_dim[0]) || b.y > uint32_t(g.max_block_dim[1]) || b.z > uint32_t(g.max_block_dim[2]))
    fail(fmt::format("block dimensions are limited to {} x {} x {}", g.max_block_dim[0], g.max_block_dim[1],
                     g.max_block_dim[2]));
  if (grid.x > g.max_grid_dim[0] || grid.y > g.max_grid_dim[1] || grid.z > g.max_grid_dim[2])
    fail(fmt::format("grid dimensions are limited to {} x {} x {}", g.max_grid_dim[0], g.max_grid_dim[1],
                     g.max_grid_dim[2]));
  // .maxntid / .reqntid (PTX ISA 11.4, from __launch_bounds__ or
  // __maxnreg__): a GPU refuses a launch outside them.
  for (int d = 0; d < 3; ++d) {
    uint32_t bd = d == 0 ? b.x : d == 1 ? b.y : b.z;
    if (kernel.reqntid[d] && bd != kernel.reqntid[d])
      fail(fmt::format("the kernel requires .reqntid {},{},{}", kernel.reqntid[0], kernel.reqntid[1],
                       kernel.reqntid[2]));
  }
  auto product = [](const uint32_t* d) { return uint64_t(d[0]) * std::max(1u, d[1]) * std::max(1u, d[2]); };
  if (kernel.max_ntid[0] && threads > product(kernel.max_ntid))
    fail(fmt::format("a block of {} threads exceeds the kernel's .maxntid of {} threads (__launch_bounds__); "
                     "launch smaller blocks",
                     threads, product(kernel.max_ntid)));
  const uint64_t smem = uint64_t(kernel.static_shared_bytes) + cfg.dynamic_shared_bytes;
  if (smem > uint64_t(g.shared_per_block_optin))
    fail(fmt::format("{} bytes of shared memory per block ({} static + {} dynamic) exceeds {}'s limit of {} bytes",
                     smem, kernel.static_shared_bytes, cfg.dynamic_shared_bytes, g.name, g.shared_per_block_optin));
  if (!resources || resources->registers <= 0) return;
  // Registers: what the hardware check reserves for the block (cuda_occupancy.h:
  // per warp, regs x 32 rounded up to the allocation unit; warps rounded up to
  // the SM's sub-partitions) against the model's registers per block.
  const int regs = resources->registers;
  const int need = registers_per_block(g, int(threads), regs);
  if (need > g.regs_per_block)
    fail(fmt::format("too many resources requested for launch (cudaErrorLaunchOutOfResources): {} threads x {} "
                     "registers need {} registers per block (allocated per warp in units of {}) but {} allows {} per "
                     "block; use at most {} registers per thread (__launch_bounds__({}) or -maxrregcount) or a "
                     "smaller block",
                     threads, regs, need, g.reg_alloc_unit, g.name, g.regs_per_block,
                     max_registers_per_thread(g, int(threads)), threads));
}

}  // namespace lab::sim
