// lab/lesson/runner.cpp: show a lesson step by step and run its commands.
#include "lab/lesson/runner.h"

#include "lab/lesson/layer_roofline.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>
#include <iostream>

#include <fmt/format.h>

#include "lab/cpu/conv.h"
#include "lab/cpu/gemm.h"
#include "lab/gemm/gemm_problem.h"
#include "lab/gemm/gemm_registry.h"
#include "lab/gemm/gemm_sim.h"
#include "lab/sim/report.h"
#include "lab/lesson/check.h"
#include "lab/lesson/compare.h"
#include "lab/cpu/timer.h"
#include "lab/sim/device.h"

namespace lab::lesson {

std::string resolve_command(const std::string& command, const std::string& gpulab_path) {
  if (command.rfind("gpulab ", 0) == 0 && !gpulab_path.empty()) return "'" + gpulab_path + "'" + command.substr(6);
  return command;
}

std::string localize_command(const std::string& command, const std::string& lessons_root, bool carry) {
  if (command.rfind("gpulab ", 0) != 0 || lessons_root.empty()) return command;
  std::string root = std::filesystem::absolute(lessons_root).lexically_normal().string();
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  const bool plain = root.find_first_of(" \t'\"$`\\;&|()<>*?") == std::string::npos;
  auto quoted = [&](const std::string& s) { return plain ? s : "'" + s + "'"; };
  std::istringstream in(command);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  bool has_lessons = false;
  for (auto& w : words) {
    if (w == "--lessons") has_lessons = true;
    if (w.rfind("lessons/", 0) == 0) w = quoted(root + w.substr(7));
  }
  static const std::vector<std::string> lesson_cmds = {"check", "hint", "lesson", "lessons", "reset", "solution", "watch"};
  if (carry && !has_lessons && words.size() > 1 &&
      std::find(lesson_cmds.begin(), lesson_cmds.end(), words[1]) != lesson_cmds.end()) {
    words.push_back("--lessons");
    words.push_back(quoted(root));
  }
  std::string out;
  for (auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// Inputs in [-0.5, 0.5) that need no generator: element i is (i * prime) mod 1000, scaled.
void fill_pattern(std::vector<float>& v, uint64_t prime) {
  for (size_t i = 0; i < v.size(); ++i) v[i] = float((i * prime) % 1000) / 1000.f - 0.5f;
}

// How a lesson step times a CPU version: a warm-up only for the threaded
// ones (the single-threaded versions are slow enough without), then the
// median of up to 5 repeats.
cpu::TimingOptions step_timing(bool threaded) {
  cpu::TimingOptions t;
  t.warmup = threaded ? 1 : 0;
  t.min_repeats = 1;
  t.max_repeats = 5;
  t.min_total_seconds = 0.2;
  return t;
}

void time_cpu_gemm(int n, FILE* out) {
  std::vector<float> A(size_t(n) * n), B(size_t(n) * n), C(size_t(n) * n);
  fill_pattern(A, 7919);
  fill_pattern(B, 104729);
  double flop = 2.0 * n * double(n) * n;
  fmt::print(out, "Timing C = A * B on this machine's CPU, n = {} ({:.2g} FLOP: n^3 multiply-adds, 2 FLOP each)\n", n, flop);
  fmt::print(out, "  {:<22} {:>8} {:>12} {:>12}\n", "version", "threads", "time", "GFLOP/s");
  double worst_spread = 0;
  for (const auto& v : cpu::cpu_gemm_versions()) {
    unsigned threads = v.threaded ? 0 : 1;
    auto r = cpu::time_median([&] { v.fn(n, n, n, 1.f, A.data(), B.data(), 0.f, C.data(), threads); },
                              step_timing(v.threaded));
    double s = r.median_ms / 1e3;
    fmt::print(out, "  {:<22} {:>8} {:>10.4f} s {:>12.1f}{}\n", v.name, v.threaded ? "all" : "1", s, flop / s / 1e9,
               r.spread > cpu::kUnsteadySpread ? fmt::format("   (repeats spread {:.0f}%)", 100 * r.spread) : "");
    worst_spread = std::max(worst_spread, r.spread);
    std::fflush(out);
  }
  fmt::print(out, "(measured here, median of repeats; your numbers depend on your CPU)\n");
  if (const std::string w = cpu::spread_warning(worst_spread); !w.empty()) fmt::print(out, "{}\n", w);
}

// Lesson 12's layer on this machine's CPU: every version of lab/cpu/conv.h,
// each checked against the direct one (the same sums in another order).
void time_cpu_conv(const SizeVars& v, FILE* out) {
  cpu::ConvShape s{int(v.at("N")), int(v.at("C")), int(v.at("H")), int(v.at("W")), int(v.at("K"))};
  std::vector<float> X(size_t(s.N) * s.C * s.H * s.W), F(size_t(s.K) * s.C * 9);
  fill_pattern(X, 7919);
  fill_pattern(F, 104729);
  const size_t out_n = size_t(s.N) * s.K * s.H * s.W;
  std::vector<float> Y(out_n);
  std::vector<double> first;  // the direct version's output, the others' yardstick
  fmt::print(out, "Timing the 3x3 convolution N={} C={} H={} W={} K={} on this machine's CPU ({:.2g} FLOP)\n", s.N, s.C,
             s.H, s.W, s.K, s.flop());
  fmt::print(out, "  {:<22} {:>8} {:>12} {:>12}\n", "version", "threads", "time", "GFLOP/s");
  double worst_spread = 0;
  for (const auto& c : cpu::cpu_conv_versions()) {
    auto r = cpu::time_median([&] { c.fn(s, X.data(), F.data(), Y.data()); }, step_timing(c.threaded));
    double worst = 0;
    if (first.empty())
      first.assign(Y.begin(), Y.end());
    else
      worst = cpu::max_rel_error(Y.data(), first, 1.0);
    const double sec = r.median_ms / 1e3;
    fmt::print(out, "  {:<22} {:>8} {:>10.4f} s {:>12.1f}{}{}\n", c.name, c.threaded ? "all" : "1", sec, s.flop() / sec / 1e9,
               r.spread > cpu::kUnsteadySpread ? fmt::format("   (repeats spread {:.0f}%)", 100 * r.spread) : "",
               worst > 1e-3 ? fmt::format("   (DIFFERS from direct by {:.2g})", worst) : "");
    worst_spread = std::max(worst_spread, r.spread);
    std::fflush(out);
  }
  fmt::print(out, "(measured here, median of repeats; your numbers depend on your CPU)\n");
  if (const std::string w = cpu::spread_warning(worst_spread); !w.empty()) fmt::print(out, "{}\n", w);
}

// The same layer run: the lab's fastest tensor-core GEMM
// (kernels/gemm/09_tensor_core_mma.cu) on the simulator at each batch size,
// timed by the cycle model on a sample of its blocks, beside the bound.
void measured_layer(int in, int out, const sim::GpuModel& g, FILE* o) {
  std::vector<gemm::GemmVersion> versions = gemm::load_gemm_versions();
  const gemm::GemmVersion* v = nullptr;
  for (const auto& x : versions)
    if (x.name == "09_tensor_core_mma") v = &x;
  if (!v) return;
  fmt::print(o, "\nThe same layer run by the lab's tensor-core GEMM ({}) on the simulator, PREDICTED by the cycle model:\n",
             v->name);
  fmt::print(o, "  {:>6} {:>12} {:>12} {:>14} {:>11}\n", "batch", "bound", "predicted", "TFLOP/s", "of bound");
  for (int B : {1, 8, 64, 512, 4096}) {
    gemm::GemmProblem p = gemm::make_gemm_problem(B, out, in);
    sim::SimOptions so;
    so.gpu = &g;
    so.timing.sample_only = true;
    try {
      gemm::SimGemmRun run = gemm::simulate_gemm(*v, p, so);
      sim::KernelReport rep = sim::build_report(run.compiled, run.launch, run.result.metrics);
      const LayerPoint lp = layer_point(B, in, out, g);
      const double flop = lp.flop, bound = lp.seconds;
      const double t = rep.predicted.time_s;
      fmt::print(o, "  {:>6} {:>9.2f} us {:>9.2f} us {:>14.1f} {:>10.0f}%\n", B, bound * 1e6, t * 1e6, flop / t / 1e12,
                 100 * bound / t);
    } catch (const std::exception& e) {
      fmt::print(o, "  {:>6} (could not run: {})\n", B, e.what());
    }
    std::fflush(o);
  }
  fmt::print(o, "(the bound is the table above's; \"of bound\" is how much of it the kernel reaches: the rest is "
                "launch, latency and tile waste at small batches)\n");
}

// The roofline of one layer (layer_roofline.h), batch 1 .. 4096, as a table.
void roofline_layer(int in, int out, FILE* o) {
  const sim::GpuModel& g = sim::gpu_model("H100");
  double peak = g.fp16_tensor_flops, bw = g.dram_bytes_per_s;
  fmt::print(o, "Layer {} -> {} features, fp16 operands (2 bytes), on the {} model: peak {:.0f} TFLOP/s fp16 tensor,\n"
                "{:.2f} TB/s DRAM; ridge point {:.0f} FLOP/byte. Times are roofline bounds, not measurements.\n",
             in, out, g.name, peak / 1e12, bw / 1e12, peak / bw);
  fmt::print(o, "  {:>6} {:>14} {:>10} {:>10} {:>12} {:>10} {:>8}\n", "batch", "MACs", "MB moved", "FLOP/B",
             "bound", "time", "% peak");
  for (const LayerPoint& p : layer_roofline(in, out, g))
    fmt::print(o, "  {:>6} {:>14.0f} {:>10.2f} {:>10.1f} {:>12} {:>8.2f} us {:>7.1f}%\n", p.batch, p.flop / 2,
               p.bytes / 1e6, p.intensity, p.memory_bound ? "memory" : "compute", p.seconds * 1e6,
               100 * p.attainable / peak);
  measured_layer(in, out, g, o);
}

// A before/after: the two sides measured and printed; a ratio outside the
// lesson's range, or one the step's text does not cite, counts as a failed
// step (the text would teach a figure the lab does not give).
void run_compare_step(const Lesson& L, const Step& s, bool measure_on_gpu, FILE* out, int& failed) {
  const Compare& c = *s.compare;
  fmt::print(out, "$ (before/after) {}\n", compare_files(L, c));
  std::fflush(out);
  try {
    CheckOptions opts;
    opts.measure_on_gpu = measure_on_gpu;
    CompareResult r = run_compare(L, c, opts);
    fmt::print(out, "{}\n", format_compare(r));
    if (!r.within()) ++failed;
    if (!text_cites(s.text, r)) {
      ++failed;
      fmt::print(out, "(the step's text does not cite {}, the speed-up the lab gives here: update {})\n\n",
                 cited_ratio(r), L.path(L.readme));
    }
  } catch (const std::exception& e) {
    ++failed;
    fmt::print(out, "(could not run it: {})\n\n", e.what());
  }
}

int run_lesson(const Lesson& L, const RunnerOptions& o) {
  int failed = 0;
  fmt::print(o.out, "# {}\n\n", L.title);
  for (size_t i = 0; i < L.steps.size(); ++i) {
    const Step& s = L.steps[i];
    if (o.before_after_only && !s.compare) continue;
    fmt::print(o.out, "---- step {}/{}{} ----\n\n", i + 1, L.steps.size(), s.title.empty() ? "" : ": " + s.title);
    if (o.before_after_only) {
      run_compare_step(L, s, o.measure_on_gpu, o.out, failed);
      continue;
    }
    if (!s.text.empty()) fmt::print(o.out, "{}\n\n", s.text);
    if (!s.measure_file.empty()) {
      fmt::print(o.out, "$ (measure) {}\n", L.path(s.measure_file));
      std::fflush(o.out);
      try {
        fmt::print(o.out, "{}\n", measure_table(L, L.measured_exercise(s), s.measure_file, s.measure_kernel));
      } catch (const std::exception& e) {
        ++failed;
        fmt::print(o.out, "(could not run it: {})\n\n", e.what());
      }
    }
    if (s.compare) run_compare_step(L, s, o.measure_on_gpu, o.out, failed);
    if (s.layer_in) roofline_layer(s.layer_in, s.layer_out, o.out), fmt::print(o.out, "\n");
    if (s.cpu_gemm) time_cpu_gemm(s.cpu_gemm, o.out), fmt::print(o.out, "\n");
    if (!s.cpu_conv.empty()) time_cpu_conv(s.cpu_conv, o.out), fmt::print(o.out, "\n");
    if (!s.command.empty()) {
      const std::string cmd = localize_command(s.command, o.lessons_root, o.carry_lessons);
      fmt::print(o.out, "$ {}\n", cmd);
      std::fflush(o.out);
      int rc = std::system(resolve_command(cmd, o.gpulab_path).c_str());
      int code = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
      if (code != s.expect_exit) {
        ++failed;
        fmt::print(o.out, "(the command exited with status {}{})\n", code,
                   s.expect_exit ? fmt::format(", where the lesson expects {}", s.expect_exit) : "");
      } else if (code != 0) {
        fmt::print(o.out, "(status {}: the refusal this step shows)\n", code);
      }
      fmt::print(o.out, "\n");
    }
    if (o.pause && i + 1 < L.steps.size()) {
      fmt::print(o.out, "[Enter: next step, q: quit] ");
      std::fflush(o.out);
      std::string line;
      if (!std::getline(std::cin, line) || line == "q") break;
    }
  }
  if (!L.exercises.empty() && !o.before_after_only) {
    fmt::print(o.out, "Exercises:\n");
    for (auto& e : L.exercises)
      fmt::print(o.out, "  {}/{}: {} - edit {}, then `{}`\n", L.id, e.id, e.title, L.path(e.file),
                 localize_command(fmt::format("gpulab check {}/{}", L.id, e.id), o.lessons_root, o.carry_lessons));
  }
  return failed;
}

}  // namespace lab::lesson
