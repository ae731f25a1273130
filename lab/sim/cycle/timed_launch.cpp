// lab/sim/cycle/timed_launch.cpp: sample plan -> traced blocks -> slice
// simulations -> the predicted kernel time (timed_launch.h).
//
// Work budget: with an automatic slice the first timed block (block 0 on
// SM 0, the same block for every slice size) is run first, and its warp
// instruction count decides how many SMs the slice gets (1 to 8; to 16 for a
// launch of one wave; no fewer than TimingOptions::min_slice_sms), so that
// the timed sample stays near the budget (TimingOptions::timed_warp_insts,
// kDefaultTimedWarpInsts). The interpreter runs the timed blocks on a second
// thread, ahead of the cycle model, in block order.
#include "lab/sim/cycle/timed_launch.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <condition_variable>
#include <ctime>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "lab/sim/cycle/decode.h"
#include "lab/sim/cycle/engine.h"
#include "lab/sim/cycle/hoist.h"
#include "lab/sim/cycle/unroll.h"
#include "lab/sim/cycle/params.h"
#include "lab/sim/cpu_clock.h"
#include "lab/sim/cycle/sample.h"
#include "lab/sim/occupancy.h"

namespace lab::sim::cycle {

// thread_cpu_seconds() (cpu_clock.h) is the calling thread's: the cycle
// model's time is this thread's plus its helper's (a second segment at
// once); the interpreter runs on the prefetch thread.

namespace {

uint64_t warp_insts(const BlockTrace& t) {
  uint64_t n = 0;
  for (const auto& w : t.warps) n += w.insts.size();
  return n;
}

// Runs the timed blocks in order on one thread, at most `ahead` blocks before
// the one the cycle model waits for.
class Prefetcher {
 public:
  Prefetcher(std::vector<uint64_t> order, size_t ahead, std::function<std::unique_ptr<BlockTrace>(uint64_t)> make)
      : order_(std::move(order)), ahead_(std::max<size_t>(1, ahead)), make_(std::move(make)) {}
  ~Prefetcher() { stop(); }
  void put(uint64_t block, std::unique_ptr<BlockTrace> t) {
    std::lock_guard<std::mutex> lock(m_);
    ready_[block] = std::move(t);
    ++next_;
  }
  void start() { thread_ = std::thread([this] { loop(); }); }
  std::unique_ptr<BlockTrace> take(uint64_t block) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return ready_.count(block) || done_; });
    auto it = ready_.find(block);
    std::unique_ptr<BlockTrace> t;
    if (it != ready_.end()) t = std::move(it->second), ready_.erase(it);
    ++taken_;
    cv_.notify_all();
    return t ? std::move(t) : std::make_unique<BlockTrace>();
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(m_);
      quit_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop() {
    for (;;) {
      uint64_t b;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return quit_ || next_ >= order_.size() || next_ < taken_ + ahead_; });
        if (quit_ || next_ >= order_.size()) break;
        b = order_[next_];
      }
      auto t = make_(b);
      std::lock_guard<std::mutex> lock(m_);
      ready_[b] = std::move(t);
      ++next_;
      cv_.notify_all();
    }
    std::lock_guard<std::mutex> lock(m_);
    done_ = true;
    cv_.notify_all();
  }
  std::vector<uint64_t> order_;
  size_t ahead_;
  std::function<std::unique_ptr<BlockTrace>(uint64_t)> make_;
  std::mutex m_;
  std::condition_variable cv_;
  std::map<uint64_t, std::unique_ptr<BlockTrace>> ready_;
  size_t next_ = 0, taken_ = 0;
  bool quit_ = false, done_ = false;
  std::thread thread_;
};

}  // namespace

