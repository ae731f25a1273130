// lab/bench/gemm_bench.h: `gpulab bench gemm`: every CPU and GPU version of
// C = alpha*A*B + beta*C on one problem, each checked against the float64
// reference before and after timing, then timed (CPU: measured here; GPU:
// measured on a real GPU, or predicted by the machine model from the
// simulator's counted work) and compared with its reference (OpenBLAS,
// cuBLAS SGEMM, cuBLAS GemmEx fp16).
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/sim/device.h"

namespace lab::bench {

// The reference rows `--backend cuda` adds (cuBLAS), selectable with --only.
inline constexpr const char* kCublasSgemmRow = "cublas_sgemm";
inline constexpr const char* kCublasGemmExRow = "cublas_gemmex_fp16";

struct BenchOptions {
  int m = 256, n = 256, k = 256;
  std::string backend = "auto";  // sim | cuda | auto
  const sim::GpuModel* gpu = &sim::default_gpu();  // model for simulator predictions (resolved by the caller)
  unsigned threads = 0;          // CPU threads for cpu_04 and OpenBLAS; 0 = all hardware threads
  bool cpu_rows = true, gpu_rows = true;
  std::vector<std::string> only;  // version names to run (empty: all)
  // Simulator rows: "full" runs every block (checked), "sample" runs only the
  // blocks the cycle model times (a prediction, not checked), "auto" samples
  // above 1024^3.
  std::string sim_run = "auto";
  // Cycle model for simulator rows: "sampled" (a slice of SMs and waves,
  // scaled; the default) or "full" (every block timed cycle by cycle: slow,
  // the reference the sample is compared with).
  std::string timing = "sampled";
  // Progress lines for long runs (the CLI prints them on stderr).
  std::function<void(const std::string&)> progress;
};

// A request that cannot be served (e.g. --backend cuda with no GPU): exit 2.
struct BenchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct BenchRow {
  std::string name;
  std::string device;     // "cpu" | "gpu"
  std::string backend;    // "cpu" | "sim" | "cuda"
  std::string precision;  // "fp32" | "fp16"
  std::optional<double> ms;      // median time; none when no prediction exists
  std::optional<double> gflops;
  std::optional<double> pct_of_reference;  // of the same-device, same-precision reference row
  bool measured = false;  // true: timed on this hardware; false: predicted
  std::optional<bool> correct;  // none: not run (simulator lacks an instruction)
  double max_rel_error = 0;
  bool reference = false;  // OpenBLAS / cuBLAS rows
  std::string note;        // why a figure is missing, device name, ...
  // Simulator rows of a version with a published measurement at this GPU
  // model and size (gemm.toml [version.published]): that figure and what it is.
  std::optional<double> published_gflops;
  std::string published_source;
  // Simulator rows: the cycle model's figures (0 / empty elsewhere).
  double cycles = 0;          // predicted kernel cycles
  std::string timing_note;    // what was timed (sampled or every block)
  double sim_seconds = 0;     // wall time of the whole simulated launch
  double model_seconds = 0;   // of which the cycle model itself
  double interpreter_seconds = 0;  // running the timed blocks (own thread, beside the model)
  double model_cpu_seconds = 0;    // CPU time of the cycle model's thread
  uint64_t warp_insts_timed = 0;   // warp instructions the cycle model issued
};

struct BenchReport {
  int m = 0, n = 0, k = 0;
  std::string gpu_backend;  // "sim", "cuda", or "none" (--backend cpu: the CPU rows only)
  std::string gpu_label;    // "H100 (simulated)" or the real device name
  std::string backend_note; // what `auto` chose and why
  unsigned cpu_threads = 0;
  std::vector<BenchRow> rows;
};

BenchReport run_gemm_bench(const BenchOptions& options);
std::string format_gemm_table(const BenchReport& report);
// {"m","n","k","results":[{"name","device","backend","precision","ms","gflops",
//   "measured","correct","max_rel_error","reference"; simulator rows also
//   "cycles","timing_note","sim_seconds","model_seconds","interpreter_seconds","model_cpu_seconds",
//   "warp_insts_timed"}]}
nlohmann::json gemm_report_json(const BenchReport& report);

}  // namespace lab::bench
