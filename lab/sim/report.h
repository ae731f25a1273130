// lab/sim/report.h: issue 3's machine-model report for one launch: memory
// metrics (Nsight Compute's definitions), occupancy, schedule, the predicted
// time, and per-source-line metrics from the .loc table.
//
// The C++ struct is what self-checks read (e.g. `line(14)->sectors_per_request`);
// to_metrics_json / to_predicted_json / to_lines_json are what `gpulab sim
// --json` adds, and text() is the report a student reads.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/compile/nvrtc.h"
#include "lab/ptx/module.h"
#include "lab/sim/compiled.h"
#include "lab/sim/cycle/result.h"
#include "lab/sim/device.h"
#include "lab/sim/launch.h"
#include "lab/sim/line_fold.h"
#include "lab/sim/occupancy.h"
#include "lab/sim/schedule.h"
#include "lab/sim/timing.h"

namespace lab::sim {

// How memory requests are classified and folded per line: line_fold.h (the
// report, the lessons' criteria and the views all read that one fold).

struct LineMetrics {
  std::string file;  // the .cu file (Module::files), "" if unknown
  uint32_t line = 0;
  uint64_t warp_insts = 0, thread_insts = 0, active_lanes = 0;
  uint64_t global_requests = 0, global_sectors = 0;   // global + local, loads and stores
  uint64_t shared_requests = 0, shared_wavefronts = 0, shared_ideal_wavefronts = 0;
  uint64_t divergent_branches = 0;
  uint64_t dram_bytes = 0;
  double flops = 0;
  // Cycle model (sampled blocks): issues and warp-cycles waiting per state
  // at this line's instructions (Nsight's source-level stall sampling).
  uint64_t issued = 0;
  std::array<uint64_t, cycle::kStallCount> stall{};
  double sectors_per_request() const { return global_requests ? double(global_sectors) / global_requests : 0; }
  uint64_t bank_conflicts() const { return sim::bank_conflicts(shared_wavefronts, shared_ideal_wavefronts); }
  double warp_efficiency() const { return warp_insts ? double(active_lanes) / (32.0 * warp_insts) : 0; }
  std::vector<std::string> hints;  // "32 sectors per request: stride-N access, not coalesced"
};

struct KernelReport {
  std::string kernel;
  const GpuModel* gpu = nullptr;
  LaunchConfig config;
  // Memory metrics (Nsight definitions; generic accesses counted where they went).
  MemoryCounts global_load, global_store, global_atomic, local_load, local_store, shared_load, shared_store;
  MemoryCounts shared_atomic;  // also inside shared_load (a read-modify-write); apart for the atomic counts
  uint64_t warp_insts = 0, thread_insts = 0;
  double warp_execution_efficiency = 0;  // active lanes / (32 x warp instructions)
  uint64_t dram_read_bytes = 0, dram_write_bytes = 0;
  double flops = 0;
  // Resources and occupancy.
  int registers_per_thread = 0;
  int shared_bytes_per_block = 0;  // static + dynamic
  bool resources_from_ptxas = false;
  Occupancy occupancy;
  Schedule schedule;
  Prediction predicted;  // time_s from the cycle model; c_* terms are the analytic bounds
  std::shared_ptr<const cycle::CycleResult> cycle;  // null when timing was off
  std::vector<LineMetrics> lines;  // hottest first (by warp instructions)
  std::vector<std::string> hints;  // kernel-level

  const LineMetrics* line(uint32_t source_line) const;
  nlohmann::json to_metrics_json() const;    // the issue-3 keys for `metrics`
  nlohmann::json to_predicted_json() const;  // `predicted`
  nlohmann::json to_lines_json() const;      // `lines`
  std::string text(size_t max_lines = 10) const;
};

// `usage` is ptxas's report for this kernel (lab::compile::resource_usage for
// gpu.sm_arch); pass nullptr when it is unavailable and the report falls
// back to the PTX's declared shared memory and 32 registers, saying so.
// Throws OccupancyError when the launch cannot fit on the GPU model.
KernelReport build_report(const ptx::Module& module, const ptx::Kernel& kernel, const LaunchConfig& config,
                          const KernelMetrics& metrics, const GpuModel& gpu,
                          const compile::ResourceUsage* usage);

// The run path's report: the kernel, GPU model and ptxas resources the
// compiled value carries (compiled.h).
KernelReport build_report(const CompiledKernel& kernel, const LaunchConfig& config, const KernelMetrics& metrics);

}  // namespace lab::sim
