// lab/sim/check.h: hook points for the kernel checks (`SimOptions::check`).
//
// The interpreter handles the always-on faults itself (out-of-bounds outside
// the arena / shared window / local frame, misaligned, barrier deadlock,
// hang). Finer checks (accesses into a buffer's guard gap, races on shared
// and global memory, uninitialised reads, divergent barriers, invalid warp
// masks) live behind this interface: one BlockChecker per block, created
// only when checks are on, so a plain run pays one null-pointer test per hook.
//
// The interpreter calls the hooks at these points:
//   on_block_start   once, before the first instruction of the block
//   on_access        every memory instruction, after address generation and
//                    before any lane touches memory; lanes cleared in the
//                    returned mask are skipped (a vetoed lane's load leaves
//                    its destination unchanged)
//   on_barrier       a warp arrives at bar.sync / barrier.sync / bar.red
//   on_warp_sync     shfl/vote/match/redux.sync/bar.warp.sync with a member mask
//   on_mbarrier_wait a warp's mbarrier.test_wait/try_wait found its phase complete
//   on_mbarrier_arrive a warp arrived on an mbarrier (or its bulk copy completed bytes on one)
//   on_barrier_complete a bar.sync / barrier.sync / bar.red completed and released its waiters
//   on_fence         membar / fence (__threadfence*)
//   on_block_end     after the last warp exited (or the block faulted)
// Findings are reported through CheckContext::report, which deduplicates by
// kind + source line and attaches file/line, block and thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "lab/ptx/module.h"
#include "lab/sim/launch.h"

namespace lab::sim {

struct BlockState;

struct MemoryAccess {
  ptx::Space space = ptx::Space::Global;  // resolved space (generic already split per lane)
  uint32_t pc = 0;
  uint32_t warp = 0;              // warp index in the block
  uint32_t mask = 0;              // lanes performing the access
  const uint64_t* lane_addr = nullptr;  // [32]: global address, or offset in the shared window / local frame
  uint32_t bytes = 0;             // bytes per lane (vector width included)
  bool is_write = false;
  bool is_atomic = false;
  // A cp.async's shared destination at issue: the bytes are written later,
  // when the copy completes (a second on_access, is_async false, at the
  // wait). Reading them in between reads a copy still in flight.
  bool is_async = false;
  // Memory-order semantics (ptx::kFlagStrong...): strong (atomics, .volatile,
  // .relaxed, .acquire, .release) and whether it acquires or releases.
  bool is_strong = false;
  bool is_acquire = false;
  bool is_release = false;
  // [32]: the values scalar stores write (checks: lanes storing different
  // values to one address); nullptr for loads, atomics and vector stores.
  const uint64_t* lane_value = nullptr;
};

struct CheckContext {
  const ptx::Module* module = nullptr;
  const ptx::Kernel* kernel = nullptr;
  const GlobalMemory* memory = nullptr;
  BlockState* block = nullptr;
  uint64_t launch_id = 0;         // unique per launch: blocks of one launch share launch-wide shadows
  bool cooperative = false;       // LaunchConfig::cooperative: blocks ordered by grid.sync()
  // report(kind, message, pc, warp, lane): one finding at an instruction.
  std::function<void(const char*, std::string, uint32_t, uint32_t, uint32_t)> report;
};

class BlockChecker {
 public:
  virtual ~BlockChecker() = default;
  virtual void on_block_start() {}
  // Returns the lanes of `a.mask` allowed to proceed.
  virtual uint32_t on_access(const MemoryAccess& a) { return a.mask; }
  // `arrived`: lanes arriving; `live`: lanes of the warp that have not exited.
  virtual void on_barrier(uint32_t pc, uint32_t warp, uint32_t barrier_id, uint32_t arrived, uint32_t live) {}
  // `member_mask`: the instruction's membermask; `active`: lanes executing it.
  virtual void on_warp_sync(uint32_t pc, uint32_t warp, uint32_t member_mask, uint32_t active) {}
  virtual void on_mbarrier_wait(uint32_t pc, uint32_t warp) {}
  virtual void on_mbarrier_arrive(uint32_t pc, uint32_t warp) {}
  virtual void on_barrier_complete(uint32_t barrier_id) {}
  virtual void on_fence(uint32_t pc, uint32_t warp) {}
  virtual void on_block_end() {}
};

// Creates the checker for one block. The default (check.cpp) does no extra
// checking; the sanitizer replaces it.
std::unique_ptr<BlockChecker> make_block_checker(const CheckContext& ctx);

}  // namespace lab::sim
