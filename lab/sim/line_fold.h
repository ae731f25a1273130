// lab/sim/line_fold.h: the one per-source-line fold of a launch's per-pc
// counters, and the one classification of a memory instruction's requests.
// The report (report.h), the lessons' criteria and the views' heat maps all
// read it; it needs only metrics.h and the module, so a view can use it
// without the interpreter.
//
// Loads, stores and atomics are kept apart per space (global, local,
// shared), each with Nsight Compute's counts: requests (warp-level memory
// instructions), sectors (distinct 32-byte sectors, global/local) and
// wavefronts with their conflict-free ideal (shared).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lab/ptx/module.h"
#include "lab/sim/metrics.h"

namespace lab::sim {

enum class AccessDir { None, Load, Store, Atomic };
AccessDir access_direction(const ptx::Instr& in);
// The space a memory instruction's requests are counted in: Global, Local or
// Shared; Param and Const (the constant banks) are not L1TEX requests. A
// generic access goes where the interpreter's counts say it went (sectors:
// global; wavefronts only: shared).
ptx::Space access_space(const ptx::Instr& in, const PcCounters& c);

struct MemoryCounts {
  uint64_t requests = 0, sectors = 0, wavefronts = 0, ideal_wavefronts = 0, bytes = 0;
  uint64_t serial_updates = 0;  // atomics: same-address updates applied one at a time (PcCounters::atomic_serial)
  uint64_t bank_conflicts() const { return sim::bank_conflicts(wavefronts, ideal_wavefronts); }
  double sectors_per_request() const { return requests ? double(sectors) / double(requests) : 0; }
  double wavefronts_per_request() const { return requests ? double(wavefronts) / double(requests) : 0; }
  void add(const MemoryCounts& o);
};

// Requests by space and direction.
struct AccessCounts {
  MemoryCounts global_load, global_store, global_atomic;
  MemoryCounts local_load, local_store, local_atomic;
  MemoryCounts shared_load, shared_store, shared_atomic;
  // The slot for (space, dir); nullptr for spaces that are not requests.
  MemoryCounts* slot(ptx::Space space, AccessDir dir);
  void add(const AccessCounts& o);
};

// One source line: every instruction .loc ties to it.
struct LineCounts {
  std::string file;       // the .cu file (Module::files), "" if unknown
  uint32_t file_index = 0, line = 0;
  uint64_t warp_insts = 0, thread_insts = 0, active_lanes = 0;
  uint64_t divergent_branches = 0;
  uint64_t dram_read_bytes = 0, dram_write_bytes = 0;
  uint64_t fma_warp_insts = 0;  // floating-point fma/mad
  uint64_t mma_warp_insts = 0;  // wmma.mma / mma.sync
  double flops = 0;
  AccessCounts access;
  void add(const LineCounts& o);
};

struct LineFold {
  std::vector<LineCounts> lines;  // in (file, line) order; only lines that executed
  LineCounts total;               // the whole kernel
};

LineFold fold_lines(const ptx::Module& module, const ptx::Kernel& kernel, const KernelMetrics& metrics);

}  // namespace lab::sim
