// lab/sim/occupancy.cpp: occupancy numbers from cuda_occupancy.h, plus the
// lab's explanation of them.
#include "lab/sim/occupancy.h"

#include <cuda_occupancy.h>

#include <algorithm>
#include <cassert>
#include <climits>
#include <cmath>

#include <fmt/format.h>

namespace lab::sim {

namespace {

cudaOccDeviceProp device_prop(const GpuModel& g) {
  cudaOccDeviceProp p;
  p.computeMajor = g.cc_major;
  p.computeMinor = g.cc_minor;
  p.maxThreadsPerBlock = g.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = g.max_threads_per_sm;
  p.regsPerBlock = g.regs_per_block;
  p.regsPerMultiprocessor = g.regs_per_sm;
  p.warpSize = g.warp_size;
  p.sharedMemPerBlock = size_t(g.shared_per_block);
  p.sharedMemPerMultiprocessor = size_t(g.shared_per_sm);
  p.numSms = g.sm_count;
  p.sharedMemPerBlockOptin = size_t(g.shared_per_block_optin);
  p.reservedSharedMemPerBlock = size_t(g.reserved_shared_per_block);
  return p;
}

// The kernel as cudaFuncGetAttributes would describe it after the launcher
// opted in to the largest dynamic shared memory the GPU allows (what a
// launcher does when it asks for more than 48 KB).
cudaOccFuncAttributes func_attributes(const GpuModel& g, const OccupancyInput& in) {
  cudaOccFuncAttributes a;
  a.maxThreadsPerBlock = g.max_threads_per_block;
  a.numRegs = in.regs_per_thread;
  a.sharedSizeBytes = size_t(std::max(0, in.static_shared_bytes));
  a.partitionedGCConfig = PARTITIONED_GC_OFF;
  a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  a.maxDynamicSharedSizeBytes = size_t(std::max(0, g.shared_per_block_optin - std::max(0, in.static_shared_bytes)));
  a.numBlockBarriers = 1;  // __syncthreads uses barrier 0 (what cudaFuncAttributes conversion assumes)
  a.virtualResourceCount = 0;
  return a;
}

struct LibResult {
  cudaOccResult r{};
  bool ok = false;
};

LibResult run_library(const GpuModel& g, const OccupancyInput& in) {
  LibResult out;
  if (in.block_threads <= 0) return out;
  cudaOccDeviceProp prop = device_prop(g);
  cudaOccFuncAttributes attr = func_attributes(g, in);
  cudaOccDeviceState state;  // default carveout: the largest shared memory configuration
  cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&out.r, &prop, &attr, &state, in.block_threads,
                                                           size_t(std::max(0, in.dynamic_shared_bytes)));
  out.ok = (e == CUDA_OCC_SUCCESS);
  return out;
}

int clamp_unlimited(int v) { return v >= INT_MAX / 2 ? Occupancy::kUnlimited : v; }

std::string pct(double x) { return fmt::format("{:.0f}%", x * 100); }

int warps_of(int threads, int warp) { return (threads + warp - 1) / warp; }

}  // namespace

const char* limiter_name(OccupancyLimiter l) {
  switch (l) {
    case OccupancyLimiter::Warps: return "warps";
    case OccupancyLimiter::Registers: return "registers";
    case OccupancyLimiter::SharedMemory: return "shared_memory";
    case OccupancyLimiter::Blocks: return "blocks";
  }
  return "?";
}

// The hardware's per-block register check (cuda_occupancy.h,
// cudaOccMaxBlocksPerSMRegsLimit): each warp gets regs x 32 rounded up to the
// 256-register allocation unit, and the check assumes every sub-partition
// (one per warp scheduler) holds the same number of the block's warps.
int registers_per_block(const GpuModel& g, int block_threads, int regs_per_thread) {
  const int parts = std::max(1, g.warp_schedulers_per_sm);
  const int warps = warps_of(block_threads, g.warp_size);
  const int rounded_warps = (warps + parts - 1) / parts * parts;
  const int unit = std::max(1, g.reg_alloc_unit);
  const int per_warp = (regs_per_thread * g.warp_size + unit - 1) / unit * unit;
  return per_warp * rounded_warps;
}

