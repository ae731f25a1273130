// lab/sim/launch.cpp: one kernel launch. Prepares the kernel once (family and
// reconvergence point per instruction), hands blocks to worker threads (each
// block runs start to finish on one worker, like a CTA on one SM), runs each
// block's warps until they park at a barrier or exit, and merges the
// per-worker metrics and errors at the end.
#include <algorithm>
#include <chrono>
#include <functional>
#include <fmt/format.h>
#include <system_error>
#include <thread>
#include <tuple>

#include "lab/ptx/cfg.h"
#include "lab/sim/cycle/corunners.h"
#include "lab/sim/cycle/result.h"
#include "lab/sim/cycle/timed_launch.h"
#include "lab/sim/cpu_clock.h"
#include "lab/sim/device.h"
#include "lab/sim/exec.h"
#include "lab/sim/sanitize.h"
#include "lab/sim/limits.h"
#include "lab/sim/occupancy.h"

namespace lab::sim {

// ---- metrics helpers declared in launch.h ---------------------------------------------
void PcCounters::add(const PcCounters& o) {
  warp_insts += o.warp_insts;
  thread_insts += o.thread_insts;
  active_lanes += o.active_lanes;
  requests += o.requests;
  sectors += o.sectors;
  wavefronts += o.wavefronts;
  ideal_wavefronts += o.ideal_wavefronts;
  bytes += o.bytes;
  divergent += o.divergent;
  dram_read_bytes += o.dram_read_bytes;
  dram_write_bytes += o.dram_write_bytes;
  atomic_serial += o.atomic_serial;
}

uint64_t KernelMetrics::total_warp_insts() const {
  uint64_t s = 0;
  for (const auto& p : per_pc) s += p.warp_insts;
  return s;
}
uint64_t KernelMetrics::total_thread_insts() const {
  uint64_t s = 0;
  for (const auto& p : per_pc) s += p.thread_insts;
  return s;
}

namespace {
LaunchLimits g_default_limits;
thread_local LaunchLimits t_limits = g_default_limits;  // initialised on a thread's first use
}  // namespace

LaunchLimitScope::LaunchLimitScope(const LaunchLimits& limits) : saved_(t_limits) {
  LaunchLimits n = saved_;
  if (limits.max_steps && (!n.max_steps || limits.max_steps < n.max_steps)) n.max_steps = limits.max_steps;
  if (limits.seconds > 0 && (n.seconds <= 0 || limits.seconds < n.seconds)) n.seconds = limits.seconds;
  if (limits.cancel) n.cancel = limits.cancel;
  t_limits = n;
}
LaunchLimitScope::~LaunchLimitScope() { t_limits = saved_; }
const LaunchLimits& LaunchLimitScope::current() { return t_limits; }
void LaunchLimitScope::set_process_default(const LaunchLimits& limits) {
  g_default_limits = limits;
  t_limits = limits;
}

namespace {

// A warp switches to its block's other warps after this many instructions
// even without a barrier: warps that spin on each other make progress, and
// the block's warps advance nearly together, as a hardware SM interleaves
// them cycle by cycle. A long quantum (each warp running to its next
// barrier alone) is a legal schedule too, but it turns a latent race that
// hardware never shows into wrong results every time: llm.c's
// softmax_autoregressive_backward_kernel reads a shared partial sum after
// block.sync() while a warp that ran ahead overwrites it for its next row
// (no barrier between; --check reports it). 32 instructions keeps a warp's
// read just after a barrier ahead of another warp's next loop iteration, for
// a few percent of simulation time (tests/run/warp_interleave.cu).
constexpr uint64_t kQuantum = 32;
// Stop handing out blocks after this many faults: the errors are deduplicated
// anyway and a faulting grid of a million blocks should end quickly.
constexpr uint64_t kMaxFaults = 256;

void emit_block_event(const LaunchState& L, WorkerState& W, const BlockState& B, WarpEvent::Kind kind) {
  WarpEvent ev{};
  ev.kind = kind;
  ev.block_linear = B.linear;
  ev.sm = B.sm;
  ev.seq = W.event_seq++;
  L.events->on_event(ev);
}

// Releases every barrier whose arrivals are complete. Returns true if any warp was released.
bool release_barriers(BlockState& B, BlockChecker* checker) {
  uint32_t live_threads = 0;
  for (const WarpState& w : B.warps) live_threads += (lanes_in(w.live));
  bool released = false;
  for (uint32_t id = 0; id < kMaxBarriers; ++id) {
    BarrierState& bs = B.barriers[id];
    if (bs.arrived == 0) continue;
    bool waiting = false;
    for (const WarpState& w : B.warps) waiting |= w.status == WarpStatus::AtBarrier && w.barrier_id == id;
    uint32_t expected = bs.expected ? bs.expected : live_threads;
    if (!waiting || bs.arrived < expected) continue;
    for (WarpState& w : B.warps) {
      if (w.status != WarpStatus::AtBarrier || w.barrier_id != id) continue;
      w.status = WarpStatus::Ready;
      if (w.red_kind && w.red_dst < ptx::kSinkReg) {
        uint64_t v = w.red_kind == 1 ? bs.red_popc : w.red_kind == 2 ? bs.red_and : bs.red_or;
        uint64_t* d = w.regs + size_t(w.red_dst) * kWarpSize;
        for (uint32_t m = w.barrier_arrived; m; m &= m - 1) d[std::countr_zero(m)] = v;
      }
      w.red_kind = 0;
      w.red_dst = ptx::kNoReg;
    }
    bs = BarrierState{};
    released = true;
    if (checker) checker->on_barrier_complete(id);
  }
  return released;
}

// What stops a launch early: a cancel flag (SimOptions, LaunchLimitScope)
// and the wall-clock deadline. Checked between warp quanta, so a warp that
// spins forever is stopped within one quantum of the limit.
struct LaunchControl {
  const std::atomic<bool>* cancel[2] = {nullptr, nullptr};
  bool has_deadline = false;
  std::chrono::steady_clock::time_point deadline;
  double seconds = 0;
  uint64_t launch_id = 0;                      // CheckContext::launch_id
  mutable std::atomic<bool> stop{false};       // a worker hit the deadline: the others stop too
  mutable std::atomic<bool> cancelled{false};
  bool should_stop() const {
    if (stop.load(std::memory_order_relaxed)) return true;
    for (auto* c : cancel)
      if (c && c->load(std::memory_order_relaxed)) {
        cancelled.store(true, std::memory_order_relaxed);
        stop.store(true, std::memory_order_relaxed);
        return true;
      }
    return false;
  }
};

// The deadline passed with `B` still running: a hang, reported at the warp
// that has issued the most instructions (the one looping), with its loop.
void report_time_limit(const LaunchState& L, WorkerState& W, BlockState& B, const LaunchControl& ctl) {
  const WarpState* worst = nullptr;
  for (const WarpState& w : B.warps)
    if (w.status != WarpStatus::Done && (!worst || w.steps > worst->steps)) worst = &w;
  if (!worst) return;
  uint32_t pc = std::min<uint32_t>(worst->pc, uint32_t(L.kernel->code.size() ? L.kernel->code.size() - 1 : 0));
  std::string loop = describe_loop(*L.module, *L.kernel, pc);
  record_error(L, W, B, "hang",
               fmt::format("the launch ran past its time limit of {:g} s with warp {} of block {} still running "
                           "({} instructions issued): the kernel probably loops forever (check the loop condition){}",
                           ctl.seconds, worst->index, B.linear, worst->steps, loop.empty() ? "" : "; " + loop),
               pc, worst->index, uint32_t(std::countr_zero(worst->mask | (worst->mask ? 0 : 1))));
  B.faulted = true;
  ++W.faults;
}

// Sets `B` up as block `linear` (registers, shared and local memory, warps)
// and returns its checker (null unless checks are on).
std::unique_ptr<BlockChecker> start_block(const LaunchState& L, WorkerState& W, BlockState& B, uint64_t linear,
                                          const LaunchControl& ctl) {
  const ptx::Kernel& k = *L.kernel;
  const LaunchConfig& cfg = L.cfg;
  B.linear = uint32_t(linear);
  B.l2_claims = 0;
  B.ctaid = Dim3{uint32_t(linear % cfg.grid.x), uint32_t((linear / cfg.grid.x) % cfg.grid.y),
                 uint32_t(linear / (uint64_t(cfg.grid.x) * cfg.grid.y))};
  // Block b goes to SM b % sm_count (the machine model's scheduler refines this).
  B.sm = uint32_t(linear % L.sm_count);
  B.num_threads = uint32_t(cfg.block.count());
  B.num_warps = (B.num_threads + kWarpSize - 1) / kWarpSize;
  const size_t slots = size_t(k.num_slots) * kWarpSize;
  // Registers start at zero (hardware leaves them undefined; zero keeps runs reproducible).
  B.regs.assign(size_t(B.num_warps) * slots, 0);
  B.shared_bytes = L.shared_bytes;
  B.shared.assign(L.shared_bytes, 0);
  B.local_bytes = k.local_bytes;
  if (k.local_bytes) B.local.assign(size_t(B.num_warps) * kWarpSize * k.local_bytes, 0);
  B.warps.resize(B.num_warps);
  for (uint32_t wi = 0; wi < B.num_warps; ++wi) {
    WarpState& w = B.warps[wi];
    uint32_t lanes = std::min<uint32_t>(kWarpSize, B.num_threads - wi * kWarpSize);
    w.index = wi;
    w.pc = 0;
    w.exists = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
    w.mask = w.live = w.exists;
    w.rpc = kNoPc;
    w.status = WarpStatus::Ready;
    w.stack.clear();
    w.regs = B.regs.data() + wi * slots;
    w.steps = 0;
    w.global_requests = 0;
    w.carry = 0;
    w.parked = 0;
    w.parked_pc = 0;
    w.spin = 0;
    w.poll_pc = kNoPc;
    w.poll_hash = 0;
    w.async.clear();
    w.async_groups = 0;
    w.wgmma_commits = 0;
    w.wgmma_need = 0;
    w.red_kind = 0;
    w.red_dst = ptx::kNoReg;
  }
  B.barriers = {};
  B.faulted = false;
  B.mbar_phases.clear();

  std::unique_ptr<BlockChecker> checker;
  if (L.options->check) {
    CheckContext cc;
    cc.module = L.module;
    cc.kernel = L.kernel;
    cc.memory = L.memory;
    cc.block = &B;
    cc.launch_id = ctl.launch_id;
    cc.cooperative = L.cfg.cooperative;
    cc.report = [&L, &W, &B](const char* kind, std::string msg, uint32_t pc, uint32_t warp, uint32_t lane) {
      record_error(L, W, B, kind, msg, pc, warp, lane);
    };
    checker = make_block_checker(cc);
    checker->on_block_start();
  }
  if (L.events) emit_block_event(L, W, B, WarpEvent::BlockPlaced);
  return checker;
}

// What a block's turn ended on.
enum class BlockTurn {
  Ended,    // every warp finished, or the block faulted
  Polling,  // no warp can go on until another block writes what one polls (cooperative launches)
};

// Runs `B`'s warps until the block ends or (in a cooperative launch) waits
// for another block. `trace` is where the cycle model's trace of the block
// goes (null when it is not timed).
BlockTurn run_block_turn(const LaunchState& L, WorkerState& W, BlockState& B, BlockChecker* checker,
                         cycle::BlockTrace* trace, const LaunchControl& ctl) {
  WarpContext c;
  c.L = &L;
  c.W = &W;
  c.B = &B;
  c.block_trace = trace;
  c.checker = checker;
  if (L.events) {
    W.event.block_linear = B.linear;
    W.event.sm = B.sm;
    c.ev = &W.event;
  }
  // A polling warp of a block whose turn comes again reads its memory again.
  for (WarpState& w : B.warps)
    if (w.status == WarpStatus::Polling) w.status = WarpStatus::Ready;

  for (;;) {
    bool all_done = true;
    for (WarpState& w : B.warps) {
      if (w.status == WarpStatus::Ready) {
        c.warp = &w;
        run_warp(c, kQuantum);
        if (B.faulted) break;
        if (ctl.should_stop() || (ctl.has_deadline && std::chrono::steady_clock::now() > ctl.deadline)) {
          if (!ctl.cancelled.load(std::memory_order_relaxed) && !ctl.stop.exchange(true)) report_time_limit(L, W, B, ctl);
          B.faulted = true;
          break;
        }
      }
      all_done &= w.status == WarpStatus::Done;
    }
    if (B.faulted || all_done) return BlockTurn::Ended;
    release_barriers(B, c.checker);
    // mbarrier waits (exec_mbarrier.cpp): a test_wait that said "not yet"
    // had its turn yielded to the others; a try_wait wakes once its phase completed.
    for (WarpState& w : B.warps) {
      if (w.status == WarpStatus::Yielded) w.status = WarpStatus::Ready;
      else if (w.status == WarpStatus::AtMbarrier) mbarrier_try_wake(L, W, B, w, c.checker, c.block_trace);
      else if (w.status == WarpStatus::AtWarpgroup && wgmma_warpgroup_ready(B, w)) w.status = WarpStatus::Ready;
      if (B.faulted) break;
    }
    if (B.faulted) return BlockTurn::Ended;
    bool any_ready = false, all_finished = true, polling = false;
    for (const WarpState& w : B.warps) {
      any_ready |= w.status == WarpStatus::Ready;
      all_finished &= w.status == WarpStatus::Done;
      polling |= w.status == WarpStatus::Polling;
    }
    if (all_finished) return BlockTurn::Ended;
    if (!any_ready && polling) return BlockTurn::Polling;
    if (!any_ready) {
      // Deadlock: every live warp waits at a barrier that cannot complete.
      uint32_t live_threads = 0;
      for (const WarpState& w : B.warps) live_threads += (lanes_in(w.live));
      for (const WarpState& w : B.warps) {
        if (w.status == WarpStatus::AtMbarrier) {
          record_error(L, W, B, "hang",
                       fmt::format("warp {} waits in mbarrier.try_wait for a phase of {} that can never complete: "
                                   "every other warp has finished or waits too. Each thread counted in the "
                                   "barrier's init() must arrive once per phase (cuda::barrier::arrive / "
                                   "arrive_and_wait), and expected transaction bytes must all complete",
                                   w.index, mbarrier_describe_wait(L, B, w)),
                       w.mbar_pc, w.index, uint32_t(std::countr_zero(w.barrier_arrived | (w.barrier_arrived ? 0 : 1))));
          break;
        }
        if (w.status == WarpStatus::AtWarpgroup) {
          record_error(L, W, B, "hang",
                       fmt::format("warp {} waits in wgmma.wait_group for wgmmas its warpgroup's other warps never "
                                   "issue: a wgmma is a warpgroup's instruction (.aligned), so all four warps of "
                                   "the warpgroup must issue the same wgmma.mma_async and commit_group",
                                   w.index),
                       w.pc - 1, w.index, uint32_t(std::countr_zero(w.live | (w.live ? 0 : 1))));
          break;
        }
        if (w.status != WarpStatus::AtBarrier) continue;
        const BarrierState& bs = B.barriers[w.barrier_id];
        uint32_t expected = bs.expected ? bs.expected : live_threads;
        record_error(L, W, B, "barrier-divergence",
                     fmt::format("barrier {} can never complete: {} of the {} threads it waits for arrived; the "
                                 "others exited or wait at a different barrier (a __syncthreads() inside a "
                                 "branch that not all threads of the block take?)",
                                 w.barrier_id, bs.arrived, expected),
                     w.pc - 1, w.index, uint32_t(std::countr_zero(w.barrier_arrived | (w.barrier_arrived ? 0 : 1))));
        break;
      }
      ++W.faults;
      B.faulted = true;
      return BlockTurn::Ended;
    }
  }
}

// After a block ended: its checker's last word and its per-warp counts.
void finish_block(const LaunchState& L, WorkerState& W, const BlockState& B, BlockChecker* checker) {
  if (checker) checker->on_block_end();
  // Each block owns its slots, so workers write them without a lock.
  if (L.warp_insts_by_warp)
    for (const WarpState& w : B.warps)
      L.warp_insts_by_warp[size_t(B.linear) * B.num_warps + w.index] = uint32_t(std::min<uint64_t>(w.steps, UINT32_MAX));
  if (L.global_requests_by_warp)
    for (const WarpState& w : B.warps) L.global_requests_by_warp[size_t(B.linear) * B.num_warps + w.index] = w.global_requests;
  if (L.events) emit_block_event(L, W, B, WarpEvent::BlockRetired);
}

// One block start to finish, in the worker's reused block storage.
void run_block(const LaunchState& L, WorkerState& W, uint64_t linear, const LaunchControl& ctl) {
  BlockState& B = W.block;
  std::unique_ptr<BlockChecker> checker = start_block(L, W, B, linear, ctl);
  run_block_turn(L, W, B, checker.get(), W.trace, ctl);  // never Polling: polls are marked in cooperative launches only
  finish_block(L, W, B, checker.get());
}

// A block of a cooperative launch, kept while the others take their turns.
struct ResidentBlock {
  BlockState state;
  std::unique_ptr<BlockChecker> checker;
  std::unique_ptr<cycle::BlockTrace> trace;  // when the launch is timed
  bool ended = false;
};

// Without progress for this many rounds (every waiting block had a turn and
// no poll read anything new, no block ended), the grid is deadlocked.
constexpr int kIdleRoundsToDeadlock = 64;

// A cooperative launch (LaunchConfig::cooperative): every block is resident
// at once, as the GPU guarantees, and the blocks take turns on one worker:
// each runs until it ends or every warp left waits for another block (a
// poll that reads what it read before, or a barrier behind one), then the
// next block goes. Memory is one: a block's writes are there at the next
// block's turn. `traces` (when the launch is timed) receives every block's
// trace, each block with its own.
void run_resident_grid(const LaunchState& L, WorkerState& W, const LaunchControl& ctl, bool traced,
                       std::vector<std::unique_ptr<cycle::BlockTrace>>& traces, std::atomic<uint64_t>& blocks_done,
                       const std::function<bool()>& stopped) {
  const uint64_t n = L.cfg.grid.count();
  const uint32_t warps_per_block = uint32_t((L.cfg.block.count() + kWarpSize - 1) / kWarpSize);
  std::vector<std::unique_ptr<ResidentBlock>> blocks(n);
  for (uint64_t b = 0; b < n; ++b) {
    blocks[b] = std::make_unique<ResidentBlock>();
    ResidentBlock& r = *blocks[b];
    if (traced) {
      r.trace = std::make_unique<cycle::BlockTrace>();
      r.trace->block = b;
      r.trace->warps.resize(warps_per_block);
    }
    r.checker = start_block(L, W, r.state, b, ctl);
  }
  uint64_t live = n;
  int idle_rounds = 0;
  for (uint64_t round = 0; live && !stopped(); ++round) {
    const uint64_t polls_before = W.poll_changes;
    bool ended_any = false;
    for (auto& rp : blocks) {
      ResidentBlock& r = *rp;
      if (r.ended) continue;
      const BlockTurn turn = run_block_turn(L, W, r.state, r.checker.get(), r.trace.get(), ctl);
      if (turn == BlockTurn::Polling) continue;
      finish_block(L, W, r.state, r.checker.get());
      if (r.trace) r.trace->faulted = r.state.faulted;
      r.ended = ended_any = true;
      --live;
      r.state.regs = {};  // its registers and memory are not needed again
      r.state.shared = {};
      r.state.local = {};
      blocks_done.fetch_add(1, std::memory_order_relaxed);  // (no progress line: the blocks end together, at the last phase)
      if (stopped() || r.state.faulted) break;
    }
    bool faulted = false;
    for (auto& rp : blocks) faulted |= rp->state.faulted;
    if (faulted) break;  // a fault stops the grid: its other blocks may wait for the faulted one forever
    idle_rounds = (round > 0 && !ended_any && W.poll_changes == polls_before) ? idle_rounds + 1 : 0;
    if (idle_rounds < kIdleRoundsToDeadlock) continue;
    // Deadlock: report it at the first waiting block's polling warp.
    for (auto& rp : blocks) {
      if (rp->ended) continue;
      BlockState& B = rp->state;
      for (const WarpState& w : B.warps) {
        if (w.status != WarpStatus::Polling) continue;
        const uint32_t pc = std::min<uint32_t>(w.poll_pc, uint32_t(L.kernel->code.size() - 1));
        record_error(L, W, B, "hang",
                     fmt::format("the cooperative grid cannot go on: {} of its {} blocks wait for memory that no "
                                 "block will change (warp {} of block {} reads the same value here again and "
                                 "again). Every block must reach each grid.sync() (cg::this_grid().sync()): one "
                                 "inside a branch that not every block takes waits forever",
                                 live, n, w.index, B.linear),
                     pc, w.index, 0);
        ++W.faults;
        break;
      }
      break;
    }
    break;
  }
  for (auto& rp : blocks) {
    if (!rp->ended) finish_block(L, W, rp->state, rp->checker.get());
    if (traced) traces.push_back(std::move(rp->trace));
  }
}

// Every worker's global spans, merged (SimOptions::record_global_ranges).
void merge_ranges(std::vector<WorkerState>& workers, LaunchResult& result) {
  for (WorkerState& W : workers) {
    result.global_ranges.insert(result.global_ranges.end(), W.global_ranges.begin(), W.global_ranges.end());
    W.global_ranges.clear();
  }
  merge_global_ranges(result.global_ranges);
}

// Puts every thread's printf output in warp order (LaunchResult::printf_output).
void merge_printf(std::vector<WorkerState>& workers, LaunchResult& result) {
  std::vector<PrintfLine> lines;
  for (WorkerState& W : workers) {
    for (PrintfLine& p : W.printf_lines) lines.push_back(std::move(p));
    W.printf_lines.clear();
    result.printf_dropped += W.printf_dropped;
  }
  std::sort(lines.begin(), lines.end(), [](const PrintfLine& a, const PrintfLine& b) {
    return std::tie(a.block, a.warp, a.step, a.lane) < std::tie(b.block, b.warp, b.step, b.lane);
  });
  for (const PrintfLine& p : lines) {
    if (result.printf_output.size() + p.text.size() > LaunchResult::kPrintfLimitBytes) ++result.printf_dropped;
    else result.printf_output += p.text;
  }
}

}  // namespace

void merge_global_ranges(std::vector<GlobalRange>& v) {
  std::sort(v.begin(), v.end(), [](const GlobalRange& a, const GlobalRange& b) {
    return std::tie(a.write, a.lo, a.hi) < std::tie(b.write, b.lo, b.hi);
  });
  size_t out = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (out && v[out - 1].write == v[i].write && v[i].lo <= v[out - 1].hi) {
      v[out - 1].hi = std::max(v[out - 1].hi, v[i].hi);
    } else {
      v[out++] = v[i];
    }
  }
  v.resize(out);
}

