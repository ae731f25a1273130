// lab/sim/report.cpp: per-pc counters -> issue 3's metrics, per-line table,
// predicted time and a readable report.
#include "lab/sim/report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "lab/sim/cycle/summary.h"

namespace lab::sim {

using ptx::Op;
using ptx::Space;

namespace {

std::string human_bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.2f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} KB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

std::string human_flops(double f) {
  if (f >= 1e12) return fmt::format("{:.1f} TFLOP/s", f / 1e12);
  if (f >= 1e9) return fmt::format("{:.1f} GFLOP/s", f / 1e9);
  return fmt::format("{:.1f} MFLOP/s", f / 1e6);
}

void add_line_hints(LineMetrics& l) {
  if (l.global_requests && l.global_sectors) {
    double spr = l.sectors_per_request();
    if (spr >= 8.0 && l.global_sectors >= 2 * l.global_requests) {
      // Useful bytes vs fetched bytes says whether the sectors were needed.
      l.hints.push_back(fmt::format(
          "{:.0f} sectors per request: {} access, not coalesced; make consecutive threads (threadIdx.x) "
          "touch consecutive addresses",
          spr, spr >= 31.5 ? "stride-N" : "strided"));
    }
  }
  if (l.shared_requests && l.bank_conflicts()) {
    double way = double(l.shared_wavefronts) / double(std::max<uint64_t>(1, l.shared_ideal_wavefronts));
    if (way >= 1.5)
      l.hints.push_back(fmt::format(
          "{:.0f}-way shared-memory bank conflicts ({:.1f} wavefronts per request, {:.1f} ideal): pad the "
          "array (e.g. [32][33]) or change the index so lanes hit different banks",
          way, double(l.shared_wavefronts) / l.shared_requests, double(l.shared_ideal_wavefronts) / l.shared_requests));
  }
  if (l.divergent_branches && l.warp_insts && l.warp_efficiency() < 0.9)
    l.hints.push_back(fmt::format(
        "divergent branch: warps split {} times, {:.0f}% of lanes active on average", l.divergent_branches,
        l.warp_efficiency() * 100));
}

}  // namespace

KernelReport build_report(const CompiledKernel& k, const LaunchConfig& config, const KernelMetrics& metrics) {
  return build_report(k.module(), k.kernel(), config, metrics, *k.gpu, k.resources());
}