// The most registers per thread a block of `block_threads` may use under
// that check.
int max_registers_per_thread(const GpuModel& g, int block_threads) {
  const int parts = std::max(1, g.warp_schedulers_per_sm);
  const int warps = warps_of(block_threads, g.warp_size);
  const int rounded_warps = (warps + parts - 1) / parts * parts;
  int per_warp = g.regs_per_block / rounded_warps;
  per_warp -= per_warp % std::max(1, g.reg_alloc_unit);
  return std::min(g.max_regs_per_thread, per_warp / g.warp_size);
}

int occupancy_blocks_per_sm(const GpuModel& gpu, const OccupancyInput& in) {
  LibResult lr = run_library(gpu, in);
  return lr.ok ? lr.r.activeBlocksPerMultiprocessor : 0;
}

Occupancy compute_occupancy(const GpuModel& g, const OccupancyInput& in) {
  // ---- validation: configurations no launch could have --------------------------
  if (in.block_threads <= 0 || in.block_threads > g.max_threads_per_block)
    throw OccupancyError(fmt::format(
        "a block of {} threads cannot launch on {}: blocks hold 1 to {} threads; use a smaller block "
        "(e.g. 256) and more blocks",
        in.block_threads, g.name, g.max_threads_per_block));
  if (in.regs_per_thread < 0 || in.regs_per_thread > g.max_regs_per_thread)
    throw OccupancyError(fmt::format(
        "{} registers per thread is impossible on {}: ptxas allocates at most {} per thread (more spill to "
        "local memory)",
        in.regs_per_thread, g.name, g.max_regs_per_thread));
  if (in.static_shared_bytes < 0 || in.dynamic_shared_bytes < 0)
    throw OccupancyError("shared memory sizes must not be negative");
  if (in.static_shared_bytes > g.shared_per_block)
    throw OccupancyError(fmt::format(
        "{} bytes of static __shared__ memory exceed the {} byte static limit on {}; declare the array "
        "`extern __shared__` and pass its size as dynamic shared memory",
        in.static_shared_bytes, g.shared_per_block, g.name));
  int total_shared = in.static_shared_bytes + in.dynamic_shared_bytes;
  if (total_shared > g.shared_per_block_optin)
    throw OccupancyError(fmt::format(
        "{} bytes of shared memory per block ({} static + {} dynamic) exceed the {} byte maximum a block "
        "may opt in to on {}; use less shared memory per block (smaller tiles)",
        total_shared, in.static_shared_bytes, in.dynamic_shared_bytes, g.shared_per_block_optin, g.name));

  LibResult lr = run_library(g, in);
  assert(lr.ok && "cuda_occupancy.h rejected a GpuModel: its table must match the library");
  const cudaOccResult& r = lr.r;

  Occupancy o;
  o.warps_per_block = warps_of(in.block_threads, g.warp_size);
  o.blocks_per_sm = r.activeBlocksPerMultiprocessor;
  o.max_warps_per_sm = g.max_warps_per_sm;
  o.warps_per_sm = o.blocks_per_sm * o.warps_per_block;
  o.occupancy = double(o.warps_per_sm) / double(o.max_warps_per_sm);
  o.limit_warps = clamp_unlimited(r.blockLimitWarps);
  o.limit_registers = clamp_unlimited(r.blockLimitRegs);
  o.limit_shared = clamp_unlimited(r.blockLimitSharedMem);
  o.limit_blocks = clamp_unlimited(r.blockLimitBlocks);
  o.allocated_regs_per_block = r.allocatedRegistersPerBlock;
  o.allocated_shared_per_block = int(r.allocatedSharedMemPerBlock);
  o.shared_opt_in = in.dynamic_shared_bytes + in.static_shared_bytes > g.shared_per_block;

  if (o.blocks_per_sm == 0) {
    // Only registers can still make a launch impossible here: the block's
    // register file share exceeds the per-block limit.
    throw OccupancyError(fmt::format(
        "{} threads x {} registers = {} registers per block exceed the {} a block may use on {}; use at most "
        "{} registers per thread (__launch_bounds__({}) or -maxrregcount) or a smaller block",
        in.block_threads, in.regs_per_thread, r.allocatedRegistersPerBlock, g.regs_per_block, g.name,
        max_registers_per_thread(g, in.block_threads),
        in.block_threads));
  }

  // Which limits bind. Tie order: warps and blocks are shape problems (no
  // resource saving helps while they bind), then registers, then shared memory.
  const std::pair<OccupancyLimiter, int> limits[] = {
      {OccupancyLimiter::Warps, o.limit_warps},
      {OccupancyLimiter::Blocks, o.limit_blocks},
      {OccupancyLimiter::Registers, o.limit_registers},
      {OccupancyLimiter::SharedMemory, o.limit_shared},
  };
  for (auto [l, v] : limits)
    if (v == o.blocks_per_sm) o.limiters.push_back(l);
  assert(!o.limiters.empty());
  o.limiter = o.limiters.front();

  // ---- explanation --------------------------------------------------------------
  auto lim_text = [&](int v) { return v >= Occupancy::kUnlimited ? std::string("no limit") : std::to_string(v); };
  o.explanation = fmt::format(
      "{} blocks of {} threads ({} warps) fit on one {} SM: {} of {} warp slots, occupancy {}. "
      "Blocks per SM by limit: warps {}, registers {}, shared memory {}, blocks {}. Limited by {}.",
      o.blocks_per_sm, in.block_threads, o.warps_per_block, g.name, o.warps_per_sm, o.max_warps_per_sm,
      pct(o.occupancy), lim_text(o.limit_warps), lim_text(o.limit_registers), lim_text(o.limit_shared),
      lim_text(o.limit_blocks), limiter_name(o.limiter));

  if (in.block_threads % g.warp_size)
    o.advice.push_back(fmt::format(
        "{} threads is not a multiple of 32: the last warp of each block has {} idle lanes; round the block "
        "to {} threads",
        in.block_threads, g.warp_size - in.block_threads % g.warp_size, o.warps_per_block * g.warp_size));
  if (o.warps_per_sm >= o.max_warps_per_sm) return o;

  const int next = o.blocks_per_sm + 1;
  for (OccupancyLimiter l : o.limiters) {
    switch (l) {
      case OccupancyLimiter::Registers: {
        // The largest register count that fits one more block (ptxas allocates
        // per warp in units of 256 registers, i.e. 8 per thread).
        OccupancyInput t = in;
        for (int regs = in.regs_per_thread - 1; regs >= 1; --regs) {
          t.regs_per_thread = regs;
          int b = occupancy_blocks_per_sm(g, t);
          if (b > o.blocks_per_sm) {
            o.advice.push_back(fmt::format(
                "use at most {} registers per thread (now {}) to fit {} blocks per SM ({} occupancy): "
                "__launch_bounds__({}, {}) or -maxrregcount={}",
                regs, in.regs_per_thread, b, pct(double(b * o.warps_per_block) / o.max_warps_per_sm),
                in.block_threads, b, regs));
            break;
          }
        }
        break;
      }
      case OccupancyLimiter::SharedMemory: {
        // Shared memory per SM divided among `next` blocks, each paying the
        // reserved 1 KB and rounding to the allocation granularity.
        int per_block = g.shared_per_sm / next;
        per_block -= per_block % g.shared_alloc_granularity;
        int usable = per_block - g.reserved_shared_per_block;
        if (usable > 0) {
          OccupancyInput t = in;
          t.dynamic_shared_bytes = std::max(0, usable - in.static_shared_bytes);
          int b = occupancy_blocks_per_sm(g, t);
          if (b > o.blocks_per_sm && usable >= in.static_shared_bytes)
            o.advice.push_back(fmt::format(
                "use at most {} bytes of shared memory per block (now {}) to fit {} blocks per SM ({} "
                "occupancy): smaller tiles, or fewer pipeline stages",
                usable, total_shared, b, pct(double(std::min(b, o.limit_warps) * o.warps_per_block) / o.max_warps_per_sm)));
        }
        break;
      }
      case OccupancyLimiter::Warps: {
        // A block size closest to the current one that wastes fewer warp slots.
        int best = 0;
        double best_occ = o.occupancy;
        for (int bt = g.warp_size; bt <= g.max_threads_per_block; bt += g.warp_size) {
          OccupancyInput t = in;
          t.block_threads = bt;
          int b = occupancy_blocks_per_sm(g, t);
          double occ = double(b * warps_of(bt, g.warp_size)) / o.max_warps_per_sm;
          if (occ > best_occ + 1e-9 ||
              (best && std::abs(occ - best_occ) < 1e-9 && std::abs(bt - in.block_threads) < std::abs(best - in.block_threads))) {
            best = bt, best_occ = occ;
          }
        }
        o.advice.push_back(fmt::format(
            "blocks of {} warps leave {} of {} warp slots empty ({} blocks x {} warps)", o.warps_per_block,
            o.max_warps_per_sm - o.warps_per_sm, o.max_warps_per_sm, o.blocks_per_sm, o.warps_per_block));
        if (best)
          o.advice.push_back(fmt::format("a block of {} threads would reach {} occupancy", best, pct(best_occ)));
        break;
      }
      case OccupancyLimiter::Blocks: {
        int need_warps = (o.max_warps_per_sm + g.max_blocks_per_sm - 1) / g.max_blocks_per_sm;
        o.advice.push_back(fmt::format(
            "blocks of {} threads are too small: an SM holds at most {} blocks, so only {} of {} warp slots "
            "fill; use at least {} threads per block",
            in.block_threads, g.max_blocks_per_sm, o.warps_per_sm, o.max_warps_per_sm, need_warps * g.warp_size));
        break;
      }
    }
  }
  return o;
}

