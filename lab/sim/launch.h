// lab/sim/launch.h: the simulator's public interface.
//
// The pieces live in their own headers (global_memory.h, metrics.h,
// events.h), included here so that launch.h alone still declares everything.
//
// A launch executes one kernel of a decoded ptx::Module over a grid, on the
// CPU, warp by warp, and returns what happened: errors (faults and kernel
// checks) and metrics (counted per PTX instruction, from which every report
// derives). Global memory is a GlobalMemory the caller fills and reads back.
#pragma once

#include <atomic>
#include <stdexcept>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lab/ptx/module.h"
#include "lab/sim/events.h"
#include "lab/sim/global_memory.h"
#include "lab/sim/metrics.h"

namespace lab::sim {

// A launch the GPU would refuse (limits.h says which limit and by how much).
struct LaunchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct GpuModel;  // device.h

// ---- options and launch --------------------------------------------------------
// Cycle-level timing (lab/sim/cycle, docs/timing-model.md). Sampled: every
// block runs in the interpreter, a sample of them is also timed cycle by
// cycle and scaled to the grid. Full: every block is timed. Off: no timing
// (the interpreter's own speed; no predicted time).
enum class TimingMode : uint8_t { Off, Sampled, Full };
// The warp instructions an automatic slice aims to time (a few seconds of
// interpreter plus cycle model on one core): `gpulab sim`'s and the lessons'.
constexpr double kDefaultTimedWarpInsts = 16e6;
struct TimingOptions {
  TimingMode mode = TimingMode::Sampled;
  bool sample_only = false;       // run only the timed blocks: outputs and metrics are then incomplete
  uint32_t slice_sms = 0;         // SMs of the sampled slice; 0 = chosen from a work budget (at most 8)
  // The automatic slice's work budget: about this many warp instructions
  // timed (0: kDefaultTimedWarpInsts), on at least `min_slice_sms` SMs.
  // A check's time-size run asks for less (lesson/check.cpp).
  double timed_warp_insts = 0;
  uint32_t min_slice_sms = 1;
  int registers_per_thread = 0;   // for occupancy (ptxas); 0 = 32 assumed
  bool events = false;            // keep the per-warp issue/stall event stream (live view)
  // At most this many resident blocks per SM (0 = the occupancy limit): the
  // views time the same kernel at 1 block per SM beside full occupancy, as
  // if each block claimed the SM's whole shared memory.
  uint32_t max_blocks_per_sm = 0;
  // A sampled launch's segments (cycle/sample.h: first waves, steady waves,
  // last waves) are independent simulations: at most this many run at once
  // (0 = two when the host has two cores or more; 1 = one after another).
  // The prediction is the same either way.
  uint32_t segment_threads = 0;
};

struct SimOptions {
  unsigned threads = 0;            // worker threads for blocks; 0 = hardware concurrency
  bool check = false;              // kernel checks (out-of-bounds, races, ...)
  uint64_t max_steps = 0;          // per-thread instruction budget for `hang`; 0 = default (1e8)
  EventSink* events = nullptr;     // nullptr: no event recording
  // With events: emit a WarpInstr event for every Nth other instruction of a
  // worker (global-memory instructions and block events always), so a live
  // view of a big run keeps the interpreter's fast paths; 1 = every one.
  uint32_t event_every = 1;
  // GPU model for the launch limits, SM placement and the L2 model, resolved
  // once by the caller (device.h's gpu_model()); nullptr: default_gpu().
  const GpuModel* gpu = nullptr;
  // Called now and then with blocks done / total, for progress bars.
  std::function<void(uint64_t, uint64_t)> progress;
  const std::atomic<bool>* cancel = nullptr;  // set to stop early (views, Ctrl-C, watch)
  // Wall-clock limit for the whole launch, seconds; 0 = none. A launch that
  // runs past it ends with a `hang` error naming the loop a warp is in.
  double time_limit_s = 0;
  TimingOptions timing;            // the cycle model (predicted time, stall reasons)
  // Record the spans of global memory the launch reads and writes
  // (LaunchResult::global_ranges): the runtime's stream-ordering check
  // (lab/runtime) compares them with copies in flight.
  bool record_global_ranges = false;
  // [lo, hi) ranges of global memory the launch's GPU does not own (another
  // simulated GPU's allocations, sorted): an access there faults, however
  // the kernel got the pointer (a struct, a device-side table). The lab does
  // not model loads and stores over a peer link (lab/runtime).
  std::vector<std::pair<uint64_t, uint64_t>> foreign_global;
};

// ---- limits on every launch a thread makes -------------------------------------
// A student's runaway kernel must end in seconds wherever it runs, also where
// the launch happens deep inside other code (a lesson check). A scope sets
// limits for every launch this thread makes while it lives; launch() takes
// the tighter of these and its SimOptions (scopes nest the same way).
struct LaunchLimits {
  uint64_t max_steps = 0;                     // per-warp instruction budget; 0 = no extra limit
  double seconds = 0;                         // wall-clock limit per launch; 0 = none
  const std::atomic<bool>* cancel = nullptr;  // set to stop the launch (watch: a new save, `q`)
};
class LaunchLimitScope {
 public:
  explicit LaunchLimitScope(const LaunchLimits& limits);
  ~LaunchLimitScope();
  LaunchLimitScope(const LaunchLimitScope&) = delete;
  LaunchLimitScope& operator=(const LaunchLimitScope&) = delete;
  static const LaunchLimits& current();  // this thread's limits (the process default outside any scope)
  // Limits for threads that have no scope (a view's worker threads): set it
  // at start-up, before those threads launch anything.
  static void set_process_default(const LaunchLimits& limits);

 private:
  LaunchLimits saved_;
};

struct LaunchConfig {
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  // cudaLaunchCooperativeKernel: every block resident at once, so blocks may
  // wait for each other (grid.sync()); launch.cpp runs them in turns.
  bool cooperative = false;
};

// Runs `kernel` of `module`. `params` is the param buffer laid out as the
// kernel's Param offsets say. Never throws for a fault in the kernel: faults
// become errors. Throws lab::sim::LaunchError for a launch the GPU would
// refuse (limits.h: block shape, shared memory; registers need ptxas's
// count, so compiled.h's launch() checks those too).
LaunchResult launch(const ptx::Module& module, const ptx::Kernel& kernel, const LaunchConfig& cfg,
                    const std::vector<uint8_t>& params, GlobalMemory& memory,
                    const SimOptions& options = {});

}  // namespace lab::sim
