// lab/bench/mechanisms.h: `gpulab bench mechanisms`, the cycle model's
// microbenchmarks (issue 24, item 3). One small kernel per mechanism the
// lessons teach (kernels/mechanisms/*.cu), swept over its parameter, each
// row's figure predicted by the model beside the published microbenchmark or
// datasheet figure it should reproduce, with the source named. Like
// Accel-Sim's ubench: the model's inputs are checked mechanism by mechanism,
// never tuned per kernel. Every figure here is a PREDICTION of the model.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/sim/device.h"

namespace lab::bench {

struct MechanismOptions {
  std::vector<const sim::GpuModel*> gpus;  // empty: every model with published figures
  std::vector<std::string> only;           // mechanism keys ("banks", "stride", ...); empty: all
  unsigned threads = 0;                    // interpreter workers; 0 = all
  // Run every sweep point on this machine's GPU (`--backend cuda`) instead of
  // the model: each row's figure is then MEASURED (CUDA events, median of the
  // repeats, less the launch floor: an empty one-thread launch timed the same
  // way), cycles are that time at the model's boost clock, and the counters
  // are left out (Nsight Compute reads those: `gpulab validate`).
  bool measure_on_gpu = false;
  std::function<void(const std::string&)> progress;
};

struct MechanismRow {
  std::string gpu;         // model name ("H100")
  std::string mechanism;   // key: banks stride chase dependent peak stream dram divergence hiding atomics
  std::string point;       // the sweep point, in words ("8-way", "stride 4", "L2")
  double x = 0;            // the sweep parameter as a number (ways, stride, warps, ...)
  double value = 0;        // the lab's figure, in `unit`
  std::string unit;        // "cycles/load", "GB/s", "TFLOP/s", ...
  // The rated ceiling this figure may never pass (datasheet peak), 0 = none.
  double rated = 0;
  // The published figure and where it comes from (empty source: none found).
  std::optional<double> published;
  std::string source;
  // What explains it: the counters of the run (per warp request where it applies).
  double cycles = 0;              // predicted kernel cycles
  double wavefronts_per_request = 0;
  double sectors_per_request = 0;
  std::string limiter;            // top stall reason, Nsight's name
  bool measured = false;          // true: value is measured on a GPU, not predicted
};

struct MechanismReport {
  std::vector<MechanismRow> rows;
  std::string device;        // measured rows: the GPU's name as the driver gives it
  double launch_floor_ms = 0;  // measured rows: the empty launch subtracted from each time
};

// Throws std::runtime_error (compile problems, an unknown key).
MechanismReport run_mechanisms(const MechanismOptions& options);
std::string format_mechanisms(const MechanismReport& report);   // one table per GPU model
std::string mechanisms_markdown(const MechanismReport& report); // for docs/fidelity.md
nlohmann::json mechanisms_json(const MechanismReport& report);
const std::vector<std::string>& mechanism_keys();

}  // namespace lab::bench
