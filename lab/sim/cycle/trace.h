// lab/sim/cycle/trace.h: the per-warp instruction stream the functional
// interpreter records for the blocks the cycle model times (issue 14).
//
// Compact on purpose: a traced block is kept only while it is resident in
// the cycle model. Per issued warp instruction 8 bytes (pc, guard-true lane
// mask); per memory request one TraceMem, whose 32-byte sectors are stored
// as arithmetic runs (a coalesced request is one run, a strided one too).
// The L2 outcome comes from the interpreter's L2Model (l2_model.h) as it
// counted the request, so the cycle model and the metrics agree on DRAM traffic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lab/ptx/module.h"  // ptx::Space: the one representation of a memory space

namespace lab::sim::cycle {

struct TraceInst {
  TraceInst() = default;
  TraceInst(uint32_t pc_, uint32_t mask_) : pc(pc_), mask(mask_) {}
  uint32_t pc : 26 = 0;
  uint32_t dead : 1 = 0;  // its result is overwritten unread: issues without operands or result (hoist.h)
  // Moved above an earlier iteration of an unrolled loop (hoist.h): its
  // destinations are registers of its own, as ptxas allocates them per
  // iteration, so it does not wait for the earlier iterations' writes of
  // the same PTX registers.
  uint32_t renamed : 1 = 0;
  // How the SASS has this instance (unroll.h sets them from decode.h's
  // static pass and from the loops ptxas unrolls, per iteration):
  uint32_t merge : 2 = 0;        // the first of a merged LDS: 1 LDS.64, 2 LDS.128, 3 a 4-byte LDS of two halves
  uint32_t merged_away : 1 = 0;  // merged into the load before it: no issue, no request
  uint32_t folded : 1 = 0;       // loop control an unrolled loop does not have: no issue, result at once
  uint32_t mask = 0;             // lanes that executed (active & guard)
};

struct SectorRun {
  uint64_t first = 0;  // sector index (byte address / 32)
  int64_t stride = 0;  // sectors between consecutive members
  uint32_t count = 0;
};

struct TraceMem {
  uint32_t inst = 0;        // index in WarpTrace::insts of the instruction that made the request
  uint32_t first_run = 0;   // index in WarpTrace::runs
  uint16_t runs = 0;
  uint16_t count = 0;       // sectors (global/local) or wavefronts (shared)
  uint16_t dram = 0;        // global: sectors the L2 model sent to DRAM; shared: wavefronts 8 bytes wide (wide8())
  uint16_t lines = 0;       // global/local: distinct 128-byte lines (L1 data-path cycles); shared: 16 bytes wide
  uint16_t serial = 0;      // global atom/red: the most lanes updating one address (metrics.h atomic_serial)
  ptx::Space space = ptx::Space::Global;  // Global, Local or Shared (resolved, as the interpreter served it)
  bool write = false;
  bool bypass_l1 = false;   // ld.global.cg: the L1 is not looked up (or filled)
  // A copy-engine request (TMA, cp.async.bulk.tensor): its global sectors
  // reach L2/DRAM without the L1, and `shared_bytes` land in shared memory.
  bool bulk = false;
  uint32_t shared_bytes = 0;
  // Shared loads: the wavefronts of the same lanes' access widened to 4, 8
  // or 16 bytes, the cost of the LDS ptxas merges it into (decode.h
  // `merge`). The global-only fields hold them: a shared request has no DRAM
  // sectors, lines or atomic updates.
  uint16_t wide4() const { return serial; }
  uint16_t wide8() const { return dram; }
  uint16_t wide16() const { return lines; }
};

// An mbarrier phase event of one warp instruction (exec_mbarrier.cpp): it
// contributes to the completion of phase `phase` of the mbarrier at shared
// offset `bar` (an arrive, an expect_tx, a bulk copy's complete_tx), or it
// is a wait that phase's completion let through. Phases are numbered per
// object from the block's start, so (bar, phase) names one phase. The cycle
// model completes a phase when its last contribution is done in its own
// time and only then lets the phase's waiters go on.
struct TraceSync {
  uint32_t inst = 0;  // index in WarpTrace::insts
  uint32_t bar = 0;
  uint32_t phase = 0;
  bool wait = false;
};

struct WarpTrace {
  std::vector<TraceInst> insts;
  std::vector<TraceMem> mems;
  std::vector<SectorRun> runs;
  std::vector<TraceSync> syncs;
  void clear() { insts.clear(); mems.clear(); runs.clear(); syncs.clear(); }
  void add_sync(uint32_t bar, uint32_t phase, bool wait) {
    const uint32_t inst = insts.empty() ? 0 : uint32_t(insts.size() - 1);
    for (const TraceSync& s : syncs)  // one event per instruction and phase
      if (s.inst == inst && s.bar == bar && s.phase == phase && s.wait == wait) return;
    syncs.push_back({inst, bar, phase, wait});
  }
  // One request. `sectors` sorted ascending and distinct (as count_request has them).
  void add_global(const uint64_t* sectors, uint32_t n, uint32_t dram, bool write, bool local);
  void add_shared(uint32_t wavefronts, bool write, uint16_t wide4, uint16_t wide8, uint16_t wide16);
  size_t bytes() const {
    return insts.size() * sizeof(TraceInst) + mems.size() * sizeof(TraceMem) + runs.size() * sizeof(SectorRun) +
           syncs.size() * sizeof(TraceSync);
  }
};

struct BlockTrace {
  uint64_t block = 0;             // linear block index
  std::vector<WarpTrace> warps;   // by warp index in the block
  bool faulted = false;           // the block stopped on a fault: its trace is partial
  size_t bytes() const {
    size_t b = 0;
    for (const auto& w : warps) b += w.bytes();
    return b;
  }
};

}  // namespace lab::sim::cycle
