// lab/lesson/criteria.cpp: fold per-instruction counters, judge each
// criterion, and say by how much and where it fails.
//
// Every message names the measured and the allowed value; the manifest's
// `why` adds the one sentence on what to change. Per-instruction criteria
// name the instruction's source line; totals name the line that contributed most.
#include "lab/lesson/criteria.h"

#include "lab/ptx/provenance.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "lab/sim/line_fold.h"
#include "lab/sim/timing.h"

namespace lab::lesson {

using ptx::Op;

// Per pc: the kernel parameter a global access's address derives from.
std::vector<int32_t> parameter_roots(const ptx::Kernel& kernel) {
  ptx::RootSeeds seeds;
  seeds.instr = [&](const ptx::Instr& in) -> int32_t {
    if (in.op != Op::Ld || in.space != ptx::Space::Param || in.num_ops < 2 || in.ops[1].kind != ptx::OperandKind::Addr ||
        in.ops[1].reg != ptx::kNoReg)
      return ptx::kNoRoot;
    for (size_t i = 0; i < kernel.params.size(); ++i)
      if (kernel.params[i].offset == uint64_t(in.ops[1].imm)) return int32_t(i);
    return ptx::kManyRoots;
  };
  return ptx::address_roots(kernel, seeds, ptx::Space::Global);
}

KernelFigures fold_metrics(const ptx::Module& module, const ptx::Kernel& kernel, const sim::KernelMetrics& m) {
  KernelFigures f;
  const std::vector<int32_t> param_of = parameter_roots(kernel);
  size_t n = std::min(kernel.code.size(), m.per_pc.size());
  for (size_t pc = 0; pc < n; ++pc) {
    const ptx::Instr& in = kernel.code[pc];
    const sim::PcCounters& c = m.per_pc[pc];
    f.warp_insts += c.warp_insts;
    f.active_lanes += c.active_lanes;
    f.dram_bytes += c.dram_read_bytes + c.dram_write_bytes;
    const bool fp = ptx::type_is_float(in.type);
    if ((in.op == Op::Fma || in.op == Op::Mad) && fp) f.fma_warp_insts += c.warp_insts;
    if (in.op == Op::ShflSync) f.shuffle_warp_insts += c.warp_insts;
    // Multiply-adds, thread level: an mma of shape m x n x k does m*n*k per
    // warp (flops_per_lane / 2 per lane); an fp fma, mad or mul does one per
    // lane (two in a packed f16x2 / bf16x2).
    if (in.op == Op::WmmaMma || in.op == Op::Mma) f.tensor_macs += sim::flops_per_lane(in) / 2 * double(c.thread_insts);
    else if (fp && (in.op == Op::Fma || in.op == Op::Mad || in.op == Op::Mul))
      f.other_macs += (in.op == Op::Mul ? 1.0 : 0.5) * sim::flops_per_lane(in) * double(c.thread_insts);
    if (c.requests == 0) continue;
    // Classified where the report and the views classify it (line_fold.h).
    const sim::AccessDir dir = sim::access_direction(in);
    const ptx::Space where = sim::access_space(in, c);
    if (dir == sim::AccessDir::None ||
        (where != ptx::Space::Global && where != ptx::Space::Local && where != ptx::Space::Shared))
      continue;
    InstrCounters ic;
    ic.pc = uint32_t(pc);
    if (in.loc < kernel.locs.size()) {
      const ptx::SourceLoc& loc = kernel.locs[in.loc];
      ic.file = loc.file < module.files.size() ? module.files[loc.file] : "";
      ic.line = loc.line;
    }
    ic.global = where == ptx::Space::Global;
    ic.local = where == ptx::Space::Local;
    ic.shared = where == ptx::Space::Shared;
    // An atomic reads and writes: it counts against load limits and store
    // limits alike, so `atomicOr(p, 0)` is no way around a load bound.
    ic.reads = dir == sim::AccessDir::Load || dir == sim::AccessDir::Atomic;
    ic.writes = dir == sim::AccessDir::Store || dir == sim::AccessDir::Atomic;
    ic.requests = c.requests;
    ic.sectors = c.sectors;
    ic.bytes = c.bytes;
    ic.param = pc < param_of.size() && param_of[pc] >= 0 ? param_of[pc] : -1;
    ic.wavefronts = c.wavefronts;
    ic.ideal_wavefronts = c.ideal_wavefronts;
    if (ic.global && ic.reads) f.global_load_requests += c.requests, f.global_load_sectors += c.sectors;
    if (ic.global && ic.writes) f.global_store_requests += c.requests, f.global_store_sectors += c.sectors;
    if (ic.local) f.local_sectors += c.sectors;
    if (ic.shared) {
      if (ic.reads) f.shared_load_requests += c.requests;
      if (ic.writes && !ic.reads) f.shared_store_requests += c.requests;
      f.shared_wavefronts += c.wavefronts;
      f.shared_ideal_wavefronts += c.ideal_wavefronts;
    }
    f.mem.push_back(std::move(ic));
  }
  f.warp_insts_by_warp = m.warp_insts_by_warp;
  f.global_requests_by_warp = m.global_requests_by_warp;
  return f;
}

namespace {

std::string quote(const std::vector<std::string>& src, uint32_t line) {
  if (line == 0 || line > src.size()) return "";
  std::string s = src[line - 1];
  size_t b = s.find_first_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b);
}

void at(CriterionResult& r, const InstrCounters& ic, const std::vector<std::string>& src) {
  r.file = ic.file;
  r.line = ic.line;
  r.source_line = quote(src, ic.line);
}

std::string fmt_bytes(double b) {
  if (b >= 1e6) return fmt::format("{:.2f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} KB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

std::string fmt_count(double v) {
  std::string s = fmt::format("{:.0f}", v), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0 && s[i - 1] != '-') out += ',';
    out += s[i];
  }
  return out;
}

std::string where(const CriterionResult& r) { return r.line ? fmt::format(" (line {})", r.line) : ""; }

// The instruction contributing most of `value`, among those `pick` accepts.
template <class Pick, class Value>
const InstrCounters* heaviest(const KernelFigures& f, Pick pick, Value value) {
  const InstrCounters* best = nullptr;
  for (const auto& ic : f.mem)
    if (pick(ic) && (!best || value(ic) > value(*best))) best = &ic;
  return best;
}

// Totals: measured against a size expression, the heaviest instruction named.
struct Total {
  const char* what;   // "global load sectors"
  double measured;
  bool bytes;         // print as bytes
};

Total total_of(Metric m, const KernelFigures& f) {
  switch (m) {
    case Metric::MaxGlobalLoadSectors: return {"global load sectors", double(f.global_load_sectors), false};
    case Metric::MaxGlobalStoreSectors: return {"global store sectors", double(f.global_store_sectors), false};
    case Metric::MaxGlobalLoadRequests: return {"global load requests", double(f.global_load_requests), false};
    case Metric::MaxGlobalStoreRequests: return {"global store requests", double(f.global_store_requests), false};
    case Metric::MaxMemoryTrafficBytes:
      return {"global and local memory traffic",
              32.0 * double(f.global_load_sectors + f.global_store_sectors + f.local_sectors), true};
    case Metric::MaxDramBytes:
      return {"DRAM traffic (L2 model, local memory included)", double(f.dram_bytes) + 32.0 * double(f.local_sectors),
              true};
    case Metric::MaxSharedLoadRequests: return {"shared-memory load requests", double(f.shared_load_requests), false};
    case Metric::MaxSharedWavefronts: return {"shared-memory wavefronts", double(f.shared_wavefronts), false};
    default: return {"?", 0, false};
  }
}

double instr_share(Metric m, const InstrCounters& ic) {
  switch (m) {
    case Metric::MaxGlobalLoadSectors: return ic.global && ic.reads ? double(ic.sectors) : -1;
    case Metric::MaxGlobalStoreSectors: return ic.global && ic.writes ? double(ic.sectors) : -1;
    case Metric::MaxGlobalLoadRequests: return ic.global && ic.reads ? double(ic.requests) : -1;
    case Metric::MaxGlobalStoreRequests: return ic.global && ic.writes ? double(ic.requests) : -1;
    case Metric::MaxMemoryTrafficBytes:
    case Metric::MaxDramBytes: return ic.global || ic.local ? double(ic.sectors) * (ic.reads && ic.writes ? 2 : 1) : -1;
    case Metric::MaxSharedLoadRequests: return ic.shared && ic.reads ? double(ic.requests) : -1;
    case Metric::MaxSharedWavefronts: return ic.shared ? double(ic.wavefronts) : -1;
    default: return -1;
  }
}

}  // namespace