OccupancyCurves occupancy_curves(const GpuModel& g, const OccupancyInput& in) {
  OccupancyCurves c;
  c.current_block = in.block_threads;
  c.current_regs = in.regs_per_thread;
  c.current_shared = in.static_shared_bytes + in.dynamic_shared_bytes;
  auto point = [&](int x, const OccupancyInput& t) {
    OccupancyPoint p;
    p.x = x;
    p.blocks_per_sm = occupancy_blocks_per_sm(g, t);
    p.warps_per_sm = p.blocks_per_sm * warps_of(t.block_threads, g.warp_size);
    p.occupancy = double(p.warps_per_sm) / g.max_warps_per_sm;
    return p;
  };
  for (int bt = g.warp_size; bt <= g.max_threads_per_block; bt += g.warp_size) {
    OccupancyInput t = in;
    t.block_threads = bt;
    c.vs_block_size.push_back(point(bt, t));
  }
  for (int regs = 1; regs <= g.max_regs_per_thread; ++regs) {
    OccupancyInput t = in;
    t.regs_per_thread = regs;
    c.vs_registers.push_back(point(regs, t));
  }
  for (int s = 0; s <= g.shared_per_block_optin; s += 512) {
    OccupancyInput t = in;
    t.static_shared_bytes = std::min(in.static_shared_bytes, s);
    t.dynamic_shared_bytes = s - t.static_shared_bytes;
    c.vs_shared_memory.push_back(point(s, t));
  }
  return c;
}

}  // namespace lab::sim
