// lab/sim/launch.h: the simulator's public interface.
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

namespace lab::sim {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

// ---- global memory -----------------------------------------------------------
// One arena of device memory. Buffers are placed at 256-byte aligned
// addresses (as cudaMalloc does) with guard gaps between them, so an index
// one past a buffer's end is detectable. Addresses are ptx::kGlobalBase + offset.
struct Buffer {
  uint64_t address = 0;     // device address of the first byte
  uint64_t bytes = 0;       // exact requested size (bounds checks use this)
  std::string name;         // "arg2", "A", ... for messages
  bool initialized = true;  // false: reads before a write are `uninitialized-read`
};

class GlobalMemory {
 public:
  GlobalMemory();
  ~GlobalMemory();
  // Returns the device address. Contents are zero unless `initialized` is false,
  // in which case they are filled with a poison pattern (0xff bytes).
  uint64_t allocate(uint64_t bytes, std::string name, bool initialized = true);
  void write(uint64_t address, const void* src, uint64_t bytes);
  void read(uint64_t address, void* dst, uint64_t bytes) const;
  // Host pointer to device memory, or nullptr when [address, address+bytes) is
  // outside the arena. The hot path of the interpreter uses this.
  uint8_t* host(uint64_t address, uint64_t bytes);
  const Buffer* find(uint64_t address) const;  // the buffer containing address, or nullptr
  const std::vector<Buffer>& buffers() const { return buffers_; }
  uint64_t arena_bytes() const { return arena_.size(); }
  // Reserve the module's .global segment at kGlobalBase (done by launch()).
  void ensure_module_globals(const ptx::Module& m);
  // Buffers start here; [kGlobalBase, arena_base()) holds the module's globals.
  static constexpr uint64_t arena_base() { return ptx::kGlobalBase + (uint64_t(1) << 30); }
  uint8_t* module_segment() { return module_segment_.data(); }
  uint64_t module_segment_bytes() const { return module_segment_.size(); }

