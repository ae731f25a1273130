// lab/lesson/compare.cpp: run a lesson's before and after, and print them side by side.
#include "lab/lesson/compare.h"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace lab::lesson {

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
  r.before_label = c.before.label;
  r.after_label = c.after.label;
  r.gpu = opts.gpu->name;
  r.expect_min = c.expect_min, r.expect_max = c.expect_max;
  for (auto& [k, v] : c.size) r.sizes_text += fmt::format("{}{}={}", r.sizes_text.empty() ? "" : " ", k, v);
  auto run = [&](const CompareSide& side) {
    MeasuredKernel m = kernel_figures_at(lesson, *ex, side.file, side.kernel.empty() ? ex->kernel : side.kernel,
                                         side.geometry ? *side.geometry : ex->geometry, c.size, opts);
    if (!(m.figures.predicted_seconds > 0))
      throw std::runtime_error(side.file + ": " + (m.figures.predicted_unavailable.empty()
                                                       ? std::string("the machine model gave no time")
                                                       : m.figures.predicted_unavailable));
    return m;
  };
  r.before = run(c.before);
  r.after = run(c.after);
  r.speedup = r.before.figures.predicted_seconds / r.after.figures.predicted_seconds;
  return r;
}

namespace {

// A counter over the whole grid: the executed blocks' count scaled by
// blocks_total / blocks_run (exact when every block ran).
double whole(const MeasuredKernel& m, double v) {
  return m.blocks_run && m.blocks_run < m.blocks_total ? v * double(m.blocks_total) / double(m.blocks_run) : v;
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

std::string format_compare(const CompareResult& r) {
  const KernelFigures& b = r.before.figures;
  const KernelFigures& a = r.after.figures;
  struct Row {
    std::string name;
    double before, after;
    bool count;  // a whole-grid count (scaled when sampled); else a per-kernel figure
  };
  auto eff = [](const KernelFigures& f) {
    return f.warp_insts ? 100.0 * double(f.active_lanes) / (32.0 * double(f.warp_insts)) : 0.0;
  };
  std::vector<Row> rows = {
      {"warp instructions", double(b.warp_insts), double(a.warp_insts), true},
      {"warp efficiency (%)", eff(b), eff(a), false},
      {"FP32 FMA warp instructions", double(b.fma_warp_insts), double(a.fma_warp_insts), true},
      {"tensor-core multiply-adds", b.tensor_macs, a.tensor_macs, true},
      {"global load requests", double(b.global_load_requests), double(a.global_load_requests), true},
      {"global load sectors", double(b.global_load_sectors), double(a.global_load_sectors), true},
      {"global store sectors", double(b.global_store_sectors), double(a.global_store_sectors), true},
      {"local (spill) sectors", double(b.local_sectors), double(a.local_sectors), true},
      {"shared requests", double(b.shared_load_requests + b.shared_store_requests),
       double(a.shared_load_requests + a.shared_store_requests), true},
      {"shared wavefronts", double(b.shared_wavefronts), double(a.shared_wavefronts), true},
      {"bank conflicts (extra wavefronts)", double(b.bank_conflicts()), double(a.bank_conflicts()), true},
      {"DRAM bytes (L2 model)", double(b.dram_bytes), double(a.dram_bytes), true},
      {"registers per thread", double(b.registers), double(a.registers), false},
      {"theoretical occupancy (%)", 100 * b.occupancy, 100 * a.occupancy, false},
  };
  std::string s = fmt::format("before/after at {} on the {} model (predicted by the cycle model):\n", r.sizes_text, r.gpu);
  const size_t w = std::max<size_t>({20, r.before_label.size(), r.after_label.size()});
  s += fmt::format("  {:<34} {:>{}} {:>{}} {:>8}\n", "", "before: " + r.before_label, w + 8, "after: " + r.after_label,
                   w + 7, "ratio");
  s += fmt::format("  {:<34} {:>{}} {:>{}} {:>7.2f}x\n", "predicted time", time_text(b.predicted_seconds), w + 8,
                   time_text(a.predicted_seconds), w + 7, r.speedup);
  for (const Row& row : rows) {
    double vb = row.count ? whole(r.before, row.before) : row.before;
    double va = row.count ? whole(r.after, row.after) : row.after;
    if (vb <= 0 && va <= 0) continue;
    // A sample has no other blocks to share L2 with: its DRAM traffic does not scale to the grid.
    if (row.name.rfind("DRAM", 0) == 0 && (r.before.blocks_run < r.before.blocks_total ||
                                            r.after.blocks_run < r.after.blocks_total))
      continue;
    std::string ratio = va > 0 && vb > 0 ? fmt::format("{:.2f}x", vb / va) : "-";
    s += fmt::format("  {:<34} {:>{}} {:>{}} {:>8}\n", row.name, row.count ? count_text(vb) : fmt::format("{:.0f}", vb),
                     w + 8, row.count ? count_text(va) : fmt::format("{:.0f}", va), w + 7, ratio);
  }
  for (const auto* m : {&r.before, &r.after})
    if (m->blocks_run < m->blocks_total) {
      s += fmt::format("  (counts are scaled from the blocks the cycle model timed to the whole grid: {} of {} blocks"
                       " for {})\n", m->blocks_run, m->blocks_total, m == &r.before ? "before" : "after");
    }
  s += fmt::format("  speed-up {:.2f}x; the lesson expects {:.3g}x to {:.3g}x: {}\n", r.speedup, r.expect_min,
                   r.expect_max,
                   r.within() ? "the measurement agrees"
                              : "the measurement DISAGREES with the lesson (please report it: the model or the text is wrong)");
  return s;
}

}  // namespace lab::lesson
