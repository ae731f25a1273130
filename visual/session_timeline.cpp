// visual/session_timeline.cpp: the timeline pane's data. The kernel on
// screen is timed twice by the cycle-level SM model (lab/sim/cycle), with
// its per-warp event stream on: once with at most one resident block per
// SM, once at the occupancy limit. Both runs time a one-SM slice and run
// only the blocks the model times (TimingOptions::sample_only), so this costs
// a few seconds, on its own thread, and only when the pane asks for it.
// The drawn SM is the slice's SM in the model's first sample segment.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "lab/gemm/gemm_problem.h"
#include "lab/gemm/gemm_sim.h"
#include "lab/sim/cycle/result.h"
#include "lab/sim/cycle/stall.h"
#include "lab/sim/occupancy.h"
#include "visual/session_impl.h"

namespace lab::visual {

namespace {

namespace cyc = sim::cycle;

// Timing options of one side: a one-SM slice, only the timed blocks, events on.
sim::TimingOptions timeline_timing(uint32_t max_blocks_per_sm) {
  sim::TimingOptions t;
  t.mode = sim::TimingMode::Sampled;
  t.sample_only = true;
  t.slice_sms = 1;
  t.events = true;
  t.max_blocks_per_sm = max_blocks_per_sm;
  return t;
}

// One side from the model's result: its numbers, and SM 0 of the slice in
// the first sample segment, warp slot by warp slot.
TimelineSide side_from(const cyc::CycleResult& r, uint32_t warps_per_block, uint32_t schedulers) {
  TimelineSide s;
  s.blocks_per_sm = r.blocks_per_sm;
  s.warps_per_block = warps_per_block;
  s.max_warps_per_sm = r.max_warps_per_sm;
  s.cycles = r.segments.empty() ? 0 : r.segments[0].cycles;
  s.segment = r.segments.empty() ? "" : r.segments[0].what;
  s.kernel_cycles = r.cycles;
  s.time_s = r.time_s;
  s.issue_utilisation = r.issue_slot_utilisation();
  s.achieved_occupancy = r.achieved_occupancy();
  s.issued = r.issued;
  s.active_sm_cycles = r.active_sm_cycles;
  s.stall.assign(r.stall.begin(), r.stall.end());
  s.note = r.sample_note;
  std::map<uint32_t, TimelineWarp> slots;
  struct Issue {
    uint64_t cycle;
    uint32_t pc;
    int32_t waited_pc;
    uint64_t waited_issue;
    bool operator<(const Issue& o) const { return cycle < o.cycle; }
  };
  std::map<uint32_t, std::vector<Issue>> issues;  // slot -> its issues
  std::map<std::pair<uint32_t, uint32_t>, TimelineRun> runs;               // (slot, block) -> its run
  auto run_of = [&](uint32_t slot, uint32_t block, uint64_t from) -> TimelineRun& {
    auto [it, fresh] = runs.try_emplace({slot, block});
    if (fresh) it->second = TimelineRun{block, from, from};
    it->second.from = std::min(it->second.from, from);
    return it->second;
  };
  auto slot_of = [&](uint32_t slot, uint32_t block_slot, uint32_t warp, uint32_t scheduler) -> TimelineWarp& {
    TimelineWarp& w = slots[slot];
    w.slot = slot, w.block_slot = block_slot, w.warp = warp, w.scheduler = scheduler;
    return w;
  };
  s.scheduler_issues.assign(schedulers, {});
  for (const cyc::IssueEvent& e : r.events) {
    if (e.sm != 0 || e.segment != 0) continue;
    const uint32_t slot = uint32_t(e.block_slot) * warps_per_block + e.warp;
    slot_of(slot, e.block_slot, e.warp, e.scheduler);
    issues[slot].push_back({e.cycle, e.pc, e.waited_pc, e.waited_issue});
    TimelineRun& run = run_of(slot, e.block, std::min(e.wait_from, e.cycle));
    run.to = std::max(run.to, e.cycle);
    if (e.scheduler < schedulers) s.scheduler_issues[e.scheduler].push_back(e.cycle);
  }
  for (const cyc::WarpSpan& sp : r.spans) {
    if (sp.sm != 0 || sp.segment != 0 || sp.to <= sp.from) continue;
    const uint32_t slot = uint32_t(sp.block_slot) * warps_per_block + sp.warp;
    TimelineWarp& w = slot_of(slot, sp.block_slot, sp.warp, sp.scheduler);
    w.waits.push_back({sp.from, sp.to, uint8_t(sp.reason)});
    TimelineRun& run = run_of(slot, sp.block, sp.from);
    run.to = std::max(run.to, sp.to);
    ++s.waits_drawn;
  }
  s.tensor.assign(schedulers, {});
  for (const cyc::AsyncSpan& a : r.async_spans) {
    if (a.sm != 0 || a.segment != 0 || a.to <= a.from) continue;
    if (a.unit == cyc::AsyncUnit::CopyEngine) s.copy_engine.emplace_back(a.from, a.to);
    else if (a.scheduler < schedulers) s.tensor[a.scheduler].emplace_back(a.from, a.to);
  }
  std::sort(s.copy_engine.begin(), s.copy_engine.end());
  for (auto& v : s.tensor) std::sort(v.begin(), v.end());
  for (const auto& [key, run] : runs) slots[key.first].runs.push_back(run);
  for (auto& [slot, w] : slots) {
    auto& is = issues[slot];
    std::sort(is.begin(), is.end());
    for (const Issue& i : is) {
      w.issues.push_back(i.cycle);
      w.pcs.push_back(i.pc);
      w.waited_pcs.push_back(i.waited_pc);
      w.waited_issues.push_back(i.waited_issue);
    }
    std::sort(w.waits.begin(), w.waits.end(), [](const TimelineWait& a, const TimelineWait& b) { return a.from < b.from; });
    std::sort(w.runs.begin(), w.runs.end(), [](const TimelineRun& a, const TimelineRun& b) { return a.from < b.from; });
    s.warps.push_back(std::move(w));
  }
  std::stable_sort(s.warps.begin(), s.warps.end(),
                   [](const TimelineWarp& a, const TimelineWarp& b) { return a.scheduler < b.scheduler; });
  for (auto& v : s.scheduler_issues) std::sort(v.begin(), v.end());
  return s;
}

// Where the cursor opens: in the longest stretch in the middle of
// the one-block side's run in which none of its schedulers issues (every
// warp waiting), so the first picture shows the idle slots the other side
// fills. The middle of the shorter run of the two, so that the other side
// is still running there (not in its tail).
uint64_t idle_stretch(const TimelineSide& s, uint64_t cycles) {
  std::vector<uint64_t> all;
  for (const auto& v : s.scheduler_issues) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  const uint64_t lo = cycles / 5, hi = cycles - cycles / 5;
  uint64_t best = 0, at = lo;
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i - 1] >= lo && all[i] <= hi && all[i] - all[i - 1] > best) best = all[i] - all[i - 1], at = all[i - 1];
  // Inside the stretch, up to 64 cycles in: the SM grid's and block view's
  // strips of the last 64 cycles then show its idle slots too.
  return at + std::min<uint64_t>(64, best / 2);
}