 private:
  std::vector<uint8_t> arena_;
  std::vector<Buffer> buffers_;  // sorted by address
  std::vector<uint8_t> module_segment_;  // module .global/.const variables at kGlobalBase
  uint64_t module_bytes_ = 0;
  bool module_loaded_ = false;
};

// ---- errors ------------------------------------------------------------------
// A fault or a kernel-check finding. `kind` uses the names the CLI contract
// fixes: out-of-bounds, misaligned, race, barrier-divergence,
// uninitialized-read, invalid-mask, hang, unsupported, fault.
struct KernelError {
  std::string kind;
  std::string message;
  std::string file;          // the .cu file from .loc, "" if unknown
  uint32_t line = 0;         // source line, 0 if unknown
  uint32_t ptx_line = 0;
  Dim3 block, thread;        // first offender
  uint64_t count = 1;        // occurrences folded into this entry (dedup by kind+line)
  // The first few offenders (up to kMaxOffenders, block/thread above first),
  // so a report names more than one thread.
  struct Offender { Dim3 block, thread; };
  static constexpr size_t kMaxOffenders = 4;
  std::vector<Offender> offenders;
};

// ---- metrics -----------------------------------------------------------------
// Counted per instruction index (pc); everything else derives from these.
// Definitions follow Nsight Compute: a request is one warp-level memory
// instruction; sectors are distinct 32-byte sectors a request touches;
// shared cost is wavefronts, ideal wavefronts is what the access would cost
// with no bank conflicts.
struct PcCounters {
  uint64_t warp_insts = 0;       // warp-level instructions executed (guard false counts too: inst_executed)
  uint64_t thread_insts = 0;     // active, guard-true lanes (thread_inst_executed_true)
  uint64_t active_lanes = 0;     // lanes active at issue, regardless of guard (for warp execution efficiency)
  uint64_t requests = 0;         // memory instructions with >= 1 lane participating
  uint64_t sectors = 0;          // global/local: distinct 32-byte sectors
  uint64_t wavefronts = 0;       // shared: wavefronts
  uint64_t ideal_wavefronts = 0; // shared: wavefronts with no bank conflicts
  uint64_t bytes = 0;            // bytes requested by lanes (useful bytes)
  uint64_t divergent = 0;        // branches that split the warp
  uint64_t dram_read_bytes = 0;  // from the L2 model (global loads)
  uint64_t dram_write_bytes = 0;
  void add(const PcCounters& o);
};

struct KernelMetrics {
  std::vector<PcCounters> per_pc;     // indexed like Kernel::code
  uint64_t blocks = 0, warps = 0, threads = 0;
  uint64_t barriers = 0;              // bar.sync executions (warp level)
  double sim_seconds = 0;             // wall time of the simulation itself
  uint64_t total_warp_insts() const;
  uint64_t total_thread_insts() const;
};

// ---- events for the views ----------------------------------------------------
// Switchable: with no sink the interpreter does no event work.
struct WarpEvent {
  enum Kind : uint8_t { BlockPlaced, WarpInstr, Barrier, BlockRetired } kind;
  uint32_t block_linear = 0;  // linear block index in the grid
  uint32_t sm = 0;            // modelled SM the block is placed on
  uint32_t warp = 0;          // warp index in the block
  uint32_t pc = 0;
  uint32_t active_mask = 0;
  uint64_t seq = 0;           // global order (per worker, merged by time)
  // For memory instructions: the 32 lane addresses (0 for inactive lanes),
  // the space and access size. Sectors / wavefronts are as counted.
  ptx::Space space = ptx::Space::Generic;
  uint8_t access_bytes = 0;
  bool is_store = false;
  uint32_t sectors = 0, wavefronts = 0, ideal_wavefronts = 0;
  uint64_t lane_addr[32] = {};
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Called from worker threads; implementations must be thread-safe.
  virtual void on_event(const WarpEvent& e) = 0;
};

// ---- options and launch --------------------------------------------------------
struct SimOptions {
  unsigned threads = 0;            // worker threads for blocks; 0 = hardware concurrency
  bool check = false;              // kernel checks (out-of-bounds, races, ...)
  uint64_t max_steps = 0;          // per-thread instruction budget for `hang`; 0 = default (1e8)
  EventSink* events = nullptr;     // nullptr: no event recording
  // With events: emit a WarpInstr event for every Nth other instruction of a
  // worker (global-memory instructions and block events always), so a live
  // view of a big run keeps the interpreter's fast paths; 1 = every one.
  uint32_t event_every = 1;
  std::string gpu = "H100";        // GPU model for SM placement and the L2 model
  // Called now and then with blocks done / total, for progress bars.
  std::function<void(uint64_t, uint64_t)> progress;
  const std::atomic<bool>* cancel = nullptr;  // set to stop early (views, Ctrl-C, watch)
  // Wall-clock limit for the whole launch, seconds; 0 = none. A launch that
  // runs past it ends with a `hang` error naming the loop a warp is in.
  double time_limit_s = 0;
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
};

struct LaunchResult {
  bool ok = true;                   // no errors
  bool cancelled = false;           // stopped through SimOptions::cancel / LaunchLimits::cancel (ok is false)
  std::vector<KernelError> errors;
  KernelMetrics metrics;
};

// Runs `kernel` of `module`. `params` is the param buffer laid out as the
// kernel's Param offsets say (see pack_param below). Never throws for a fault
// in the kernel: faults become errors. Throws lab::sim::LaunchError for a
// launch that cannot start (block too large, shared memory over the limit).
LaunchResult launch(const ptx::Module& module, const ptx::Kernel& kernel, const LaunchConfig& cfg,
                    const std::vector<uint8_t>& params, GlobalMemory& memory,
                    const SimOptions& options = {});

struct LaunchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace lab::sim
