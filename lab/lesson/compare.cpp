// lab/lesson/compare.cpp: run a lesson's before and after, and print them side by side.
#include "lab/lesson/compare.h"

#include "lab/cuda/kernel_run.h"
#include "lab/lesson/measure_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace lab::lesson {

namespace {

// A count over the whole grid: the executed blocks' count scaled by
// blocks_total / blocks_run (exact when every block ran).
double whole(const MeasuredKernel& m, double v) {
  return m.blocks_run && m.blocks_run < m.blocks_total ? v * double(m.blocks_total) / double(m.blocks_run) : v;
}

void add(CompareFigures& s, const MeasuredKernel& m) {
  const KernelFigures& f = m.figures;
  s.seconds += f.predicted_seconds;
  s.warp_insts += whole(m, double(f.warp_insts));
  s.active_lanes += whole(m, double(f.active_lanes));
  s.fma_warp_insts += whole(m, double(f.fma_warp_insts));
  s.tensor_macs += whole(m, f.tensor_macs);
  s.global_load_requests += whole(m, double(f.global_load_requests));
  s.global_load_sectors += whole(m, double(f.global_load_sectors));
  s.global_store_sectors += whole(m, double(f.global_store_sectors));
  s.local_sectors += whole(m, double(f.local_sectors));
  s.shared_requests += whole(m, double(f.shared_load_requests + f.shared_store_requests));
  s.shared_wavefronts += whole(m, double(f.shared_wavefronts));
  s.bank_conflicts += whole(m, double(f.bank_conflicts()));
  s.dram_bytes += double(f.dram_bytes);
  s.registers = std::max(s.registers, f.registers);
  if (f.occupancy >= 0) s.occupancy = s.occupancy < 0 ? f.occupancy : std::min(s.occupancy, f.occupancy);
  if (m.blocks_run < m.blocks_total) s.sampled = true;
  s.launches.push_back(m);
}

std::string count_text(double v) {
  if (v >= 1e9) return fmt::format("{:.3g}e9", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  return fmt::format("{:.0f}", v);
}

std::string time_text(double s) {
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.2f} us", s * 1e6);
}

}  // namespace

CompareResult run_compare(const Lesson& lesson, const Compare& c, const CheckOptions& opts_in) {
  // A demo outside the exercises runs as an exercise of its own arguments and launch.
  Exercise demo;
  const Exercise* ex = &demo;
  if (!c.exercise.empty()) {
    ex = lesson.find_exercise(c.exercise);
    if (!ex) throw ManifestError(lesson.manifest_path, "compare.exercise", "no exercise '" + c.exercise + "'");
  } else {
    for (const auto& a : c.args) demo.args.push_back(parse_arg_spec(a));
    demo.geometry = c.geometry;
  }
  CheckOptions opts = opts_in;
  opts.sample_only = true;
  CompareResult r;
  r.gpu = opts.gpu->name;
  r.expect_min = c.expect_min, r.expect_max = c.expect_max;
  for (auto& [k, v] : c.size) r.sizes_text += fmt::format("{}{}={}", r.sizes_text.empty() ? "" : " ", k, v);
  auto run = [&](const CompareSide& side, CompareFigures& out) {
    out.label = side.label;
    for (const CompareLaunch& l : side.launches) {
      Exercise as = *ex;
      if (!l.args.empty()) {
        as.args.clear();
        for (const auto& a : l.args) as.args.push_back(parse_arg_spec(a));
      }
      CheckOptions launch_opts = opts;
      launch_opts.max_blocks_per_sm = l.max_blocks_per_sm;
      MeasuredKernel m = kernel_figures_at(lesson, as, l.file, l.kernel.empty() ? ex->kernel : l.kernel,
                                           l.geometry ? *l.geometry : ex->geometry, c.size, launch_opts);
      if (!(m.figures.predicted_seconds > 0))
        throw std::runtime_error(l.file + ": " + (m.figures.predicted_unavailable.empty()
                                                      ? std::string("the machine model gave no time")
                                                      : m.figures.predicted_unavailable));
      add(out, m);
      if (opts.measure_on_gpu && out.measured_note.empty()) {
        if (l.max_blocks_per_sm) {
          // The model caps residency; a GPU has no such switch.
          out.measured_note = "capped residency: not measurable on a GPU as written";
          out.measured_seconds = 0;
          continue;
        }
        try {
          MeasureRun mr = measure_run_at(lesson, as, l.file, l.kernel.empty() ? ex->kernel : l.kernel, std::string(opts.gpu->name),
                                         c.size, l.geometry ? *l.geometry : ex->geometry);
          cuda::GpuRunOutcome g = cuda::run_kernel_on_gpu(mr.request);
          out.measured_seconds += g.median_ms / 1e3;
          r.measured_on = g.device;
        } catch (const std::exception& e) {
          std::string msg = e.what();
          out.measured_note = msg.substr(0, msg.find('\n'));
          out.measured_seconds = 0;
        }
      }
    }
  };
  run(c.before, r.before);
  run(c.after, r.after);
  r.speedup = r.before.seconds / r.after.seconds;
  if (r.before.measured_seconds > 0 && r.after.measured_seconds > 0)
    r.measured_speedup = r.before.measured_seconds / r.after.measured_seconds;
  return r;
}