// Both sides: `time(max_blocks_per_sm)` runs the kernel with those timing
// options and returns the model's result.
std::shared_ptr<CycleTimeline> time_both(
    CycleTimeline t, uint32_t warps_per_block, uint64_t grid_blocks, uint32_t sm_count,
    const std::function<std::shared_ptr<const cyc::CycleResult>(uint32_t)>& time) {
  t.schedulers = 4;
  for (int i = 0; i < cyc::kStallCount; ++i) {
    t.reasons.push_back(cyc::stall_name(cyc::Stall(i)));
    t.explanations.push_back(cyc::stall_explanation(cyc::Stall(i)));
  }
  t.selected_reason = int(cyc::Stall::Selected);
  for (int side = 0; side < 2; ++side) {
    auto r = time(side == 0 ? 1 : 0);
    if (!r) throw std::runtime_error("the cycle model returned no timing for this launch");
    t.schedulers = r->schedulers_per_sm;
    t.sides[side] = side_from(*r, warps_per_block, t.schedulers);
  }
  TimelineSide& one = t.sides[0];
  TimelineSide& full = t.sides[1];
  one.title = "1 block per SM";
  full.title = fmt::format("{} block{} per SM (the occupancy limit)", full.blocks_per_sm,
                           full.blocks_per_sm == 1 ? "" : "s");
  // Both sides alike: the occupancy limit is one block, or the grid has no
  // more blocks than SMs (the model's slice then gets one block at a time).
  if (full.blocks_per_sm <= 1) {
    t.same_residency = true;
    t.residency_note = "The occupancy limit of this kernel is 1 block per SM: both sides are the same launch.";
  } else if (grid_blocks <= sm_count) {
    t.same_residency = true;
    t.residency_note = fmt::format("The grid has {} blocks for {} SMs: no SM gets a second block.", grid_blocks, sm_count);
  }
  t.open_cycle = idle_stretch(one, std::min(one.cycles, full.cycles));
  return std::make_shared<CycleTimeline>(std::move(t));
}

}  // namespace