KernelReport build_report(const ptx::Module& module, const ptx::Kernel& kernel, const LaunchConfig& config,
                          const KernelMetrics& metrics, const GpuModel& gpu, const compile::ResourceUsage* usage) {
  KernelReport r;
  r.kernel = kernel.name;
  r.gpu = &gpu;
  r.config = config;

  // ---- per pc -> totals and lines (line_fold.h, the one fold) -------------------------
  const LineFold fold = fold_lines(module, kernel, metrics);
  const LineCounts& t = fold.total;
  const AccessCounts& a = t.access;
  r.warp_insts = t.warp_insts;
  r.thread_insts = t.thread_insts;
  const uint64_t active_lanes = t.active_lanes;
  r.dram_read_bytes = t.dram_read_bytes;
  r.dram_write_bytes = t.dram_write_bytes;
  r.flops = t.flops;
  // The report's kinds: atomics on global memory stand alone; on shared and
  // local memory they are read-modify-writes counted with the loads.
  auto sum = [](MemoryCounts x, const MemoryCounts& y) { x.add(y); return x; };
  r.global_load = a.global_load;
  r.global_store = a.global_store;
  r.global_atomic = a.global_atomic;
  r.local_load = sum(a.local_load, a.local_atomic);
  r.local_store = a.local_store;
  r.shared_load = sum(a.shared_load, a.shared_atomic);
  r.shared_store = a.shared_store;
  r.shared_atomic = a.shared_atomic;
  for (const LineCounts& lc : fold.lines) {
    const AccessCounts& la = lc.access;
    LineMetrics l;
    l.file = lc.file;
    l.line = lc.line;
    l.warp_insts = lc.warp_insts;
    l.thread_insts = lc.thread_insts;
    l.active_lanes = lc.active_lanes;
    l.divergent_branches = lc.divergent_branches;
    l.dram_bytes = lc.dram_read_bytes + lc.dram_write_bytes;
    l.flops = lc.flops;
    for (const MemoryCounts* m : {&la.global_load, &la.global_store, &la.global_atomic, &la.local_load,
                                  &la.local_store, &la.local_atomic}) {
      l.global_requests += m->requests;
      l.global_sectors += m->sectors;
    }
    for (const MemoryCounts* m : {&la.shared_load, &la.shared_store, &la.shared_atomic}) {
      l.shared_requests += m->requests;
      l.shared_wavefronts += m->wavefronts;
      l.shared_ideal_wavefronts += m->ideal_wavefronts;
    }
    add_line_hints(l);
    r.lines.push_back(std::move(l));
  }
  r.warp_execution_efficiency = r.warp_insts ? double(active_lanes) / (32.0 * double(r.warp_insts)) : 0;
  // The cycle model's issues and stalls per pc, onto the lines (same .loc mapping as the fold).
  if (metrics.cycle) {
    const std::string none;
    for (size_t pc = 0; pc < std::min(kernel.code.size(), metrics.cycle->per_pc.size()); ++pc) {
      const cycle::PcCycles& pcc = metrics.cycle->per_pc[pc];
      if (!pcc.issued) continue;
      const ptx::Instr& in = kernel.code[pc];
      const ptx::SourceLoc loc = in.loc < kernel.locs.size() ? kernel.locs[in.loc] : ptx::SourceLoc{};
      const std::string& file = loc.file < module.files.size() ? module.files[loc.file] : none;
      for (LineMetrics& l : r.lines)
        if (l.line == loc.line && (l.file == file || l.line == 0)) {
          l.issued += pcc.issued;
          for (size_t i = 0; i < l.stall.size(); ++i) l.stall[i] += pcc.stall[i];
          break;
        }
    }
  }
  std::stable_sort(r.lines.begin(), r.lines.end(),
                   [](const LineMetrics& a, const LineMetrics& b) { return a.warp_insts > b.warp_insts; });

  // ---- resources, occupancy, schedule, prediction -----------------------------------
  r.resources_from_ptxas = usage != nullptr;
  r.registers_per_thread = usage ? usage->registers : 32;
  int static_shared = usage ? usage->static_shared_bytes : int(kernel.static_shared_bytes);
  r.shared_bytes_per_block = static_shared + int(config.dynamic_shared_bytes);
  const uint32_t block_threads = uint32_t(config.block.count());
  r.occupancy = compute_occupancy(gpu, OccupancyInput{int(block_threads), r.registers_per_thread, static_shared,
                                                      int(config.dynamic_shared_bytes)});
  r.schedule = schedule_blocks(gpu, config.grid.count(), block_threads, uint32_t(r.occupancy.blocks_per_sm));
  // The analytic terms stay as the roofline's bounds; the time is the cycle model's.
  r.predicted = predict_time(kernel, metrics, gpu, r.schedule);
  r.cycle = metrics.cycle;
  if (r.cycle) {
    cycle::apply_prediction(r.predicted, *r.cycle, gpu);
    r.schedule.achieved_occupancy = r.cycle->achieved_occupancy();  // from the modelled residency
  } else {
    r.predicted.time_s = r.predicted.time_ms = 0;
    r.predicted.predicted_flops = 0;
    r.predicted.explanation = "no predicted time: the launch ran with timing off (SimOptions::timing)";
  }

  // ---- kernel-level hints ------------------------------------------------------------
  if (!r.resources_from_ptxas)
    r.hints.push_back("registers per thread unknown (ptxas did not run): occupancy assumes 32");
  if (r.occupancy.occupancy < 0.5)
    for (const auto& a : r.occupancy.advice) r.hints.push_back("occupancy " + fmt::format("{:.0f}%", r.occupancy.occupancy * 100) + ": " + a);
  if (r.schedule.blocks < uint64_t(gpu.sm_count))
    r.hints.push_back(fmt::format("only {} blocks for {} SMs: {} SMs stay idle; use more, smaller blocks",
                                  r.schedule.blocks, gpu.sm_count, gpu.sm_count - int(r.schedule.blocks)));
  else if (r.schedule.waves > 1 && r.schedule.waves <= 4 && r.schedule.tail_fill < 0.5)
    r.hints.push_back(fmt::format(
        "tail effect: {:.2f} waves; the last wave fills {:.0f}% of the GPU's block slots", r.schedule.waves_fractional,
        r.schedule.tail_fill * 100));
  return r;
}

const LineMetrics* KernelReport::line(uint32_t source_line) const {
  for (const auto& l : lines)
    if (l.line == source_line) return &l;
  return nullptr;
}

