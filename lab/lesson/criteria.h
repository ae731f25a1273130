// lab/lesson/criteria.h: efficiency criteria evaluated on simulator metrics.
//
// The numbers come from the per-instruction counters of lab::sim::launch
// (Nsight Compute definitions: a request is one warp-level memory
// instruction, sectors are distinct 32-byte sectors it touches, shared-memory
// conflicts are wavefronts beyond the ideal). Criteria judge each instruction
// on its own, or the kernel's totals against a size expression: an average
// over a source line, or per request, can be gamed (add cheap broadcast loads
// to a line, issue fewer lanes per request), a total cannot. Each instruction
// keeps its source line so that a failure points at the line the student wrote.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lab/lesson/check.h"
#include "lab/lesson/manifest.h"
#include "lab/ptx/module.h"
#include "lab/sim/launch.h"

namespace lab::lesson {

// Counters of one memory instruction (one PTX pc), classified as the machine
// model's report classifies it (sim::access_where / access_direction).
struct InstrCounters {
  std::string file;
  uint32_t line = 0;
  uint32_t pc = 0;
  bool global = false, local = false, shared = false;
  bool reads = false, writes = false;  // an atomic does both
  uint64_t requests = 0, sectors = 0, wavefronts = 0, ideal_wavefronts = 0;
  uint64_t bytes = 0;  // bytes the lanes asked for (metrics.h PcCounters::bytes)
  // The kernel parameter the address derives from (ptx/provenance.h): its
  // index, or -1 when the PTX does not say (a pointer loaded or chosen).
  int32_t param = -1;
};

// Whole-kernel figures the criteria read.
struct KernelFigures {
  std::vector<InstrCounters> mem;  // memory instructions that ran, in pc order
  uint64_t global_load_requests = 0, global_load_sectors = 0;    // atomics included (they read)
  uint64_t global_store_requests = 0, global_store_sectors = 0;  // atomics included (they write)
  uint64_t local_sectors = 0;                                    // spills and local arrays, loads and stores
  uint64_t shared_load_requests = 0, shared_store_requests = 0;
  uint64_t shared_wavefronts = 0, shared_ideal_wavefronts = 0;
  uint64_t warp_insts = 0, active_lanes = 0;
  uint64_t fma_warp_insts = 0;           // fp fma/mad, warp level
  uint64_t shuffle_warp_insts = 0;       // shfl.sync, warp level
  double tensor_macs = 0, other_macs = 0;  // multiply-adds (thread level): mma shapes; fp fma/mad/mul
  uint64_t dram_bytes = 0;               // L2 model
  std::vector<uint32_t> warp_insts_by_warp;  // sim::KernelMetrics::warp_insts_by_warp
  std::vector<uint32_t> global_requests_by_warp;  // sim::KernelMetrics::global_requests_by_warp
  double occupancy = -1;                 // theoretical; -1 when unknown
  double predicted_seconds = -1;         // from the timing model; -1 when unknown
  std::string predicted_unavailable;     // why not, when predicted_seconds < 0
  int registers = 0, shared_bytes = 0;   // per thread / per block, from the machine model
  uint64_t bank_conflicts() const {
    return shared_wavefronts > shared_ideal_wavefronts ? shared_wavefronts - shared_ideal_wavefronts : 0;
  }
};

// One kernel's figures at one size, with the kernel checks off and no
// correctness test: a ratio criterion's baseline, a lesson's before/after.
// `file` is relative to the lesson folder, or absolute.
// With opts.sample_only only `blocks_run` of `blocks_total` blocks ran and
// the counters cover those; the predicted time is the whole launch's.
struct MeasuredKernel {
  KernelFigures figures;
  uint64_t blocks_run = 0, blocks_total = 0;
  uint32_t block_threads = 0;
};
MeasuredKernel kernel_figures_at(const Lesson& lesson, const Exercise& ex, const std::string& file,
                                 const std::string& kernel, const Geometry& geo, const SizeVars& sizes,
                                 const CheckOptions& opts);

KernelFigures fold_metrics(const ptx::Module& module, const ptx::Kernel& kernel,
                           const sim::KernelMetrics& metrics);

// Evaluates one criterion. `sizes` evaluates size-expression limits;
// `baseline` holds the baseline kernel's figures for ratio criteria (or null);
// `source_lines` is the student's file, for quoting the offending line.
CriterionResult evaluate_criterion(const Criterion& c, const KernelFigures& f, const SizeVars& sizes,
                                   const KernelFigures* baseline, const std::vector<std::string>& source_lines);

}  // namespace lab::lesson