LaunchResult launch(const ptx::Module& module, const ptx::Kernel& kernel, const LaunchConfig& cfg,
                    const std::vector<uint8_t>& params, GlobalMemory& memory, const SimOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  const GpuModel& gpu = options.gpu ? *options.gpu : default_gpu();
  check_launch_limits(kernel, cfg, gpu);  // registers: compiled.h's launch() passes ptxas's count
  const uint64_t block_threads = cfg.block.count();
  const uint64_t shared_total = uint64_t(kernel.static_shared_bytes) + cfg.dynamic_shared_bytes;

  memory.ensure_module_globals(module);
  // A cooperative grid must be resident all at once (CUDA Runtime API,
  // cudaLaunchCooperativeKernel: "the total number of blocks ... must not
  // exceed" what the occupancy calculator allows on every SM).
  uint64_t grid_workspace = 0;
  if (cfg.cooperative) {
    const int regs = options.timing.registers_per_thread > 0 ? options.timing.registers_per_thread : 32;
    const int per_sm = occupancy_blocks_per_sm(
        gpu, OccupancyInput{int(block_threads), regs, int(kernel.static_shared_bytes), int(cfg.dynamic_shared_bytes)});
    const uint64_t resident = uint64_t(std::max(0, per_sm)) * uint64_t(std::max(1, gpu.sm_count));
    if (cfg.grid.count() > resident)
      throw LaunchError(fmt::format(
          "a cooperative launch of {} blocks cannot be resident at once: the {} holds {} blocks of this kernel "
          "({} per SM x {} SMs, with {} registers per thread); launch at most that many "
          "(cudaOccupancyMaxActiveBlocksPerMultiprocessor x multiProcessorCount)",
          cfg.grid.count(), gpu.name, resident, per_sm, gpu.sm_count, regs));
    grid_workspace = memory.grid_workspace();  // before the arena's views are taken: it may grow the arena
  }

  LaunchState L;
  L.grid_workspace = grid_workspace;
  L.module = &module;
  L.kernel = &kernel;
  L.cfg = cfg;
  L.options = &options;
  L.params = params.data();
  L.param_bytes = uint32_t(params.size());
  L.memory = &memory;
  L.arena = memory.host(GlobalMemory::arena_base(), 0);
  L.arena_lo = GlobalMemory::arena_base();
  L.arena_bytes = memory.arena_bytes();
  L.module_seg = memory.module_segment();
  L.module_lo = ptx::kGlobalBase;
  L.module_bytes = memory.module_segment_bytes();
  L.sm_count = uint32_t(std::max(1, gpu.sm_count));
  // Shared memory: the static variables, then the dynamic (extern) array.
  uint64_t dyn_start = kernel.dynamic_shared_offset ? kernel.dynamic_shared_offset : kernel.static_shared_bytes;
  L.shared_bytes = uint32_t(std::max<uint64_t>(shared_total, dyn_start + cfg.dynamic_shared_bytes));
  const LaunchLimits& ambient = LaunchLimitScope::current();
  L.max_steps = options.max_steps ? options.max_steps : 100'000'000;
  if (ambient.max_steps) L.max_steps = std::min(L.max_steps, ambient.max_steps);
  LaunchControl ctl;
  static std::atomic<uint64_t> launches{0};
  ctl.launch_id = ++launches;
  ctl.cancel[0] = options.cancel;
  ctl.cancel[1] = ambient.cancel;
  ctl.seconds = options.time_limit_s;
  if (ambient.seconds > 0 && (ctl.seconds <= 0 || ambient.seconds < ctl.seconds)) ctl.seconds = ambient.seconds;
  ctl.has_deadline = ctl.seconds > 0;
  if (ctl.has_deadline)
    ctl.deadline = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(ctl.seconds));
  L.events = options.events;
  L.event_every = std::max(1u, options.event_every);
  // %reserved_smem_offset_* (cooperative groups' scratch): the driver's
  // reserved per-block region, appended to the block's shared memory only
  // for kernels that read it, so out-of-bounds checks stay exact elsewhere.
  for (const ptx::Instr& in : kernel.code)
    for (int i = 0; i < in.num_ops; ++i)
      if (in.ops[i].kind == ptx::OperandKind::Special &&
          in.ops[i].reg >= uint32_t(ptx::Special::ReservedSmemBegin) &&
          in.ops[i].reg <= uint32_t(ptx::Special::ReservedSmem1) && !L.reserved_smem_bytes) {
        L.reserved_smem_offset = (L.shared_bytes + 15u) & ~15u;
        L.reserved_smem_bytes = uint32_t(gpu.reserved_shared_per_block > 0 ? gpu.reserved_shared_per_block : 1024);
        L.shared_bytes = L.reserved_smem_offset + L.reserved_smem_bytes;
      }
  L.timer_origin_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
  const std::vector<int32_t> ipdom = ptx::ipdom_targets(kernel);
  L.prepared.resize(kernel.code.size());
  for (size_t i = 0; i < kernel.code.size(); ++i) {
    L.prepared[i].family = family_of(kernel.code[i]);
    L.prepared[i].exec = resolve_exec(kernel.code[i]);
    L.prepared[i].ipdom = ipdom[i] >= 0 ? uint32_t(ipdom[i]) : uint32_t(kernel.code.size());
    const ptx::Instr& in = kernel.code[i];
    L.prepared[i].poll = cfg.cooperative && in.op == ptx::Op::Ld &&
                         (in.space == ptx::Space::Global || in.space == ptx::Space::Generic) &&
                         (in.flags & (ptx::kFlagVolatile | ptx::kFlagStrong));
  }
  // One L2 per launch, sized as the modelled GPU's (device.h).
  L2Model l2(gpu.l2_bytes ? gpu.l2_bytes : 50ull << 20);
  l2.set_fetch_bytes(gpu.l2_fetch_bytes);
  L.l2 = &l2;
  {
    // A block's own reuse against the blocks resident with it, GPU-wide
    // (L2Model::set_block_reuse); registers as the cooperative check takes
    // them, 32 where the caller did not say.
    const int regs = options.timing.registers_per_thread > 0 ? options.timing.registers_per_thread : 32;
    const int per_sm = occupancy_blocks_per_sm(
        gpu, OccupancyInput{int(block_threads), regs, int(kernel.static_shared_bytes), int(cfg.dynamic_shared_bytes)});
    const uint64_t resident =
        std::clamp<uint64_t>(uint64_t(std::max(1, per_sm)) * uint64_t(std::max(1, gpu.sm_count)), 1, cfg.grid.count());
    l2.set_block_reuse(uint32_t(std::max<uint64_t>(1, l2.capacity_bytes() / kLineBytes / resident)));
  }

  const uint64_t total_blocks = cfg.grid.count();
  // Per-warp counts up to 4M warps (16 MB); bigger grids (benchmarks) go without.
  const uint64_t grid_warps = total_blocks * ((block_threads + kWarpSize - 1) / kWarpSize);
  std::vector<uint32_t> warp_insts_by_warp(grid_warps <= (uint64_t(1) << 22) ? grid_warps : 0, 0);
  L.warp_insts_by_warp = warp_insts_by_warp.empty() ? nullptr : warp_insts_by_warp.data();
  std::vector<uint32_t> global_requests_by_warp(warp_insts_by_warp.size(), 0);
  L.global_requests_by_warp = global_requests_by_warp.empty() ? nullptr : global_requests_by_warp.data();
  // More workers than cores does not help (blocks are independent CPU work),
  // and thousands of threads can fail to start: clamp to the cores.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  unsigned threads = options.threads ? std::min(options.threads, cores) : cores;
  if (cfg.cooperative) threads = 1;  // its blocks take turns (run_resident_grid)
  threads = unsigned(std::min<uint64_t>(threads, total_blocks));
  std::vector<WorkerState> workers(threads);
  l2.set_concurrent(threads > 1);
  for (WorkerState& W : workers) {
    W.per_pc.assign(kernel.code.size(), PcCounters{});
    W.shared_memo.assign(kernel.code.size(), SharedCostMemo{});
  }
  std::atomic<uint64_t> next_block{0}, blocks_done{0}, faults{0};
  uint64_t range_end = total_blocks;
  // One test for every early stop: a cancel flag, a deadline hit by another
  // worker (both in ctl), or too many faults.
  auto stopped = [&] { return ctl.should_stop() || faults.load(std::memory_order_relaxed) >= kMaxFaults; };
  auto work = [&](WorkerState& W, bool reports_progress) {
    const double cpu0 = thread_cpu_seconds();
    for (;;) {
      if (stopped()) break;
      uint64_t b = next_block.fetch_add(1, std::memory_order_relaxed);
      if (b >= range_end) break;
      uint64_t before = W.faults;
      const size_t errors_before = W.errors.size();
      run_block(L, W, b, ctl);
      if (W.faults != before) faults.fetch_add(W.faults - before, std::memory_order_relaxed);
      // One runaway warp is enough: every other block would spin the same way
      // until its own budget ran out, so the launch ends here.
      for (size_t i = errors_before; i < W.errors.size(); ++i)
        if (W.errors[i].kind == "hang") ctl.stop.store(true, std::memory_order_relaxed);
      uint64_t done = blocks_done.fetch_add(1, std::memory_order_relaxed) + 1;
      if (reports_progress && options.progress && (done % 64 == 0 || done == total_blocks))
        options.progress(done, total_blocks);
    }
    W.cpu_seconds += thread_cpu_seconds() - cpu0;
  };
  // Blocks [lo, hi) on the worker pool.
  auto run_range = [&](uint64_t lo, uint64_t hi) {
    if (lo >= hi) return;
    next_block = lo;
    range_end = hi;
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads && t < hi - lo; ++t) {
      try {
        pool.emplace_back(work, std::ref(workers[t]), false);
      } catch (const std::system_error&) {
        break;  // the system refused another thread: run with those that started
      }
    }
    work(workers[0], true);
    for (auto& t : pool) t.join();
  };
  std::shared_ptr<const cycle::CycleResult> timing;
  if (cfg.cooperative) {
    // Every block runs first, each with its own trace; the cycle model then
    // times them as any launch's blocks. It does not see the waits between
    // them: a grid.sync() is priced as the instructions it issues (the
    // atomic, the polls), not as the slowest block's lead (docs/run.md).
    const bool traced = options.timing.mode != TimingMode::Off;
    std::vector<std::unique_ptr<cycle::BlockTrace>> traces;
    run_resident_grid(L, workers[0], ctl, traced, traces, blocks_done, stopped);
    if (traced && !stopped())
      timing = cycle::time_launch(kernel, cfg, gpu, options.timing, L.shared_bytes,
                                  [&](uint64_t b, cycle::BlockTrace& trace) {
                                    if (b < traces.size() && traces[b]) trace = std::move(*traces[b]);
                                  },
                                  {}, stopped);
  } else if (options.timing.mode != TimingMode::Off) {
    // The cycle model asks for the blocks it times in increasing order, from
    // one thread at a time; the blocks before each run first (on the pool),
    // so the L2 model holds what the grid would have touched by then. With
    // sample_only the others never run.
    uint64_t cursor = 0;
    const bool only = options.timing.sample_only;
    double fetch_fraction = 1;
    std::vector<FetchRange> fetch_ranges;  // per buffer (corunners.h fetch_fractions_by_buffer)
    std::vector<std::string> buffer_names;  // their `buffer` indices name these, for the report
    auto estimate_fetch_fraction = [&](const cycle::SamplePlan& plan) {
      const uint64_t wave = std::min<uint64_t>(total_blocks, uint64_t(gpu.sm_count) * plan.blocks_per_sm);
      const cycle::GridNeighbours g = cycle::grid_neighbours(cfg.grid.x, cfg.grid.y, plan.segments[0].blocks[0], wave);
      WorkerState scratch;
      scratch.per_pc.assign(kernel.code.size(), PcCounters{});
      scratch.shared_memo.assign(kernel.code.size(), SharedCostMemo{});
      // The neighbours run outside the L2 model, the per-warp counters and the
      // event stream: those outputs are detached while they run, and put back after.
      struct Detached {
        LaunchState& l;
        L2Model* l2;
        uint32_t *insts, *requests;
        EventSink* events;
        explicit Detached(LaunchState& l_)
            : l(l_), l2(l_.l2), insts(l_.warp_insts_by_warp), requests(l_.global_requests_by_warp), events(l_.events) {
          l.l2 = nullptr, l.warp_insts_by_warp = nullptr, l.global_requests_by_warp = nullptr, l.events = nullptr;
        }
        ~Detached() { l.l2 = l2, l.warp_insts_by_warp = insts, l.global_requests_by_warp = requests, l.events = events; }
      } detached(L);
      auto lines_of = [&](int64_t block) -> std::vector<uint64_t> {
        if (block < 0 || stopped()) return {};
        cycle::BlockTrace trace;
        trace.warps.resize((block_threads + kWarpSize - 1) / kWarpSize);
        scratch.trace = &trace;
        run_block(L, scratch, uint64_t(block), ctl);
        scratch.trace = nullptr;
        return cycle::read_lines(trace);
      };
      const std::vector<uint64_t> self = lines_of(g.self);
      const cycle::Neighbours n{lines_of(g.x1), lines_of(g.x2), lines_of(g.y1), lines_of(g.y2)};
      // The buffers' 128-byte lines (addresses / 128, as sectors / 4).
      std::vector<std::pair<uint64_t, uint64_t>> buffers;
      for (const Buffer& b : memory.buffers())
        if (!b.freed && b.bytes)
          buffers.push_back({b.address / 128, (b.address + b.bytes + 127) / 128}), buffer_names.push_back(b.name);
      fetch_ranges = cycle::fetch_fractions_by_buffer(self, n, g.row_mates, g.column_mates, buffers);
      return cycle::first_read_fetch_fraction(self, n, g.row_mates, g.column_mates);
    };
    // With sample_only only the timed blocks touch the L2, so it holds what
    // their share of the GPU's L2 would: a slice of S of the busy SMs gets
    // S/busy of the capacity, as it gets that share of the bandwidth. (The
    // first timed block, run to choose S, saw the whole cache; the blocks
    // that share data with the sample from other SMs are not run at all.)
    //
    // Nor do the blocks on other SMs read the lines the sample reads, as on
    // the GPU they would at about the same time: a few of the first timed
    // block's grid neighbours run untimed (outside the L2 model and the
    // metrics) to tell which of its lines they share, and the L2 fetches
    // from DRAM only the share of first reads its own SM would (corunners.h).
    const cycle::PlanListener share_l2 = [&](const cycle::SamplePlan& plan) {
      const double share = plan.full ? 1.0 : plan.bandwidth_share;
      if (!only || share >= 1) return;
      l2.resize(std::max<uint64_t>(uint64_t(double(l2.capacity_bytes()) * share), 1 << 20));
      if (plan.segments.empty() || plan.segments[0].blocks.empty()) return;
      fetch_fraction = estimate_fetch_fraction(plan);
      l2.set_fetch_fraction(fetch_fraction);
      l2.set_fetch_fractions(fetch_ranges);
    };
    std::shared_ptr<cycle::CycleResult> timed = cycle::time_launch(kernel, cfg, gpu, options.timing, L.shared_bytes,
                                [&](uint64_t b, cycle::BlockTrace& trace) {
                                  if (!only) run_range(cursor, b);
                                  cursor = std::max(cursor, b + 1);
                                  if (stopped()) return;
                                  WorkerState& W = workers[0];
                                  uint64_t before = W.faults;
                                  W.trace = &trace;
                                  const double cpu0 = thread_cpu_seconds();
                                  run_block(L, W, b, ctl);
                                  W.cpu_seconds += thread_cpu_seconds() - cpu0;
                                  W.trace = nullptr;
                                  if (W.faults != before) faults.fetch_add(W.faults - before);
                                  blocks_done.fetch_add(1);
                                },
                                share_l2, stopped);
    if (timed && fetch_fraction < 1) {
      timed->first_read_fetch_fraction = fetch_fraction;
      std::string per_buffer;
      for (const FetchRange& r : fetch_ranges)
        per_buffer += fmt::format("{}{:.0f}% of {}'s", per_buffer.empty() ? "" : ", ", r.fraction * 100,
                                  buffer_names[r.buffer]);
      timed->sample_note += fmt::format(
          "; of the lines it misses in L2, the slice fetches {} from DRAM, the blocks on other SMs that read them "
          "too the rest (estimated from its grid neighbours)",
          per_buffer.empty() ? fmt::format("{:.0f}%", fetch_fraction * 100) : per_buffer);
    }
    timing = std::move(timed);
    if (!only) run_range(cursor, total_blocks);
  } else {
    run_range(0, total_blocks);
  }
  if (options.progress) options.progress(blocks_done.load(), total_blocks);

  LaunchResult result;
  KernelMetrics& m = result.metrics;
  m.per_pc.assign(kernel.code.size(), PcCounters{});
  for (WorkerState& W : workers) {
    m.sim_cpu_seconds += W.cpu_seconds;
    for (size_t i = 0; i < m.per_pc.size(); ++i) m.per_pc[i].add(W.per_pc[i]);
    m.barriers += W.barriers;
    for (KernelError& e : W.errors) {
      auto it = std::find_if(result.errors.begin(), result.errors.end(), [&](const KernelError& x) {
        return x.kind == e.kind && x.line == e.line && (e.line != 0 || x.ptx_line == e.ptx_line);
      });
      if (it != result.errors.end()) {
        it->count += e.count;  // and the first few offenders of both
        for (const auto& o : e.offenders)
          if (it->offenders.size() < KernelError::kMaxOffenders) it->offenders.push_back(o);
      }
      else result.errors.push_back(std::move(e));
    }
  }
  merge_printf(workers, result);
  if (options.record_global_ranges) merge_ranges(workers, result);
  const uint64_t done = blocks_done.load();
  const uint64_t warps_per_block = (block_threads + kWarpSize - 1) / kWarpSize;
  m.blocks = done;
  m.warps = done * warps_per_block;
  m.threads = done * block_threads;
  m.warp_insts_by_warp = std::move(warp_insts_by_warp);
  m.global_requests_by_warp = std::move(global_requests_by_warp);
  m.cycle = std::move(timing);
  result.cancelled = ctl.cancelled.load();
  result.ok = result.errors.empty() && !result.cancelled;
  m.sim_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace lab::sim