CriterionResult evaluate_criterion(const Criterion& c, const KernelFigures& f, const SizeVars& sizes,
                                   const KernelFigures* baseline, const std::vector<std::string>& src) {
  CriterionResult r;
  r.name = metric_name(c.metric);
  r.evaluated = true;
  r.limit = c.value;
  switch (c.metric) {
    case Metric::MaxSectorsPerGlobalLoad:
    case Metric::MaxSectorsPerGlobalStore: {
      // Per instruction, not per line: a broadcast load on the same line as a
      // strided one does not lower the strided one's figure. Measured per
      // 128 bytes the lanes asked for (a full warp's 4-byte request), so the
      // limit means the same for float2/float4 loads, whose coalesced
      // requests are 8 and 16 sectors, and for partial warps (issue 26: a
      // float4 row-sum, predicted 0.53x the reference's time, was rejected).
      const bool loads = c.metric == Metric::MaxSectorsPerGlobalLoad;
      const char* what = loads ? "global load" : "global store";
      double worst = 0;
      for (const auto& ic : f.mem) {
        if (!ic.global || !(loads ? ic.reads : ic.writes) || ic.requests == 0) continue;
        const double spr = ic.bytes ? 128.0 * double(ic.sectors) / double(ic.bytes) : double(ic.sectors) / double(ic.requests);
        if (spr > worst) worst = spr, at(r, ic, src);
      }
      r.measured = worst;
      r.ok = worst <= c.value + 1e-9;
      r.message = r.ok ? fmt::format("every {} instruction: at most {:.1f} sectors per 128 bytes requested, a full "
                                     "warp's 4-byte request (limit {:g})",
                                     what, worst, c.value)
                       : fmt::format("a {} instruction{} costs {:.1f} sectors per 128 bytes requested (a full warp's "
                                     "4-byte request), limit {:g}: its lanes' addresses are scattered over {:.1f}x "
                                     "the sectors allowed.",
                                     what, where(r), worst, c.value, worst / std::max(c.value, 1e-9));
      break;
    }
    case Metric::MaxGlobalLoadSectors:
    case Metric::MaxGlobalStoreSectors:
    case Metric::MaxGlobalLoadRequests:
    case Metric::MaxGlobalStoreRequests:
    case Metric::MaxMemoryTrafficBytes:
    case Metric::MaxDramBytes:
    case Metric::MaxSharedLoadRequests:
    case Metric::MaxSharedWavefronts: {
      r.limit = double(eval_size(c.value_expr, sizes));
      Total t = total_of(c.metric, f);
      // One buffer's share: its instructions, and those whose buffer is unknown.
      auto counted = [&](const InstrCounters& ic) { return c.buffer_param < 0 || ic.param < 0 || ic.param == c.buffer_param; };
      std::string what = t.what;
      if (c.buffer_param >= 0) {
        t.measured = 0;
        for (const auto& ic : f.mem)
          if (counted(ic) && instr_share(c.metric, ic) >= 0)
            t.measured += c.metric == Metric::MaxGlobalLoadSectors || c.metric == Metric::MaxGlobalStoreSectors
                              ? double(ic.sectors) : double(ic.requests);
        what = fmt::format("{} of {}", t.what, c.buffer);
      }
      t.what = what.c_str();
      r.measured = t.measured;
      r.ok = r.measured <= r.limit;
      const InstrCounters* h = heaviest(f, [&](const InstrCounters& ic) { return counted(ic) && instr_share(c.metric, ic) >= 0; },
                                        [&](const InstrCounters& ic) { return instr_share(c.metric, ic); });
      if (h) at(r, *h, src);
      auto show = [&](double v) { return t.bytes ? fmt_bytes(v) : fmt_count(v); };
      r.message = r.ok ? fmt::format("{}: {} (limit {} = {})", t.what, show(r.measured), show(r.limit), c.value_expr)
                       : fmt::format("{}: {}, limit {} = {} ({:.2f}x); the heaviest instruction is on line {}.", t.what,
                                     show(r.measured), show(r.limit), c.value_expr,
                                     r.measured / std::max(r.limit, 1.0), r.line);
      break;
    }
    case Metric::MaxBankConflicts: {
      const InstrCounters* h = heaviest(f, [](const InstrCounters& ic) { return ic.shared; },
                                        [](const InstrCounters& ic) { return double(ic.wavefronts) - double(ic.ideal_wavefronts); });
      if (h) at(r, *h, src);
      r.measured = double(f.bank_conflicts());
      r.ok = r.measured <= c.value;
      double ideal = double(f.shared_ideal_wavefronts);
      r.message = r.ok ? fmt::format("shared-memory bank conflicts: {} (limit {:g})", fmt_count(r.measured), c.value)
                       : fmt::format("{} shared-memory bank conflicts, limit {:g}; shared accesses took {:.1f}x the "
                                     "ideal wavefronts, most on line {}: lanes of a warp hit the same bank at "
                                     "different addresses.",
                                     fmt_count(r.measured), c.value,
                                     ideal > 0 ? double(f.shared_wavefronts) / ideal : 0.0, r.line);
      break;
    }
    case Metric::MinSharedLoadsPerGlobalLoad: {
      r.measured = f.global_load_requests ? double(f.shared_load_requests) / double(f.global_load_requests)
                                          : double(f.shared_load_requests);
      r.ok = r.measured >= c.value;
      const InstrCounters* h = heaviest(f, [](const InstrCounters& ic) { return ic.global && ic.reads; },
                                        [](const InstrCounters& ic) { return double(ic.requests); });
      if (h && !r.ok) at(r, *h, src);
      r.message = r.ok ? fmt::format("shared-memory loads per global load: {:.1f} (at least {:g})", r.measured, c.value)
                       : fmt::format("{:.1f} shared-memory loads per global load, at least {:g} needed: operands come "
                                     "from global memory{} instead of being reused from shared memory.",
                                     r.measured, c.value, where(r));
      break;
    }
    case Metric::MinWarpEfficiency: {
      r.measured = f.warp_insts ? double(f.active_lanes) / (32.0 * double(f.warp_insts)) : 0;
      r.ok = r.measured >= c.value;
      r.message = r.ok ? fmt::format("warp execution efficiency {:.0f}% (at least {:.0f}%)", 100 * r.measured, 100 * c.value)
                       : fmt::format("warp execution efficiency is {:.0f}%, at least {:.0f}% needed: on average only "
                                     "{:.1f} of 32 lanes do work per warp instruction.",
                                     100 * r.measured, 100 * c.value, 32 * r.measured);
      break;
    }
    case Metric::MaxShufflesPerWarp: {
      // A serial chain is as correct as a tree and passes every counter of
      // memory; its depth shows in the shuffles each warp issues.
      const double warps = double(f.warp_insts_by_warp.size());
      r.measured = warps > 0 ? double(f.shuffle_warp_insts) / warps : 0;
      r.ok = warps > 0 && r.measured <= c.value;
      r.message = warps == 0 ? "per-warp counts are not available for this launch"
                  : r.ok ? fmt::format("{:.1f} shuffles per warp (limit {:g})", r.measured, c.value)
                         : fmt::format("each warp issues {:.1f} shuffles, limit {:g}: a tree folds 32 lanes in 5 "
                                       "(offsets 16, 8, 4, 2, 1); passing values one lane at a time takes 31, one "
                                       "after another.",
                                       r.measured, c.value);
      break;
    }
    case Metric::MaxBusiestWarpVsMean: {
      // Warps that exit at once are 100% efficient, so warp efficiency alone
      // passes "one warp does everything"; the spread of work does not. Held
      // on instructions and on global memory requests both: warps that spin
      // while one warp does the loads issue as many instructions, not as
      // many requests (issue 26).
      struct Spread {
        double ratio = 0, max = 0;
        size_t busiest = 0, at_least_half = 0, warps = 0;
      };
      auto spread = [](const std::vector<uint32_t>& w) {
        Spread sp;
        double sum = 0;
        for (size_t i = 0; i < w.size(); ++i) {
          sum += w[i];
          if (w[i] > sp.max) sp.max = w[i], sp.busiest = i;
        }
        const double mean = w.empty() ? 0 : sum / double(w.size());
        sp.ratio = mean > 0 ? sp.max / mean : 0;
        sp.at_least_half = size_t(std::count_if(w.begin(), w.end(), [&](uint32_t v) { return 2.0 * v >= sp.max; }));
        sp.warps = w.size();
        return sp;
      };
      const Spread insts = spread(f.warp_insts_by_warp), loads = spread(f.global_requests_by_warp);
      const bool by_requests = loads.ratio > insts.ratio;
      const Spread& worst = by_requests ? loads : insts;
      const char* what = by_requests ? "global memory requests" : "instructions";
      r.measured = worst.ratio;
      r.ok = !f.warp_insts_by_warp.empty() && r.measured <= c.value;
      r.message = f.warp_insts_by_warp.empty()
                      ? "per-warp instruction counts are not available for this launch"
                  : r.ok ? fmt::format("busiest warp: {:.2f}x the mean warp's instructions and {:.2f}x its global "
                                       "memory requests (limit {:g}); {} of {} warps do at least half its work",
                                       insts.ratio, loads.ratio, c.value, insts.at_least_half, insts.warps)
                         : fmt::format("the busiest warp (warp {} of the grid) issues {:.1f}x the mean warp's {}, "
                                       "limit {:g}; only {} of {} warps do at least half as much: the work is not "
                                       "spread over the launch.",
                                       worst.busiest, r.measured, what, c.value, worst.at_least_half, worst.warps);
      break;
    }
    case Metric::MinTensorCoreMacShare: {
      double all = f.tensor_macs + f.other_macs;
      r.measured = all > 0 ? f.tensor_macs / all : 0;
      r.ok = r.measured >= c.value;
      r.message = r.ok ? fmt::format("{:.0f}% of the multiply-adds run on tensor cores (at least {:.0f}%)",
                                     100 * r.measured, 100 * c.value)
                       : fmt::format("only {:.0f}% of the multiply-adds run on tensor cores ({} of {}), at least "
                                     "{:.0f}% needed: the rest are ordinary FP32 multiply-adds.",
                                     100 * r.measured, fmt_count(f.tensor_macs), fmt_count(all), 100 * c.value);
      break;
    }
    case Metric::MinOccupancy: {
      r.measured = f.occupancy;
      r.ok = f.occupancy >= c.value;
      r.message = f.occupancy < 0 ? "occupancy could not be computed (ptxas resource usage unavailable)"
                  : r.ok ? fmt::format("theoretical occupancy {:.0f}% (at least {:.0f}%; {} registers per thread, "
                                       "{} bytes of shared memory per block)",
                                       100 * f.occupancy, 100 * c.value, f.registers, f.shared_bytes)
                         : fmt::format("theoretical occupancy is {:.0f}%, at least {:.0f}% needed ({} registers per "
                                       "thread, {} bytes of shared memory per block): too few warps per SM to hide "
                                       "memory latency.",
                                       100 * f.occupancy, 100 * c.value, f.registers, f.shared_bytes);
      break;
    }
    case Metric::MaxPredictedTimeRatio: {
      const std::string base = c.baseline == "solution" ? "the reference solution" : "the baseline '" + c.baseline + "'";
      if (f.predicted_seconds <= 0) {
        r.ok = false;
        r.message = f.predicted_unavailable.empty() ? "the machine model could not predict this kernel's time"
                                                    : f.predicted_unavailable;
        break;
      }
      if (!baseline || baseline->predicted_seconds <= 0) {
        r.ok = false;
        r.message = fmt::format("the machine model could not predict {}'s time", base);
        break;
      }
      r.measured = f.predicted_seconds / baseline->predicted_seconds;
      r.ok = r.measured <= c.value;
      r.message = fmt::format("predicted time {:.2f} us is {:.2f}x {}'s {:.2f} us (limit {:g}x)",
                              1e6 * f.predicted_seconds, r.measured, base, 1e6 * baseline->predicted_seconds, c.value);
      break;
    }
  }
  return r;
}

}  // namespace lab::lesson