std::string cited_ratio(const CompareResult& r) { return fmt::format("{:.2f}x", r.speedup); }

bool text_cites(const std::string& step_text, const CompareResult& r) {
  return step_text.find(cited_ratio(r)) != std::string::npos;
}

std::string compare_files(const Lesson& lesson, const Compare& c) {
  auto side = [&](const CompareSide& s) {
    std::string out;
    for (const auto& l : s.launches)
      out += (out.empty() ? "" : " + ") + lesson.path(l.file) + (l.kernel.empty() ? "" : " (" + l.kernel + ")");
    return out;
  };
  return side(c.before) + " vs " + side(c.after);
}

std::vector<CompareRow> compare_rows(const CompareResult& r) {
  const CompareFigures& b = r.before;
  const CompareFigures& a = r.after;
  auto eff = [](const CompareFigures& f) { return f.warp_insts > 0 ? 100.0 * f.active_lanes / (32.0 * f.warp_insts) : 0.0; };
  return {
      {"warp instructions", b.warp_insts, a.warp_insts, true},
      {"warp efficiency (%)", eff(b), eff(a), false},
      {"FP32 FMA warp instructions", b.fma_warp_insts, a.fma_warp_insts, true},
      {"tensor-core multiply-adds", b.tensor_macs, a.tensor_macs, true},
      {"global load requests", b.global_load_requests, a.global_load_requests, true},
      {"global load sectors", b.global_load_sectors, a.global_load_sectors, true},
      {"global store sectors", b.global_store_sectors, a.global_store_sectors, true},
      {"local (spill) sectors", b.local_sectors, a.local_sectors, true},
      {"shared requests", b.shared_requests, a.shared_requests, true},
      {"shared wavefronts", b.shared_wavefronts, a.shared_wavefronts, true},
      {"bank conflicts (extra wavefronts)", b.bank_conflicts, a.bank_conflicts, true},
      // A sample has no other blocks to share L2 with: its DRAM traffic does not scale to the grid.
      {"DRAM bytes (L2 model)", b.sampled || a.sampled ? 0 : b.dram_bytes, b.sampled || a.sampled ? 0 : a.dram_bytes, true},
      {"registers per thread (most)", double(b.registers), double(a.registers), false},
      {"theoretical occupancy (%, least)", 100 * b.occupancy, 100 * a.occupancy, false},
  };
}

std::string format_compare(const CompareResult& r) {
  const CompareFigures& b = r.before;
  const CompareFigures& a = r.after;
  const std::vector<CompareRow> rows = compare_rows(r);
  std::string s = fmt::format("before/after at {} on the {} model (predicted by the cycle model):\n", r.sizes_text, r.gpu);
  auto name = [](const CompareFigures& f, const char* which) {
    return fmt::format("{}: {}{}", which, f.label, f.launches.size() > 1 ? fmt::format(" ({} launches)", f.launches.size()) : "");
  };
  const std::string bn = name(b, "before"), an = name(a, "after");
  const size_t wb = std::max<size_t>(28, bn.size()), wa = std::max<size_t>(27, an.size());
  s += fmt::format("  {:<34} {:>{}} {:>{}} {:>8}\n", "", bn, wb, an, wa, "ratio");
  s += fmt::format("  {:<34} {:>{}} {:>{}} {:>7.2f}x\n", "predicted time", time_text(b.seconds), wb, time_text(a.seconds),
                   wa, r.speedup);
  if (r.measured_speedup > 0)
    s += fmt::format("  {:<34} {:>{}} {:>{}} {:>7.2f}x\n", "MEASURED time on " + r.measured_on,
                     time_text(b.measured_seconds), wb, time_text(a.measured_seconds), wa, r.measured_speedup);
  else if (!b.measured_note.empty() || !a.measured_note.empty())
    s += fmt::format("  {:<34} {}\n", "not measured on the GPU:", !b.measured_note.empty() ? b.measured_note : a.measured_note);
  for (const CompareRow& row : rows) {
    if (row.before <= 0 && row.after <= 0) continue;
    std::string ratio = row.before > 0 && row.after > 0 ? fmt::format("{:.2f}x", row.before / row.after) : "-";
    auto text = [&](double v) { return row.count ? count_text(v) : fmt::format("{:.0f}", v); };
    s += fmt::format("  {:<34} {:>{}} {:>{}} {:>8}\n", row.name, text(row.before), wb, text(row.after), wa, ratio);
  }
  if (b.sampled || a.sampled)
    s += "  (sampled: only the blocks the cycle model timed ran; counts are theirs scaled to the whole grid)\n";
  s += fmt::format("  speed-up {:.2f}x; the lesson expects {:.3g}x to {:.3g}x: {}\n", r.speedup, r.expect_min,
                   r.expect_max,
                   r.within() ? "the measurement agrees"
                              : "the measurement DISAGREES with the lesson (please report it: the model or the text is wrong)");
  return s;
}

}  // namespace lab::lesson
