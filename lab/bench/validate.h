// lab/bench/validate.h: `gpulab validate`: the simulator held against a real
// GPU. Every GEMM version runs in the simulator (modelling the GPU in
// question) and on the GPU, on the same inputs; results, Nsight Compute's
// counters and times are set side by side.
//
// The GPU side comes from one of:
//   live      the CUDA backend on this machine (and `ncu`, if on PATH, for counters)
//   recorded  a JSON file written earlier by `gpulab validate --record FILE`
//             on a machine with a GPU (so the comparison can be re-made anywhere)
//   none      simulator only: GPU columns say what is missing
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/sim/device.h"

namespace lab::bench {

// Nsight Compute metric names the comparison uses (Nsight Compute Kernel
// Profiling Guide, "Metrics Reference" / "Memory Tables").
struct NcuMetric {
  const char* key;   // the lab's name for it
  const char* ncu;   // Nsight Compute's metric
};
const std::vector<NcuMetric>& ncu_metrics();

// One kernel's figures on one side (simulated or real). Counters are keyed
// by NcuMetric::key; absent means not available on that side.
struct SideFigures {
  bool ran = false;
  std::optional<bool> correct;
  double max_rel_error = 0;
  std::optional<double> ms;                   // predicted (sim) or measured (GPU)
  nlohmann::json counters = nlohmann::json::object();
  std::string note;
};

struct ValidateRow {
  std::string name;
  SideFigures sim, gpu;
};

struct ValidateOptions {
  int size = 256;
  const sim::GpuModel* gpu = &sim::default_gpu();  // model the simulator uses (a live GPU overrides it)
  std::string gpu_backend = "auto";  // cuda | none | auto
  std::string against;               // recorded GPU results to compare with
  std::string record;                // write the GPU side here
  std::string self_exe;              // this gpulab, for ncu to run
  std::vector<std::string> only;
  unsigned threads = 0;
  std::function<void(const std::string&)> progress;
};

struct ValidateReport {
  int size = 0;
  std::string gpu_model;    // simulated model
  std::string gpu_source;   // "live: NVIDIA H100 80GB HBM3", "recorded: FILE (GPU, date)", "none"
  std::vector<ValidateRow> rows;
};

ValidateReport run_validate(const ValidateOptions& options);
std::string format_validate(const ValidateReport& report);
nlohmann::json validate_json(const ValidateReport& report);
// The recorded-file format: {"gpu","date","command","size","kernels":[{"name","correct",
// "max_rel_error","ms","counters":{...}}]}
nlohmann::json recorded_json(const ValidateReport& report, const std::string& command);

}  // namespace lab::bench