nlohmann::json KernelReport::to_metrics_json() const {
  nlohmann::json j;
  j["global_load_requests"] = global_load.requests;
  j["global_load_sectors"] = global_load.sectors;
  j["global_store_requests"] = global_store.requests;
  j["global_store_sectors"] = global_store.sectors;
  // Atomics (atom and red): requests, and the same-address updates the
  // hardware applies one after another (memory_cost.h same_address_lanes).
  j["global_atomic_requests"] = global_atomic.requests;
  j["global_atomic_serial_updates"] = global_atomic.serial_updates;
  j["shared_atomic_requests"] = shared_atomic.requests;
  j["shared_atomic_serial_updates"] = shared_atomic.serial_updates;
  j["shared_load_requests"] = shared_load.requests;
  j["shared_load_wavefronts"] = shared_load.wavefronts;
  j["shared_load_bank_conflicts"] = shared_load.bank_conflicts();
  j["shared_store_requests"] = shared_store.requests;
  j["shared_store_wavefronts"] = shared_store.wavefronts;
  j["shared_store_bank_conflicts"] = shared_store.bank_conflicts();
  j["warp_execution_efficiency"] = warp_execution_efficiency;
  j["dram_read_bytes"] = dram_read_bytes;
  j["dram_write_bytes"] = dram_write_bytes;
  j["flops"] = flops;
  j["registers_per_thread"] = registers_per_thread;
  j["shared_bytes_per_block"] = shared_bytes_per_block;
  j["blocks_per_sm"] = occupancy.blocks_per_sm;
  j["theoretical_occupancy"] = occupancy.occupancy;
  j["achieved_occupancy"] = schedule.achieved_occupancy;
  j["occupancy_limiter"] = limiter_name(occupancy.limiter);
  j["thread_instructions"] = thread_insts;
  j["warp_instructions"] = warp_insts;
  return j;
}

nlohmann::json KernelReport::to_predicted_json() const {
  const Prediction& p = predicted;
  nlohmann::json j;
  j["label"] = "prediction";  // a model's estimate, never a measurement
  j["gpu"] = p.gpu;
  j["time_ms"] = p.time_ms;
  j["bound"] = p.bound;
  j["limiter"] = p.limiter;
  j["flops"] = p.flops;
  j["dram_bytes"] = p.dram_bytes;
  j["arithmetic_intensity"] = p.ai_defined ? nlohmann::json(p.arithmetic_intensity) : nlohmann::json(nullptr);
  j["peak_flops"] = p.peak_flops;
  j["peak_kind"] = p.peak_kind;
  j["attainable_flops"] = p.attainable_flops;
  j["predicted_flops"] = p.predicted_flops;
  j["ridge_intensity"] = p.ridge_intensity;
  j["dram_bandwidth"] = gpu ? gpu->dram_bytes_per_s : 0;
  j["waves"] = schedule.waves;
  j["waves_fractional"] = schedule.waves_fractional;
  j["tail_fill"] = schedule.tail_fill;
  j["cycles_per_sm"] = {{"issue", p.c_issue},   {"fp32", p.c_fp32},     {"fp64", p.c_fp64},
                        {"int", p.c_int},       {"sfu", p.c_sfu},       {"tensor", p.c_tensor},
                        {"l1_shared", p.c_l1_shared}, {"l2", p.c_l2}, {"dram", p.c_dram},
                        {"latency", p.c_latency}, {"wave", p.wave_cycles}, {"total", p.total_cycles}};
  j["cycles_per_sm_label"] = "analytic bounds per SM (roofline explanation), not the predicted time";
  j["explanation"] = p.explanation;
  j["source"] = cycle ? "cycle model" : "none (timing off)";
  if (cycle) j["cycle_model"] = cycle::cycle_json(*cycle);
  return j;
}

nlohmann::json KernelReport::to_lines_json() const {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& l : lines) {
    nlohmann::json j;
    j["file"] = l.file;
    j["line"] = l.line;
    j["warp_instructions"] = l.warp_insts;
    j["thread_instructions"] = l.thread_insts;
    j["requests"] = l.global_requests + l.shared_requests;
    j["global_requests"] = l.global_requests;
    j["sectors"] = l.global_sectors;
    j["sectors_per_request"] = l.sectors_per_request();
    j["shared_requests"] = l.shared_requests;
    j["wavefronts"] = l.shared_wavefronts;
    j["bank_conflicts"] = l.bank_conflicts();
    j["divergent_branches"] = l.divergent_branches;
    j["warp_execution_efficiency"] = l.warp_efficiency();
    j["dram_bytes"] = l.dram_bytes;
    j["flops"] = l.flops;
    if (cycle) {
      j["issued"] = l.issued;
      j["stalls"] = cycle::stall_json(l.stall);
      const auto top = cycle::top_stalls(l.stall);
      j["top_stall"] = top.empty() ? nlohmann::json(nullptr) : nlohmann::json(cycle::stall_name(top.front().first));
    }
    j["hints"] = l.hints;
    a.push_back(std::move(j));
  }
  return a;
}

