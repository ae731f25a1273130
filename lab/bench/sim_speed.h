// lab/bench/sim_speed.h: `gpulab bench sim`: how fast the simulator itself
// runs, per kernel family (coalesced, uncoalesced, shared-heavy,
// register-tiled, tensor): thread-instructions per CPU second on one worker
// (wall time beside it; a loaded machine inflates wall time, not CPU time),
// the speed-up of two workers over one, the cycle model's own rate, and the
// end-to-end time of a 512^3 tiled GEMM (compile, parse, simulate, check).
// Event recording and timing are off for the family rows: the interpreter
// alone.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/sim/device.h"

namespace lab::bench {

struct SimSpeedOptions {
  int speed_size = 512;      // GEMM M = N = K for the family rows
  uint64_t vector_elements = uint64_t(1) << 22;  // the vector add's n
  unsigned workers = 2;      // the speed-up column: this many workers against one
  std::vector<std::string> only;  // family rows for these kernels only (empty: all)
  int end_to_end_size = 512; // problem for the end-to-end time (all worker threads)
  unsigned threads = 0;      // workers for the end-to-end run; 0 = all
  const sim::GpuModel* gpu = &sim::default_gpu();
  std::function<void(const std::string&)> progress;
};

// One kernel, timing off: the better (less CPU) of two 1-worker runs and the
// better (less wall) of two `workers` runs.
struct SimSpeedRow {
  std::string family;   // coalesced | uncoalesced | shared-heavy | register-tiled | tensor
  std::string kernel;   // the GEMM version's name, or "vector_add"
  std::string problem;  // "256^3", "4,194,304 elements"
  double thread_insts = 0;
  double cpu_seconds = 0;   // 1 worker: the worker's CPU time
  double wall_seconds = 0;  // 1 worker: the launch's wall time
  double thread_insts_per_cpu_s = 0;
  unsigned workers = 0;
  double workers_wall_seconds = 0;
  double speedup = 0;       // wall 1 worker / wall `workers` workers
  bool correct = false;
};

struct SimSpeed {
  std::vector<SimSpeedRow> rows;
  int end_to_end_size = 0;
  unsigned end_to_end_threads = 0;
  double end_to_end_seconds = 0;       // compile + parse + simulate + check
  std::string cycle_kernel;
  int cycle_size = 0;
  // The cycle model's own speed: the 1-worker tiled GEMM timed with every
  // block simulated cycle by cycle (TimingMode::Full), model time only.
  double cycle_warp_insts = 0;         // warp instructions the cycle model issued
  double cycle_seconds = 0;            // its wall time (excluding the interpreter)
  double cycle_warp_insts_per_s = 0;
  double cycle_cpu_seconds = 0;        // CPU time of the model's thread
  double cycle_warp_insts_per_cpu_s = 0;
  double timing_off_cpu_seconds = 0;   // the same launch with timing off: interpreter CPU time
  double timing_full_cpu_seconds = 0;  // with every block timed: interpreter + model CPU time
  bool correct = false;                // every run matched its float64 reference
};

SimSpeed measure_sim_speed(const SimSpeedOptions& options);
std::string format_sim_speed(const SimSpeed& s);
nlohmann::json sim_speed_json(const SimSpeed& s);

}  // namespace lab::bench
