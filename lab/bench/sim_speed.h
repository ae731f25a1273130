// lab/bench/sim_speed.h: `gpulab bench sim`: how fast the simulator itself
// runs, on the shared-memory tiled SGEMM (kernels/gemm/03_smem_tiled.cu) with
// event recording off: thread-instructions per second per worker thread, and
// the end-to-end time of a 512^3 run (compile, parse, simulate, check).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "lab/sim/device.h"

namespace lab::bench {

struct SimSpeedOptions {
  int speed_size = 256;      // problem for the per-core speed (1 worker thread)
  int end_to_end_size = 512; // problem for the end-to-end time (all worker threads)
  unsigned threads = 0;      // workers for the end-to-end run; 0 = all
  const sim::GpuModel* gpu = &sim::default_gpu();
  std::function<void(const std::string&)> progress;
};

struct SimSpeed {
  std::string kernel;
  int speed_size = 0;
  double speed_seconds = 0;            // simulation wall time, 1 worker
  double thread_insts = 0;             // thread instructions executed
  double thread_insts_per_s_per_core = 0;
  int end_to_end_size = 0;
  unsigned end_to_end_threads = 0;
  double end_to_end_seconds = 0;       // compile + parse + simulate + check
  bool correct = false;                // both runs matched the float64 reference
  // The cycle model's own speed: the same 1-worker problem timed with every
  // block simulated cycle by cycle (TimingMode::Full), model time only.
  double cycle_warp_insts = 0;         // warp instructions the cycle model issued
  double cycle_seconds = 0;            // its wall time (excluding the interpreter)
  double cycle_warp_insts_per_s = 0;
  double cycle_cpu_seconds = 0;        // CPU time of the model's thread (other jobs on the machine do not inflate it)
  double cycle_warp_insts_per_cpu_s = 0;
};

SimSpeed measure_sim_speed(const SimSpeedOptions& options);
std::string format_sim_speed(const SimSpeed& s);
nlohmann::json sim_speed_json(const SimSpeed& s);

}  // namespace lab::bench
