// lab/sim/occupancy.h: how many blocks of a kernel fit on one SM, and why.
//
// The numbers come from the CUDA toolkit's own cuda_occupancy.h (the same code
// the CUDA Occupancy Calculator and cudaOccupancyMaxActiveBlocksPerMultiprocessor
// use), fed with a GpuModel. The lab adds the explanation: blocks per SM under
// each limit, which limit bites, and what change would raise occupancy.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/sim/device.h"

namespace lab::sim {

// A kernel's per-launch resource needs.
struct OccupancyInput {
  int block_threads = 0;        // threads per block
  int regs_per_thread = 0;      // from ptxas (lab::compile::resource_usage)
  int static_shared_bytes = 0;  // .shared declared in the kernel
  int dynamic_shared_bytes = 0; // the launch's dynamic shared memory
};

// The four limits NVIDIA's calculator reports. "none" is never a limiter:
// one of the four always bounds blocks per SM.
enum class OccupancyLimiter { Warps, Registers, SharedMemory, Blocks };
const char* limiter_name(OccupancyLimiter l);  // "warps", "registers", "shared_memory", "blocks"

struct Occupancy {
  int blocks_per_sm = 0;
  int warps_per_block = 0;
  int warps_per_sm = 0;         // active warps: blocks_per_sm x warps_per_block
  int max_warps_per_sm = 0;
  double occupancy = 0;         // warps_per_sm / max_warps_per_sm, 0..1
  // Blocks per SM each limit alone would allow (kUnlimited when a resource is unused).
  static constexpr int kUnlimited = 1 << 30;
  int limit_warps = 0, limit_registers = 0, limit_shared = 0, limit_blocks = 0;
  OccupancyLimiter limiter = OccupancyLimiter::Warps;  // the binding limit (ties: warps, blocks, registers, shared)
  std::vector<OccupancyLimiter> limiters;              // every limit equal to blocks_per_sm
  int allocated_regs_per_block = 0;                    // after warp allocation granularity
  int allocated_shared_per_block = 0;                  // incl. reserved 1 KB, after granularity
  bool shared_opt_in = false;                          // dynamic shared memory above the 48 KB default
  std::string explanation;                             // one paragraph a student reads
  std::vector<std::string> advice;                     // changes that would raise occupancy
};

// A configuration that cannot launch on `gpu` (block too large, too many
// registers, shared memory over the opt-in maximum). The message says what to do.
struct OccupancyError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Throws OccupancyError for an impossible configuration.
Occupancy compute_occupancy(const GpuModel& gpu, const OccupancyInput& in);

// Just the blocks-per-SM number from cuda_occupancy.h (no explanation, no
// validation beyond the library's own: impossible configs give 0). Cheap.
int occupancy_blocks_per_sm(const GpuModel& gpu, const OccupancyInput& in);

// Registers the hardware reserves for one block (the figure a launch is
// refused on when it exceeds gpu.regs_per_block), and the most registers per
// thread a block of that size may use.
int registers_per_block(const GpuModel& gpu, int block_threads, int regs_per_thread);
int max_registers_per_thread(const GpuModel& gpu, int block_threads);

// The three curves of NVIDIA's occupancy calculator, each varying one input
// of `in` and holding the others: x -> active warps per SM and occupancy.
struct OccupancyPoint {
  int x = 0;
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double occupancy = 0;
};
struct OccupancyCurves {
  std::vector<OccupancyPoint> vs_block_size;     // x = threads per block, 32 .. max, step 32
  std::vector<OccupancyPoint> vs_registers;      // x = registers per thread, 1 .. 255
  std::vector<OccupancyPoint> vs_shared_memory;  // x = shared bytes per block, 0 .. opt-in max, step 512
  int current_block = 0, current_regs = 0, current_shared = 0;  // where `in` sits on each curve
};
OccupancyCurves occupancy_curves(const GpuModel& gpu, const OccupancyInput& in);

}  // namespace lab::sim