std::shared_ptr<CycleResult> time_launch(const ptx::Kernel& kernel, const LaunchConfig& cfg, const GpuModel& gpu,
                                         const TimingOptions& options, uint32_t shared_bytes_per_block,
                                         const BlockRunner& run_traced, const PlanListener& on_plan,
                                         const std::function<bool()>& stop) {
  auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = thread_cpu_seconds();
  auto r = std::make_shared<CycleResult>();
  const CycleParams p = cycle_params(gpu);
  const DecodedKernel dk = decode_kernel(kernel, p);
  const uint32_t block_threads = uint32_t(cfg.block.count());
  const uint32_t warps_per_block = (block_threads + 31) / 32;
  int bps = 1;
  try {
    bps = compute_occupancy(gpu, OccupancyInput{int(block_threads),
                                                options.registers_per_thread > 0 ? options.registers_per_thread : 32,
                                                int(kernel.static_shared_bytes), int(cfg.dynamic_shared_bytes)})
              .blocks_per_sm;
  } catch (const std::exception&) {
    bps = 1;  // the report names the occupancy problem; time it as one block per SM
  }
  if (options.max_blocks_per_sm) bps = std::min(bps, int(options.max_blocks_per_sm));
  bps = std::max(1, bps);
  const uint32_t sms = uint32_t(std::max(1, gpu.sm_count));
  std::mutex interp_m;
  double interpreter_s = 0;  // time spent running the timed blocks in the interpreter
  HoistMemo hoist_memo;      // the load orders of the launch's trace shapes, each worked out once
  auto make = [&](uint64_t b) {
    auto t = std::make_unique<BlockTrace>();
    t->block = b;
    t->warps.resize(warps_per_block);
    auto i0 = std::chrono::steady_clock::now();
    run_traced(b, *t);
    // The SASS's shape (merged loads, unrolled loops: unroll.h) and load
    // order (hoist.h), not the PTX's; on this, the prefetch thread.
    for (WarpTrace& w : t->warps) {
      apply_sass_shape(dk, w);
      hoist_loads(dk, w, &hoist_memo);
    }
    std::lock_guard<std::mutex> lock(interp_m);
    interpreter_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - i0).count();
    return t;
  };

  SamplePlan plan;
  std::unique_ptr<BlockTrace> probe;
  uint64_t probe_block = 0;
  double probe_s = 0, probe_cpu_s = 0;
  if (options.mode == TimingMode::Full) {
    plan = plan_sample(cfg.grid.count(), sms, uint32_t(bps), sms);
  } else if (options.slice_sms) {
    plan = plan_sample(cfg.grid.count(), sms, uint32_t(bps), options.slice_sms);
  } else {
    plan = plan_sample(cfg.grid.count(), sms, uint32_t(bps), kMaxAutoSliceSms);
    if (!plan.full && !plan.segments.empty() && !plan.segments[0].blocks.empty()) {
      // Probe: the first timed block, whatever the slice size.
      probe_block = plan.segments[0].blocks[0];
      auto p0 = std::chrono::steady_clock::now();
      const double pc0 = thread_cpu_seconds();
      probe = make(probe_block);
      probe_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
      probe_cpu_s = thread_cpu_seconds() - pc0;
      const SamplePlan one = plan_sample(cfg.grid.count(), sms, uint32_t(bps), 1);
      uint64_t per_sm_blocks = 0;
      for (const auto& s : one.segments) per_sm_blocks += s.blocks.size();
      const double per_slice_sm = double(std::max<uint64_t>(1, warp_insts(*probe))) * double(per_sm_blocks);
      const uint32_t cap = plan.waves <= 1 ? kMaxAutoSliceSmsOneWave : kMaxAutoSliceSms;
      const double budget = options.timed_warp_insts > 0 ? options.timed_warp_insts : kDefaultTimedWarpInsts;
      const double least = std::clamp(double(options.min_slice_sms), 1.0, double(cap));
      const uint32_t S = uint32_t(std::clamp(budget / per_slice_sm, least, double(cap)));
      plan = plan_sample(cfg.grid.count(), sms, uint32_t(bps), S);
    }
  }

  if (on_plan) on_plan(plan);
  r->sampled = !plan.full;
  r->slice_sms = plan.slice_sms;
  r->sm_count = sms;
  r->blocks_per_sm = uint32_t(bps);
  r->blocks_total = plan.blocks;
  r->waves = double(plan.blocks) / (double(r->sm_count) * bps);
  r->max_warps_per_sm = uint32_t(p.max_warps_per_sm);
  r->schedulers_per_sm = uint32_t(p.schedulers);
  r->launch_overhead_s = p.launch_overhead_s;
  r->per_pc.resize(kernel.code.size());

  std::vector<uint64_t> order;
  for (const auto& s : plan.segments) order.insert(order.end(), s.blocks.begin(), s.blocks.end());
  Prefetcher pre(order, size_t(2) * plan.slice_sms * uint32_t(bps), make);
  if (probe) pre.put(probe_block, std::move(probe));
  pre.start();
  TraceSource source = [&](uint64_t b) { return pre.take(b); };

  SliceConfig sc;
  sc.sms = plan.slice_sms;
  sc.blocks_per_sm = uint32_t(bps);
  sc.warps_per_block = warps_per_block;
  sc.shared_bytes_per_block = shared_bytes_per_block;
  sc.bandwidth_share = plan.bandwidth_share;
  sc.tail_first_block = plan.tail_first_block;
  sc.tail_bandwidth_share = plan.tail_bandwidth_share;
  sc.events = options.events;
  sc.stop = stop;
  // The segments are independent simulations (each a fresh slice). Each
  // counts into a part of its own, added to the result in segment order
  // (add_segment), so running two at once, on a second thread beside this
  // one, gives the result running them in turn gives; the interpreter feeds
  // both, in block order, from the prefetch thread. With the live view's
  // event stream they run in turn straight into the result (its cap counts
  // the launch's events, not a segment's).
  const size_t nseg = plan.segments.size();
  std::vector<SliceRun> runs(nseg);
  std::vector<CycleResult> parts(options.events ? 0 : nseg);
  unsigned threads = options.segment_threads ? options.segment_threads
                                             : std::min(2u, std::max(1u, std::thread::hardware_concurrency()));
  if (options.events) threads = 1;
  threads = unsigned(std::min<size_t>(threads, std::max<size_t>(1, nseg)));
  std::atomic<size_t> next_segment{0};
  // Time this thread waited for the interpreter (model_seconds leaves it out).
  double waiting_s = 0;
  auto work = [&](double& waiting) {
    for (size_t i; (i = next_segment++) < nseg;) {
      SliceConfig c = sc;
      c.segment = uint8_t(i);
      TraceSource timed_source = [&](uint64_t b) {
        auto w0 = std::chrono::steady_clock::now();
        auto t = source(b);
        waiting += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        return t;
      };
      runs[i] = simulate_slice(dk, p, c, plan.segments[i].blocks, timed_source, options.events ? *r : parts[i]);
      if (runs[i].stopped) next_segment = nseg;  // cancelled: the other segments need not start
    }
  };
  std::mutex helper_m;
  double helper_cpu_s = 0;
  std::exception_ptr helper_error;
  std::vector<std::thread> helpers;
  for (unsigned k = 1; k < threads; ++k)
    helpers.emplace_back([&] {
      const double c0 = thread_cpu_seconds();
      double waited = 0;
      std::exception_ptr error;
      try {
        work(waited);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(helper_m);
      helper_cpu_s += thread_cpu_seconds() - c0;
      if (error && !helper_error) helper_error = error;
    });
  try {
    work(waiting_s);
  } catch (...) {
    next_segment = nseg;  // the helpers stop after their current segment
    for (std::thread& h : helpers) h.join();
    throw;
  }
  for (std::thread& h : helpers) h.join();
  if (helper_error) std::rethrow_exception(helper_error);
  std::vector<uint64_t> seg_cycles;
  bool deadlock = false;
  for (size_t i = 0; i < nseg; ++i) {
    const SampleSegmentPlan& seg = plan.segments[i];
    if (!options.events) add_segment(*r, parts[i]);
    deadlock |= runs[i].deadlock;
    seg_cycles.push_back(runs[i].cycles);
    r->blocks_timed += seg.blocks.size();
    r->segments.push_back(SampleSegment{seg.what, seg.blocks.empty() ? 0 : seg.blocks.front(), seg.blocks.size(),
                                        runs[i].cycles});
  }
  pre.stop();
  const double steady_wave = nseg == 3 ? steady_wave_cycles(plan.segments[1], runs[1].done_cycle) : 0;
  // The middle segment's busiest shared path, per wave: DRAM and L2 at the
  // slice's share of their rates, the L1 data path per SM (a mean over the
  // slice, so no more than the busiest SM's). (With the event stream the
  // segments count into one result: no floor.)
  double busiest_wave = 0;
  if (nseg == 3 && !options.events) {
    const CycleResult& mid = parts[1];
    const double l2 = double(mid.l2_sectors) * 32.0 / std::max(1e-9, p.l2_bytes_per_cycle * plan.bandwidth_share);
    busiest_wave = std::max({mid.dram_busy_cycles, l2, double(mid.l1_busy_cycles) / double(plan.slice_sms)}) /
                   double(plan.segments[1].waves);
  }
  r->cycles = stitch_cycles(plan, seg_cycles, steady_wave, busiest_wave, double(p.block_turnaround));
  r->time_s = r->cycles / p.clock_hz + p.launch_overhead_s;
  r->outputs_incomplete = options.sample_only && !plan.full;
  uint64_t simulated = 0;
  for (uint64_t c : seg_cycles) simulated += c;
  if (simulated) {
    const double share = plan.bandwidth_share;
    r->dram_utilisation = r->dram_busy_cycles / double(simulated);
    r->l2_utilisation = double(r->l2_sectors) * 32.0 / (double(simulated) * p.l2_bytes_per_cycle * share);
  }
  if (r->active_sm_cycles) r->l1_utilisation = double(r->l1_busy_cycles) / double(r->active_sm_cycles);
  if (plan.full) {
    r->sample_note = fmt::format("every block ({}) simulated cycle by cycle on all {} SMs", plan.blocks, plan.slice_sms);
  } else {
    std::string segs;
    for (const auto& s : r->segments) segs += (segs.empty() ? "" : "; ") + s.what;
    r->sample_note = fmt::format(
        "sampled: {} of {} blocks simulated cycle by cycle on a slice of {} of {} SMs ({}), with {:.0f}% of the L2 "
        "and DRAM bandwidth{}",
        r->blocks_timed, plan.blocks, plan.slice_sms, r->sm_count, segs, plan.bandwidth_share * 100,
        plan.middle_waves_scaled ? fmt::format("; {} middle waves counted at the steady per-wave rate",
                                               plan.middle_waves_scaled)
                                 : std::string());
  }
  if (deadlock) r->sample_note += "; a barrier never completed in the timed blocks (see the kernel's errors)";
  // The model's own time: wall time less the waits for the interpreter (which
  // runs on its own thread) and the probe block run before the plan.
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r->model_seconds = std::max(0.0, wall - waiting_s - probe_s);
  r->interpreter_seconds = interpreter_s;
  r->model_cpu_seconds = std::max(0.0, thread_cpu_seconds() - cpu0 - probe_cpu_s) + helper_cpu_s;
  return r;
}

}  // namespace lab::sim::cycle
