// lab/sim/metrics.h: what a launch returns besides memory contents: the
// errors it found and its counters per PTX instruction. Views, reports and
// lesson criteria read these (and events.h); none of them needs launch.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lab/sim/memory_cost.h"

namespace lab::sim {

namespace cycle { struct CycleResult; }  // lab/sim/cycle/result.h

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

// ---- errors ------------------------------------------------------------------
// A fault or a kernel-check finding. `kind` uses the names the CLI contract
// fixes: out-of-bounds, misaligned, race, barrier-divergence,
// uninitialized-read, invalid-mask, hang, unsupported, fault.
struct KernelError {
  std::string kind;
  std::string message;
  std::string file;          // the .cu file from .loc, "" if unknown
  uint32_t line = 0;         // source line, 0 if unknown
  uint32_t ptx_line = 0;
  Dim3 block, thread;        // first offender
  uint64_t count = 1;        // occurrences folded into this entry (dedup by kind+line)
  // The first few offenders (up to kMaxOffenders, block/thread above first),
  // so a report names more than one thread.
  struct Offender { Dim3 block, thread; };
  static constexpr size_t kMaxOffenders = 4;
  std::vector<Offender> offenders;
};

// ---- metrics -----------------------------------------------------------------
// Counted per instruction index (pc); everything else derives from these.
// Definitions follow Nsight Compute: a request is one warp-level memory
// instruction; sectors are distinct 32-byte sectors a request touches;
// shared cost is wavefronts, ideal wavefronts is what the access would cost
// with no bank conflicts.
struct PcCounters {
  uint64_t warp_insts = 0;       // warp-level instructions executed (guard false counts too: inst_executed)
  uint64_t thread_insts = 0;     // active, guard-true lanes (thread_inst_executed_true)
  uint64_t active_lanes = 0;     // lanes active at issue, regardless of guard (for warp execution efficiency)
  uint64_t requests = 0;         // memory instructions with >= 1 lane participating
  uint64_t sectors = 0;          // global/local: distinct 32-byte sectors
  uint64_t wavefronts = 0;       // shared: wavefronts
  uint64_t ideal_wavefronts = 0; // shared: wavefronts with no bank conflicts
  uint64_t bytes = 0;            // bytes requested by lanes (useful bytes)
  uint64_t divergent = 0;        // branches that split the warp
  uint64_t dram_read_bytes = 0;  // from the L2 model (global loads)
  uint64_t dram_write_bytes = 0;
  // atom/red: per request, the most lanes updating one address, summed. Those
  // updates are applied one at a time (at the L2 for global memory, in the
  // shared-memory banks for shared), so this, not the request count, is what
  // a contended atomic costs.
  uint64_t atomic_serial = 0;
  void add(const PcCounters& o);
  uint64_t bank_conflicts() const { return sim::bank_conflicts(wavefronts, ideal_wavefronts); }
};

struct KernelMetrics {
  std::vector<PcCounters> per_pc;     // indexed like Kernel::code
  uint64_t blocks = 0, warps = 0, threads = 0;
  uint64_t barriers = 0;              // bar.sync executions (warp level)
  // Warp instructions each warp of the grid issued, indexed by block linear
  // index * warps per block + warp index: how the work is spread over the
  // launch (the lessons' self-checks reject "one warp does everything").
  std::vector<uint32_t> warp_insts_by_warp;
  // Global memory requests (loads, stores, atomics) of each warp, indexed
  // alike: a warp that spins while another does the loads issues as many
  // instructions, not as many requests.
  std::vector<uint32_t> global_requests_by_warp;
  double sim_seconds = 0;             // wall time of the simulation itself
  // CPU time of the worker threads while they ran blocks outside the cycle
  // model (the interpreter's own cost, summed over workers): `gpulab bench
  // sim` divides by it, so a loaded machine does not understate the rate.
  double sim_cpu_seconds = 0;
  // The cycle model's timing of this launch (SimOptions::timing); null when off.
  std::shared_ptr<const cycle::CycleResult> cycle;
  uint64_t total_warp_insts() const;
  uint64_t total_thread_insts() const;
};

// A span of global memory a launch touched (SimOptions::record_global_ranges):
// [lo, hi), the union of its warps' accesses, reads and writes apart. Each
// warp instruction adds the span from its lowest to its highest lane address,
// so a strided access covers the gaps between its lanes too.
struct GlobalRange {
  uint64_t lo = 0, hi = 0;
  bool write = false;  // atomics count as writes (and as reads)
};
// Sorts and joins overlapping or touching spans of the same kind, in place.
void merge_global_ranges(std::vector<GlobalRange>& ranges);

struct LaunchResult {
  bool ok = true;                   // no errors
  bool cancelled = false;           // stopped through SimOptions::cancel / LaunchLimits::cancel (ok is false)
  std::vector<KernelError> errors;
  KernelMetrics metrics;
  // What the kernel's printf calls printed, thread by thread in warp order
  // (blocks in linear order, a warp's calls in issue order, lanes ascending).
  // Like CUDA's 1 MB printf FIFO, output past kPrintfLimitBytes is dropped
  // and printf_dropped says how many lines.
  static constexpr uint64_t kPrintfLimitBytes = 1 << 20;
  std::string printf_output;
  uint64_t printf_dropped = 0;
  std::vector<GlobalRange> global_ranges;  // SimOptions::record_global_ranges; merged
};

}  // namespace lab::sim