std::string KernelReport::text(size_t max_lines) const {
  const Prediction& p = predicted;
  std::string s;
  auto add = [&](const std::string& x) { s += x; s += '\n'; };
  add(fmt::format("Machine model: {} on {} (grid {}x{}x{}, block {}x{}x{})", kernel, gpu ? gpu->name : "?",
                  config.grid.x, config.grid.y, config.grid.z, config.block.x, config.block.y, config.block.z));
  add(fmt::format("  PREDICTED time   {:.4g} ms  ({}-bound: {})", p.time_ms, p.bound, p.limiter));
  if (p.limiter == "block_scheduler" && gpu) add("  block scheduler  " + cycle::block_scheduler_advice(*gpu));
  if (cycle) s += cycle::cycle_text(*cycle);
  else add("  (timing off: no predicted time)");
  if (p.ai_defined)
    add(fmt::format("  roofline         {:.2f} FLOP/byte; attainable {}, predicted {} (peak {} {})",
                    p.arithmetic_intensity, human_flops(p.attainable_flops), human_flops(p.predicted_flops),
                    p.peak_kind, human_flops(p.peak_flops)));
  add(fmt::format("  occupancy        {:.0f}% theoretical, {:.0f}% achieved; {} blocks/SM, limited by {}",
                  occupancy.occupancy * 100, schedule.achieved_occupancy * 100, occupancy.blocks_per_sm,
                  limiter_name(occupancy.limiter)));
  add(fmt::format("  waves            {:.2f} ({} blocks, {} per wave)", schedule.waves_fractional, schedule.blocks,
                  schedule.blocks_per_wave));
  add(fmt::format("  resources        {} registers/thread{}, {} B shared/block", registers_per_thread,
                  resources_from_ptxas ? "" : " (assumed)", shared_bytes_per_block));
  add(fmt::format("  global loads     {} requests, {} sectors ({:.1f} per request)", global_load.requests,
                  global_load.sectors, global_load.sectors_per_request()));
  add(fmt::format("  global stores    {} requests, {} sectors ({:.1f} per request)", global_store.requests,
                  global_store.sectors, global_store.sectors_per_request()));
  // Atomics: what they cost is the same-address updates applied one at a time.
  if (global_atomic.requests)
    add(fmt::format("  global atomics   {} requests, {} sectors, {} same-address updates applied one at a time",
                    global_atomic.requests, global_atomic.sectors, global_atomic.serial_updates));
  if (shared_atomic.requests)
    add(fmt::format("  shared atomics   {} requests (counted with the shared loads), {} same-address updates",
                    shared_atomic.requests, shared_atomic.serial_updates));
  if (shared_load.requests || shared_store.requests) {
    add(fmt::format("  shared loads     {} requests, {} wavefronts, {} bank conflicts", shared_load.requests,
                    shared_load.wavefronts, shared_load.bank_conflicts()));
    add(fmt::format("  shared stores    {} requests, {} wavefronts, {} bank conflicts", shared_store.requests,
                    shared_store.wavefronts, shared_store.bank_conflicts()));
  }
  add(fmt::format("  DRAM             {} read, {} written (L2 model)", human_bytes(double(dram_read_bytes)),
                  human_bytes(double(dram_write_bytes))));
  add(fmt::format("  warp efficiency  {:.1f}%   flops {:.4g}", warp_execution_efficiency * 100, flops));
  if (!lines.empty()) {
    add("  hottest lines (warp instructions, sectors/request, wavefronts, conflicts):");
    size_t shown = 0;
    for (const auto& l : lines) {
      if (shown++ >= max_lines) break;
      std::string where = l.line ? fmt::format("{}:{}", l.file.empty() ? "?" : l.file, l.line) : "(no line)";
      std::string mem;
      if (l.global_requests) mem += fmt::format("  {:.1f} sec/req", l.sectors_per_request());
      if (l.shared_requests) mem += fmt::format("  {} wavefronts, {} conflicts", l.shared_wavefronts, l.bank_conflicts());
      if (cycle) {
        const auto top = cycle::top_stalls(l.stall);
        if (!top.empty()) mem += fmt::format("  stalls: {} {:.0f}%", cycle::stall_name(top.front().first), top.front().second * 100);
      }
      add(fmt::format("    {:<28} {:>12}{}", where, l.warp_insts, mem));
      for (const auto& h : l.hints) add(fmt::format("      line {}: {}", l.line, h));
    }
  }
  for (const auto& h : hints) add("  hint: " + h);
  return s;
}

}  // namespace lab::sim
