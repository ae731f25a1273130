// lab/lesson/criteria.h: efficiency criteria evaluated on simulator metrics.
//
// The numbers come from the per-instruction counters of lab::sim::launch
// (Nsight Compute definitions: a request is one warp-level memory
// instruction, sectors are distinct 32-byte sectors it touches, shared-memory
// conflicts are wavefronts beyond the ideal). Counters are folded by source
// line so that a failure can point at the line the student wrote.
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

// Counters of one source line (all its instructions).
struct LineCounters {
  uint64_t global_load_requests = 0, global_load_sectors = 0;
  uint64_t global_store_requests = 0, global_store_sectors = 0;
  uint64_t shared_load_requests = 0, shared_store_requests = 0;
  uint64_t shared_wavefronts = 0, shared_ideal_wavefronts = 0;
};

// Whole-kernel figures the criteria read.
struct KernelFigures {
  std::map<std::pair<std::string, uint32_t>, LineCounters> lines;  // (file, line) -> counters
  LineCounters total;
  uint64_t warp_insts = 0, active_lanes = 0;
  uint64_t fma_warp_insts = 0;     // fp fma/mad, warp level
  uint64_t mma_warp_insts = 0;     // wmma.mma / mma.sync
  uint64_t dram_bytes = 0;
  double occupancy = -1;           // theoretical; -1 when unknown
  double predicted_seconds = -1;   // from the timing model; -1 when unknown
};

KernelFigures fold_metrics(const ptx::Module& module, const ptx::Kernel& kernel,
                           const sim::KernelMetrics& metrics);

// Evaluates one criterion. `sizes` evaluates size-expression limits;
// `baseline` holds the baseline kernel's figures for ratio criteria (or null);
// `source_lines` is the student's file, for quoting the offending line.
CriterionResult evaluate_criterion(const Criterion& c, const KernelFigures& f, const SizeVars& sizes,
                                   const KernelFigures* baseline, const std::vector<std::string>& source_lines);

}  // namespace lab::lesson