// The GEMM version on screen, at a problem whose grid fills the GPU twice
// over at full occupancy (M = N grown by powers of two, K kept small so a
// block's work stays a few thousand cycles).
void Session::Impl::timeline_for_gemm() {
  const gemm::GemmVersion v = versions.at(version);
  const std::string gpu_name = cfg.gpu;
  const unsigned threads = 1;
  timeline_job = [v, gpu_name, threads](const std::atomic<bool>* cancel) {
    const sim::GpuModel& gpu = sim::gpu_model(gpu_name);
    sim::CompiledKernel ck = sim::compile_kernel({v.file, v.kernel, {}, {}}, gpu);
    // A TMA version's pipeline needs k-tiles to fill its stages and reach
    // its steady state (11: 3 stages of 64): K = 1024 shows 16 of them.
    const int K = v.uses_tma() ? 1024 : 256;
    sim::LaunchConfig lc = v.launch_config(256, 256, K);
    const int regs = ck.resources() ? ck.resources()->registers : 32;
    const int bps = std::max(1, sim::occupancy_blocks_per_sm(
                                    gpu, {int(lc.block.count()), regs, int(ck.kernel().static_shared_bytes),
                                          int(lc.dynamic_shared_bytes)}));
    int n = 256;
    while (n < 4096 && v.launch_config(n, n, K).grid.count() < 2ull * uint64_t(gpu.sm_count) * uint64_t(bps)) n *= 2;
    lc = v.launch_config(n, n, K);
    gemm::GemmProblem p = gemm::make_gemm_problem(n, n, K);
    CycleTimeline t;
    t.kernel = v.name;
    t.gpu = std::string(gpu.name);
    t.problem = fmt::format("M=N={}, K={}: {} blocks of {} threads for {} SMs", n, K, lc.grid.count(),
                            lc.block.count(), gpu.sm_count);
    const uint32_t wpb = uint32_t((lc.block.count() + 31) / 32);
    return time_both(std::move(t), wpb, lc.grid.count(), uint32_t(gpu.sm_count), [&](uint32_t max_bps) {
      sim::SimOptions o;
      o.gpu = &gpu;
      o.threads = threads;
      o.cancel = cancel;
      o.timing = timeline_timing(max_bps);
      gemm::SimGemmRun run = gemm::simulate_gemm(v, p, o);
      if (run.unsupported) throw std::runtime_error(run.unsupported_reason);
      return run.result.metrics.cycle;
    });
  };
}

// A user's or a lesson's kernel, at its own launch.
void Session::Impl::timeline_for_kernel(const KernelRun& run) {
  sim::RunRequest req = run.request;
  req.options = sim::SimOptions{};
  req.options.gpu = req.gpu;
  req.options.threads = 1;
  const std::string label = run.label;
  timeline_job = [req, label](const std::atomic<bool>* cancel) {
    const sim::GpuModel& gpu = *req.gpu;
    CycleTimeline t;
    t.kernel = req.kernel;
    t.gpu = std::string(gpu.name);
    const uint64_t blocks = req.launch.grid.count();
    t.problem = fmt::format("{}: {} blocks of {} threads for {} SMs", label, blocks, req.launch.block.count(),
                            gpu.sm_count);
    t.launch_on_screen = true;
    const uint32_t wpb = uint32_t((req.launch.block.count() + 31) / 32);
    return time_both(std::move(t), wpb, blocks, uint32_t(gpu.sm_count), [&](uint32_t max_bps) {
      sim::RunRequest r = req;
      r.options.cancel = cancel;
      r.options.timing = timeline_timing(max_bps);
      sim::RunOutcome out = sim::run_kernel(r);
      return out.result.metrics.cycle;
    });
  };
}

// Stops a timing in flight and forgets the last kernel's timeline.
void Session::Impl::timeline_reset() {
  timeline_cancel = true;
  if (timeline_thread.joinable()) timeline_thread.join();
  timeline_cancel = false;
  timeline_job = nullptr;
  timeline_started = false;
  {
    std::lock_guard lock(timeline_mu);
    timeline_result.reset();
  }
  auto t = std::make_shared<CycleTimeline>();
  t->status = "the cycle model times this kernel when the timeline pane is shown";
  base.timeline = t;
}

// One worker turn: start the timing once the pane asks for it, take its result.
void Session::Impl::timeline_tick(bool& dirty) {
  // No kernel on screen (also a lesson step that runs none, shown first:
  // then there never was a timeline): say so, so the pane and a screenshot
  // waiting for it do not wait forever (issue 28: 03 --step 4 never finished).
  if (!timeline_job && timeline_wanted.load() && (!base.timeline || base.timeline->status.rfind("no timeline", 0) != 0)) {
    auto t = std::make_shared<CycleTimeline>();
    t->status = "no timeline: no kernel on screen to time";
    base.timeline = t;
    dirty = true;
  }
  if (timeline_job && !timeline_started && timeline_wanted.load()) {
    timeline_started = true;
    auto t = std::make_shared<CycleTimeline>();
    t->status = "timing this kernel with the cycle model, at 1 block per SM and at the occupancy limit...";
    base.timeline = t;
    dirty = true;
    auto job = timeline_job;
    timeline_thread = std::thread([this, job] {
      std::shared_ptr<CycleTimeline> out;
      try {
        out = job(&timeline_cancel);
      } catch (const std::exception& e) {
        out = std::make_shared<CycleTimeline>();
        out->status = std::string("no timeline: ") + e.what();
      }
      std::lock_guard lock(timeline_mu);
      timeline_result = std::move(out);
    });
  }
  std::shared_ptr<const CycleTimeline> got;
  {
    std::lock_guard lock(timeline_mu);
    got.swap(timeline_result);
  }
  if (got) {
    if (timeline_thread.joinable()) timeline_thread.join();
    if (!timeline_cancel.load()) base.timeline = std::move(got);
    dirty = true;
  }
}

}  // namespace lab::visual
