// lab/sim/cycle/summary.cpp: cycle model -> predicted time, bound, JSON, text.
#include "lab/sim/cycle/summary.h"

#include <algorithm>

#include <fmt/format.h>

namespace lab::sim::cycle {

namespace {
// A shared resource busier than this over the timed cycles sets the pace.
constexpr double kBusy = 0.6;
}  // namespace

std::vector<std::pair<Stall, double>> top_stalls(const std::array<uint64_t, kStallCount>& stall) {
  uint64_t total = 0;
  for (int i = 1; i < kStallCount; ++i) total += stall[size_t(i)];
  std::vector<std::pair<Stall, double>> v;
  if (!total) return v;
  for (int i = 1; i < kStallCount; ++i)
    if (stall[size_t(i)]) v.emplace_back(Stall(i), double(stall[size_t(i)]) / double(total));
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return v;
}

std::string block_scheduler_advice(const GpuModel& gpu) {
  return fmt::format("places blocks at {:.2f} a clock on the {} (measured); fewer, longer-lived blocks (a grid-stride "
                     "loop) go faster",
                     gpu.blocks_dispatched_per_clock, gpu.name);
}

void apply_prediction(Prediction& p, const CycleResult& r, const GpuModel& gpu) {
  p.total_cycles = r.cycles;
  p.time_s = r.time_s;
  p.time_ms = r.time_s * 1e3;
  p.launch_overhead_s = r.launch_overhead_s;
  p.predicted_flops = p.time_s > 0 ? p.flops / p.time_s : 0;
  // Bound: a shared resource that is busy most of the time, else the issue
  // slots, else the latency the warps wait on (the top stall reason).
  const double mem = std::max({r.dram_utilisation, r.l2_utilisation, r.l1_utilisation});
  const auto stalls = top_stalls(r.stall);
  const Stall top = stalls.empty() ? Stall::Selected : stalls.front().first;
  const double drain = r.sim_cycles ? double(r.atomic_drain_cycles) / double(r.sim_cycles) : 0;
  // The cycles the GPU's block scheduler needs to place the grid, where the
  // GPU model has its measured rate (device.h blocks_dispatched_per_clock):
  // a launch that takes little longer is paced by it, whatever its warps
  // wait on meanwhile.
  const double placing = gpu.blocks_dispatched_per_clock > 0 ? double(r.blocks_total) / gpu.blocks_dispatched_per_clock : 0;
  if (placing > 0 && r.cycles <= 1.15 * placing) {
    p.bound = "latency";
    p.limiter = "block_scheduler";
  } else if (drain >= kBusy) {
    // Most of the time the warps are gone and the L2 is still applying
    // same-address atomics one at a time (engine.cpp, atomic_free_).
    p.bound = "memory";
    p.limiter = "l2_atomics";
  } else if (mem >= kBusy) {
    p.bound = "memory";
    p.limiter = r.dram_utilisation >= mem ? "dram" : r.l2_utilisation >= mem ? "l2" : "l1_shared";
  } else if (r.issue_slot_utilisation() >= kBusy || top == Stall::MathPipeThrottle || top == Stall::NotSelected) {
    p.bound = "compute";
    p.limiter = top == Stall::MathPipeThrottle ? "math_pipe" : "issue";
  } else {
    p.bound = "latency";
    p.limiter = stall_name(top);
  }
  std::string why;
  for (size_t i = 0; i < std::min<size_t>(2, stalls.size()); ++i)
    why += fmt::format("{}{} {:.0f}%", i ? ", " : "", stall_name(stalls[i].first), stalls[i].second * 100);
  p.explanation = fmt::format(
      "PREDICTED (cycle-level model, not a measurement) for {}: {:.4g} ms = {:.0f} SM cycles at {:.0f} MHz + {:.0f} us "
      "launch; {}-bound ({}). Issue slots {:.0f}% used, achieved occupancy {:.0f}%; warps mostly waited on: {}. {}.",
      gpu.name, p.time_ms, r.cycles, gpu.boost_clock_hz / 1e6, r.launch_overhead_s * 1e6, p.bound, p.limiter,
      r.issue_slot_utilisation() * 100, r.achieved_occupancy() * 100, why.empty() ? "nothing" : why, r.sample_note);
  if (p.limiter == "block_scheduler")
    p.explanation += fmt::format(" The GPU {}: its {} blocks take {:.0f} of the {:.0f} cycles to place.",
                                 block_scheduler_advice(gpu), r.blocks_total, placing, r.cycles);
}

nlohmann::json stall_json(const std::array<uint64_t, kStallCount>& stall) {
  nlohmann::json j = nlohmann::json::object();
  for (int i = 0; i < kStallCount; ++i) j[stall_name(Stall(i))] = stall[size_t(i)];
  return j;
}

nlohmann::json cycle_json(const CycleResult& r) {
  nlohmann::json j;
  j["label"] = "prediction";
  j["cycles"] = r.cycles;
  j["time_ms"] = r.time_s * 1e3;
  j["scheduler"] = r.scheduler;
  j["issue_slot_utilisation"] = r.issue_slot_utilisation();
  j["achieved_occupancy"] = r.achieved_occupancy();
  j["blocks_per_sm"] = r.blocks_per_sm;
  j["l1_hit_rate"] = r.l1_hit_rate();
  j["l2_hit_rate"] = r.l2_hit_rate();
  j["dram_bytes_timed"] = r.dram_bytes;
  j["l1_utilisation"] = r.l1_utilisation;
  j["l2_utilisation"] = r.l2_utilisation;
  j["dram_utilisation"] = r.dram_utilisation;
  j["warp_instructions_issued"] = r.issued;
  // Scalar shared loads folded into LDS.64/LDS.128 as ptxas does (decode.h).
  j["shared_loads_merged"] = r.merged_loads;
  // PTX instructions the SASS does not have, not issued (unroll.h, decode.h mark_fused).
  j["instructions_folded"] = r.folded_instructions;
  // Sampled-only runs: the share of missed reads fetched by the sample's own SMs (corunners.h).
  j["first_read_fetch_fraction"] = r.first_read_fetch_fraction;
  j["l1_busy_cycles"] = r.l1_busy_cycles;
  j["traced_sectors"] = r.traced_sectors;
  j["traced_wavefronts"] = r.traced_wavefronts;
  j["stall_warp_cycles"] = stall_json(r.stall);
  nlohmann::json top = nlohmann::json::array();
  for (const auto& [s, f] : top_stalls(r.stall))
    top.push_back({{"reason", stall_name(s)}, {"fraction", f}, {"explanation", stall_explanation(s)}});
  j["stall_reasons"] = top;
  nlohmann::json segs = nlohmann::json::array();
  for (const auto& s : r.segments)
    segs.push_back({{"what", s.what}, {"first_block", s.first_block}, {"blocks", s.blocks}, {"cycles", s.cycles}});
  j["sample"] = {{"sampled", r.sampled},       {"slice_sms", r.slice_sms},   {"sm_count", r.sm_count},
                 {"blocks_timed", r.blocks_timed}, {"blocks_total", r.blocks_total}, {"waves", r.waves},
                 {"segments", segs},            {"note", r.sample_note},      {"outputs_incomplete", r.outputs_incomplete}};
  j["model_seconds"] = r.model_seconds;
  j["model_cpu_seconds"] = r.model_cpu_seconds;
  return j;
}

std::string cycle_text(const CycleResult& r, size_t top) {
  std::string s;
  s += fmt::format("  cycle model      {:.0f} cycles; issue slots {:.0f}% used; achieved occupancy {:.0f}% "
                   "(scheduler {})\n",
                   r.cycles, r.issue_slot_utilisation() * 100, r.achieved_occupancy() * 100, r.scheduler);
  s += fmt::format("  caches           L1 hit rate {:.0f}%, L2 hit rate {:.0f}%; busy: L1/shared {:.0f}%, L2 {:.0f}%, "
                   "DRAM {:.0f}%\n",
                   r.l1_hit_rate() * 100, r.l2_hit_rate() * 100, r.l1_utilisation * 100, r.l2_utilisation * 100,
                   r.dram_utilisation * 100);
  const auto stalls = top_stalls(r.stall);
  if (!stalls.empty()) {
    s += "  warp stall reasons (share of waiting warp-cycles, Nsight Compute names):\n";
    for (size_t i = 0; i < std::min(top, stalls.size()); ++i)
      s += fmt::format("    {:<20} {:5.1f}%  {}\n", stall_name(stalls[i].first), stalls[i].second * 100,
                       stall_explanation(stalls[i].first));
  }
  s += "  timing sample    " + r.sample_note + "\n";
  if (r.outputs_incomplete)
    s += "  NOTE: --sample ran only the timed blocks: output buffers and the memory metrics are incomplete\n";
  return s;
}

}  // namespace lab::sim::cycle
