// lab/sim/warp.h: the state of one warp and of one block (CTA) while it runs.
//
// Registers are laid out slot-major, `regs[slot * 32 + lane]`, so one warp
// instruction reads and writes 32 contiguous 64-bit values per operand and
// the per-lane loops stay tight. A warp's SIMT state is its current path
// (pc, active mask, reconvergence pc) plus a stack of suspended paths; see
// exec.cpp for how divergent branches push and reconvergence pops.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "lab/sim/launch.h"

namespace lab::sim {

constexpr uint32_t kWarpSize = 32;
constexpr uint32_t kNoPc = 0xffffffffu;  // "no reconvergence point" (the outermost path)
constexpr uint32_t kMaxBarriers = 16;    // bar.sync 0..15 (PTX ISA 9.7.13.4)

// A suspended SIMT path: lanes `mask` resume at `pc` and reconverge at `rpc`.
struct SimtEntry {
  uint32_t pc = 0;
  uint32_t mask = 0;
  uint32_t rpc = kNoPc;
};

enum class WarpStatus : uint8_t {
  Ready,      // can issue
  AtBarrier,  // parked in bar.sync / barrier.sync until the barrier completes
  AtMbarrier, // parked in mbarrier.try_wait until the awaited phase completes (exec_mbarrier.cpp)
  AtWarpgroup, // parked in wgmma.wait_group until its warpgroup's other warps issued the awaited wgmmas (exec_wgmma.cpp)
  Yielded,    // mbarrier.test_wait said "not yet": ready again after the other warps had a turn
  PathSwitched, // a handler parked the current path (exec_warp.cpp): run_warp picks the next one
  Polling,    // read the same value from memory it polls as last time: waits for another block (cooperative launches)
  Done,       // every lane exited
  Faulted,    // a fault stopped the block
};

// A cp.async in flight (exec_memory.cpp): the source was read at issue, the
// shared destination is written when its group is waited on (or the thread
// exits), as the PTX ISA lets it land any time before the wait.
struct AsyncCopy {
  uint32_t pc = 0;         // the cp.async
  uint32_t mask = 0;       // lanes whose copy has not completed
  uint32_t bytes = 0;      // per lane: 4, 8 or 16
  uint32_t group = 0;      // the warp's commit count at issue: the group it joins
  uint64_t dst[32];        // shared offsets
  uint8_t data[32][16];
};

struct WarpState {
  uint32_t index = 0;        // warp index within the block (%warpid in the model)
  uint32_t pc = 0;
  uint32_t mask = 0;         // active lanes of the current path
  uint32_t rpc = kNoPc;      // where the current path reconverges
  uint32_t live = 0;         // lanes that have not exited
  uint32_t exists = 0;       // lanes that are threads of the block (last warp may be partial)
  WarpStatus status = WarpStatus::Ready;
  std::vector<SimtEntry> stack;  // suspended paths, innermost last
  uint64_t* regs = nullptr;  // num_slots * 32 values
  uint64_t steps = 0;        // warp instructions issued: %clock, hang budget
  uint32_t global_requests = 0;  // global memory requests issued (KernelMetrics::global_requests_by_warp)
  uint32_t carry = 0;        // CC.CF per lane for add.cc/addc chains (PTX ISA 9.7.2)
  // Independent thread scheduling (sm_70+; exec.cpp, exec_warp.cpp): lanes
  // that reached a block-wide barrier while others of their warp still run
  // elsewhere wait here, off the SIMT stack, until the rest arrive or exit.
  uint32_t parked = 0;
  uint32_t parked_pc = 0;
  uint32_t spin = 0;         // backward branches of a diverged path since it last reconverged
  uint32_t poll_pc = kNoPc;  // the last poll (PreparedInstr::poll) and a hash of what its lanes read
  uint64_t poll_hash = 0;
  std::vector<AsyncCopy> async;  // cp.async copies in flight, oldest first
  uint32_t async_groups = 0;     // cp.async.commit_group count (per warp: lanes commit together in practice)
  // Barrier bookkeeping while AtBarrier.
  uint8_t barrier_id = 0;
  uint32_t barrier_arrived = 0;  // lanes that arrived (the active mask at bar, or at mbarrier.try_wait)
  uint32_t mbar_pc = 0;          // the mbarrier.try_wait an AtMbarrier warp waits in
  // wgmma groups: commit_group count, and while AtWarpgroup how many groups
  // every warp of the warpgroup must have committed (exec_wgmma.cpp).
  uint32_t wgmma_commits = 0;
  uint32_t wgmma_need = 0;
  // bar.red: destination slot and which reduction, written on release.
  uint32_t red_dst = ptx::kNoReg;
  uint8_t red_kind = 0;          // 0 none, 1 popc, 2 and, 3 or
  uint32_t red_pred_mask = 0;    // lanes whose predicate was true
};

// Per-barrier accumulation while warps wait (named barriers 0..15).
struct BarrierState {
  uint32_t expected = 0;     // thread count from the `b` operand, 0 = all live threads
  uint32_t arrived = 0;      // threads arrived so far
  uint32_t red_popc = 0;     // bar.red accumulators
  bool red_and = true, red_or = false;
};

struct BlockState {
  Dim3 ctaid;
  uint32_t linear = 0;       // linear block index in the grid
  uint32_t l2_claims = 0;    // lines it brought into the L2 model or took over (L2Model::Requester)
  uint32_t sm = 0;           // modelled SM
  uint32_t num_threads = 0;
  uint32_t num_warps = 0;
  std::vector<uint64_t> regs;      // num_warps * num_slots * 32
  std::vector<uint8_t> shared;     // static + dynamic shared memory
  uint32_t shared_bytes = 0;       // the usable size (bounds checks use this)
  std::vector<uint8_t> local;      // num_threads * local_bytes
  uint32_t local_bytes = 0;        // frame per thread
  std::vector<WarpState> warps;
  std::array<BarrierState, kMaxBarriers> barriers{};
  // Per mbarrier (shared offset), for the cycle model's trace: the number
  // of its first phase since mbarrier.init, and the phases completed since
  // (exec_mbarrier.cpp numbers phases per object from the block's start).
  struct MbarPhases {
    uint32_t first = 0, completed = 0;
  };
  std::unordered_map<uint32_t, MbarPhases> mbar_phases;
  bool faulted = false;
};

}  // namespace lab::sim
