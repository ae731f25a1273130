// lab/sim/cycle/timed_launch.cpp: sample plan -> traced blocks -> slice
// simulations -> the predicted kernel time (timed_launch.h).
#include "lab/sim/cycle/timed_launch.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "lab/sim/cycle/decode.h"
#include "lab/sim/cycle/engine.h"
#include "lab/sim/cycle/params.h"
#include "lab/sim/cycle/sample.h"
#include "lab/sim/occupancy.h"

namespace lab::sim::cycle {

std::shared_ptr<CycleResult> time_launch(const ptx::Kernel& kernel, const LaunchConfig& cfg, const GpuModel& gpu,
                                         const TimingOptions& options, uint32_t shared_bytes_per_block,
                                         const BlockRunner& run_traced) {
  auto t0 = std::chrono::steady_clock::now();
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
  bps = std::max(1, bps);
  const uint32_t slice = options.mode == TimingMode::Full ? uint32_t(std::max(1, gpu.sm_count)) : options.slice_sms;
  const SamplePlan plan = plan_sample(cfg.grid.count(), uint32_t(std::max(1, gpu.sm_count)), uint32_t(bps), slice);

  r->sampled = !plan.full;
  r->slice_sms = plan.slice_sms;
  r->sm_count = uint32_t(std::max(1, gpu.sm_count));
  r->blocks_per_sm = uint32_t(bps);
  r->blocks_total = plan.blocks;
  r->waves = double(plan.blocks) / (double(r->sm_count) * bps);
  r->max_warps_per_sm = uint32_t(p.max_warps_per_sm);
  r->schedulers_per_sm = uint32_t(p.schedulers);
  r->launch_overhead_s = p.launch_overhead_s;
  r->per_pc.resize(kernel.code.size());

  SliceConfig sc;
  sc.sms = plan.slice_sms;
  sc.blocks_per_sm = uint32_t(bps);
  sc.warps_per_block = warps_per_block;
  sc.shared_bytes_per_block = shared_bytes_per_block;
  sc.bandwidth_share = plan.bandwidth_share;
  sc.tail_first_block = plan.tail_first_block;
  sc.tail_bandwidth_share = plan.tail_bandwidth_share;
  sc.events = options.events;
  double interpreter_s = 0;  // time spent running the timed blocks in the interpreter
  TraceSource source = [&](uint64_t b) {
    auto t = std::make_unique<BlockTrace>();
    t->block = b;
    t->warps.resize(warps_per_block);
    auto i0 = std::chrono::steady_clock::now();
    run_traced(b, *t);
    interpreter_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - i0).count();
    return t;
  };
  std::vector<uint64_t> seg_cycles;
  std::vector<std::vector<uint64_t>> retire;
  bool deadlock = false;
  for (size_t i = 0; i < plan.segments.size(); ++i) {
    const SampleSegmentPlan& seg = plan.segments[i];
    sc.segment = uint8_t(i);
    SliceRun run = simulate_slice(dk, p, sc, seg.blocks, source, *r);
    deadlock |= run.deadlock;
    seg_cycles.push_back(run.cycles);
    retire.push_back(std::move(run.retire_cycle));
    r->blocks_timed += seg.blocks.size();
    r->segments.push_back(SampleSegment{seg.what, seg.blocks.empty() ? 0 : seg.blocks.front(), seg.blocks.size(),
                                        run.cycles});
  }
  r->cycles = stitch_cycles(plan, seg_cycles, retire);
  r->outputs_incomplete = options.sample_only && !plan.full;
  uint64_t simulated = 0;
  for (uint64_t c : seg_cycles) simulated += c;
  if (simulated) {
    const double share = plan.bandwidth_share;
    r->dram_utilisation = double(r->dram_bytes) / (double(simulated) * p.dram_bytes_per_cycle * share);
    r->l2_utilisation = double(r->l2_sectors) * 32.0 / (double(simulated) * p.l2_bytes_per_cycle * share);
  }
  if (r->active_sm_cycles) r->l1_utilisation = double(r->l1_busy_cycles) / double(r->active_sm_cycles);
  r->time_s = r->cycles / p.clock_hz + p.launch_overhead_s;
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
  r->model_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - interpreter_s;
  return r;
}

}  // namespace lab::sim::cycle
