// lab/lesson/criteria.cpp: fold per-instruction counters by source line and
// judge each criterion, saying by how much and where it fails.
#include "lab/lesson/criteria.h"

#include <fmt/format.h>

#include "lab/sim/line_fold.h"

namespace lab::lesson {

// The simulator's one per-line fold (lab/sim/line_fold.h), read the
// criteria's way: global loads apart from global stores (atomics count as
// stores: read-modify-write traffic the criteria limit like writes), shared
// loads apart from shared stores, local memory not counted.
KernelFigures fold_metrics(const ptx::Module& module, const ptx::Kernel& kernel, const sim::KernelMetrics& m) {
  auto counters = [](const sim::AccessCounts& a) {
    LineCounters L;
    L.global_load_requests = a.global_load.requests;
    L.global_load_sectors = a.global_load.sectors;
    L.global_store_requests = a.global_store.requests + a.global_atomic.requests;
    L.global_store_sectors = a.global_store.sectors + a.global_atomic.sectors;
    L.shared_load_requests = a.shared_load.requests;
    L.shared_store_requests = a.shared_store.requests + a.shared_atomic.requests;
    for (const sim::MemoryCounts* s : {&a.shared_load, &a.shared_store, &a.shared_atomic}) {
      L.shared_wavefronts += s->wavefronts;
      L.shared_ideal_wavefronts += s->ideal_wavefronts;
    }
    return L;
  };
  const sim::LineFold fold = sim::fold_lines(module, kernel, m);
  KernelFigures f;
  for (const sim::LineCounts& l : fold.lines) f.lines[{l.file, l.line}] = counters(l.access);
  f.total = counters(fold.total.access);
  f.warp_insts = fold.total.warp_insts;
  f.active_lanes = fold.total.active_lanes;
  f.dram_bytes = fold.total.dram_read_bytes + fold.total.dram_write_bytes;
  f.fma_warp_insts = fold.total.fma_warp_insts;
  f.mma_warp_insts = fold.total.mma_warp_insts;
  return f;
}

namespace {

std::string quote(const std::vector<std::string>& src, uint32_t line) {
  if (line == 0 || line > src.size()) return "";
  std::string s = src[line - 1];
  size_t b = s.find_first_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b);
}

void at_line(CriterionResult& r, const std::pair<std::string, uint32_t>& key, const std::vector<std::string>& src) {
  r.file = key.first;
  r.line = key.second;
  r.source_line = quote(src, key.second);
}

std::string fmt_bytes(double b) {
  if (b >= 1e6) return fmt::format("{:.2f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} KB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

}  // namespace

CriterionResult evaluate_criterion(const Criterion& c, const KernelFigures& f, const SizeVars& sizes,
                                   const KernelFigures* baseline, const std::vector<std::string>& src) {
  CriterionResult r;
  r.name = metric_name(c.metric);
  r.evaluated = true;
  r.limit = c.value;
  switch (c.metric) {
    case Metric::MaxSectorsPerRequest: {
      bool loads = c.on != "global_stores", stores = c.on != "global_loads";
      double worst = 0;
      for (auto& [key, L] : f.lines) {
        uint64_t req = (loads ? L.global_load_requests : 0) + (stores ? L.global_store_requests : 0);
        uint64_t sec = (loads ? L.global_load_sectors : 0) + (stores ? L.global_store_sectors : 0);
        if (req == 0) continue;
        double spr = double(sec) / double(req);
        if (spr > worst) worst = spr, at_line(r, key, src);
      }
      r.measured = worst;
      r.ok = worst <= c.value;
      std::string what = c.on == "global_loads" ? "global loads" : c.on == "global_stores" ? "global stores" : "global accesses";
      r.message = r.ok ? fmt::format("{}: at most {:.1f} sectors per request (limit {:g})", what, worst, c.value)
                       : fmt::format("{} on line {} cost {:.1f} sectors per request, limit {:g} ({:.1f}x too many). "
                                     "A warp reading 32 consecutive floats touches 4 sectors; more means its lanes' "
                                     "addresses are scattered.",
                                     what, r.line, worst, c.value, worst / std::max(c.value, 1e-9));
      break;
    }
    case Metric::MaxBankConflicts: {
      uint64_t total = f.total.shared_wavefronts - std::min(f.total.shared_wavefronts, f.total.shared_ideal_wavefronts);
      uint64_t worst = 0;
      for (auto& [key, L] : f.lines) {
        uint64_t conf = L.shared_wavefronts - std::min(L.shared_wavefronts, L.shared_ideal_wavefronts);
        if (conf > worst) worst = conf, at_line(r, key, src);
      }
      r.measured = double(total);
      r.ok = r.measured <= c.value;
      double ideal = double(f.total.shared_ideal_wavefronts);
      r.message = r.ok ? fmt::format("shared-memory bank conflicts: {} (limit {:g})", total, c.value)
                       : fmt::format("{} shared-memory bank conflicts (limit {:g}); shared accesses took {:.1f}x the "
                                     "ideal wavefronts. The worst line is {} with {} extra wavefronts: lanes of a warp "
                                     "hit the same bank at different addresses.",
                                     total, c.value, ideal > 0 ? double(f.total.shared_wavefronts) / ideal : 0.0,
                                     r.line, worst);
      break;
    }
    case Metric::MaxGlobalLoadSectors:
    case Metric::MaxGlobalBytes:
    case Metric::MaxDramBytes: {
      r.limit = double(eval_size(c.value_expr, sizes));
      if (c.metric == Metric::MaxGlobalLoadSectors) {
        r.measured = double(f.total.global_load_sectors);
        uint64_t worst = 0;
        for (auto& [key, L] : f.lines)
          if (L.global_load_sectors > worst) worst = L.global_load_sectors, at_line(r, key, src);
        r.ok = r.measured <= r.limit;
        r.message = r.ok ? fmt::format("global load sectors: {:.0f} (limit {:.0f})", r.measured, r.limit)
                         : fmt::format("the kernel loaded {:.0f} sectors from global memory, limit {:.0f} ({:.1f}x too "
                                       "many); line {} alone loaded {}. Each value brought on chip should be reused "
                                       "by many threads.",
                                       r.measured, r.limit, r.measured / std::max(r.limit, 1.0), r.line, worst);
      } else if (c.metric == Metric::MaxGlobalBytes) {
        r.measured = 32.0 * double(f.total.global_load_sectors + f.total.global_store_sectors);
        uint64_t worst = 0;
        for (auto& [key, L] : f.lines)
          if (L.global_load_sectors + L.global_store_sectors > worst)
            worst = L.global_load_sectors + L.global_store_sectors, at_line(r, key, src);
        r.ok = r.measured <= r.limit;
        r.message = r.ok ? fmt::format("global memory traffic: {} (limit {})", fmt_bytes(r.measured), fmt_bytes(r.limit))
                         : fmt::format("the kernel moved {} to and from global memory, limit {} ({:.2f}x); the "
                                       "busiest line is {} ({}). Each trip to memory should carry data only once.",
                                       fmt_bytes(r.measured), fmt_bytes(r.limit), r.measured / std::max(r.limit, 1.0),
                                       r.line, fmt_bytes(32.0 * worst));
      } else {
        r.measured = double(f.dram_bytes);
        r.ok = r.measured <= r.limit;
        r.message = fmt::format("DRAM traffic (L2 model): {} (limit {}){}", fmt_bytes(r.measured), fmt_bytes(r.limit),
                                r.ok ? "" : " - too much data goes to DRAM and back");
      }
      break;
    }
    case Metric::MinWarpEfficiency: {
      r.measured = f.warp_insts ? double(f.active_lanes) / (32.0 * double(f.warp_insts)) : 0;
      r.ok = r.measured >= c.value;
      r.message = r.ok ? fmt::format("warp execution efficiency {:.0f}% (at least {:.0f}%)", 100 * r.measured, 100 * c.value)
                       : fmt::format("warp execution efficiency is {:.0f}%, needs at least {:.0f}%: on average only "
                                     "{:.1f} of 32 lanes do work per warp instruction. Lanes of one warp are taking "
                                     "different paths or looping different counts.",
                                     100 * r.measured, 100 * c.value, 32 * r.measured);
      break;
    }
    case Metric::MaxSharedLoadsPerFma: {
      r.measured = f.fma_warp_insts ? double(f.total.shared_load_requests) / double(f.fma_warp_insts) : 1e9;
      r.ok = r.measured <= c.value;
      r.message = r.ok ? fmt::format("shared loads per FMA: {:.2f} (limit {:g})", r.measured, c.value)
                       : fmt::format("{:.2f} shared-memory loads per FMA, limit {:g}: each value read from shared "
                                     "memory should feed several FMAs from a register.",
                                     r.measured, c.value);
      break;
    }
    case Metric::UsesSharedMemory: {
      bool uses = f.total.shared_load_requests + f.total.shared_store_requests > 0;
      r.measured = uses;
      r.limit = c.expect;
      r.ok = uses == c.expect;
      r.message = r.ok ? fmt::format("shared memory: {}", uses ? "used" : "not used")
                       : (c.expect ? "the kernel never touches shared memory: every operand comes straight from "
                                     "global memory, so nothing is reused on chip"
                                   : "the kernel uses shared memory, which this exercise asks it not to");
      break;
    }
    case Metric::UsesTensorCores: {
      bool uses = f.mma_warp_insts > 0;
      r.measured = uses;
      r.limit = c.expect;
      r.ok = uses == c.expect;
      r.message = r.ok ? fmt::format("tensor cores: {} mma instructions", f.mma_warp_insts)
                       : "no wmma.mma or mma.sync instruction ran: the multiply is done on the ordinary FP32 units";
      break;
    }
    case Metric::MinOccupancy: {
      r.measured = f.occupancy;
      r.ok = f.occupancy >= c.value;
      r.message = f.occupancy < 0 ? "occupancy could not be computed (ptxas resource usage unavailable)"
                  : r.ok ? fmt::format("theoretical occupancy {:.0f}% (at least {:.0f}%)", 100 * f.occupancy, 100 * c.value)
                         : fmt::format("theoretical occupancy is {:.0f}%, needs at least {:.0f}%: too few warps per "
                                       "SM to hide memory latency",
                                       100 * f.occupancy, 100 * c.value);
      break;
    }
    case Metric::MaxPredictedTimeRatio: {
      if (!baseline || baseline->predicted_seconds <= 0 || f.predicted_seconds <= 0) {
        r.ok = false;
        r.message = "predicted time is not available in this build (the timing model is missing)";
        break;
      }
      r.measured = f.predicted_seconds / baseline->predicted_seconds;
      r.ok = r.measured <= c.value;
      r.message = fmt::format("predicted time is {:.2f}x the baseline '{}' (limit {:g}x)", r.measured, c.baseline, c.value);
      break;
    }
  }
  return r;
}

}  // namespace lab::lesson
