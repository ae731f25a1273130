// gpulab train: lesson 10's training step, on the CPU and on the simulated
// GPU, side by side.
//
//   gpulab train [--batch 64] [--hidden 128] [--steps 5] [--precision fp32|bf16|fp16] [--gpu H100]
//                [--adamw reference|exercise] [--col-sum reference|exercise] [--sweep [LIST]] [--json]
//                [--layers L] [--checkpoint [EVERY]] [--accumulate K]   ("Will it fit?")
//   gpulab train --fit [--batch B ...] [--gpu T4] [--json]              (the formula alone, no run)
//
// The CPU runs lab/cpu/mlp_step.cpp (OpenBLAS GEMMs + loops) and is TIMED
// here. The GPU runs lessons/10-training-step/train.cu, an ordinary CUDA
// program, through `gpulab run` (every launch simulated, times PREDICTED by
// the cycle model, copies at the model's PCIe rate). Both train the same MLP
// from the same weights on the same batches, so the losses must agree and
// fall; the command fails (exit 1) when they do not. Then: where each step's
// time goes, part by part, the speedup against the peak-FLOP/s ratio, and
// (--sweep) how both change with batch and width. The device memory the
// step holds, counted by the runtime, against the formula (lab/train/fit.cpp);
// with --checkpoint or --accumulate, the same step run plainly beside it.
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lab/cli/command.h"
#include "lab/cli/gpu_option.h"
#include "lab/program/build.h"
#include "lab/train/fit.h"
#include "lab/train/schedule.h"
#include "lab/cpu/gemm.h"
#include "lab/cpu/mlp_step.h"
#include "lab/cpu/timer.h"
#include "lab/lesson/workspace.h"
#include "lab/sim/cycle/params.h"
#include "lab/sim/device.h"

namespace lab::cli {
using namespace lab::program;  // building a program (lab/program/build.h)
using namespace lab::train;  // the step's schedule and memory formula (lab/train)
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

struct TrainArgs {
  int batch = 64, hidden = 128, steps = 5, layers = 1, accumulate = 1;
  std::string gpu = "H100", lessons_dir, sweep, precision = "fp32", adamw = "reference", col_sum = "reference";
  std::string checkpoint;  // "" off, "sqrt" or a layer count k
  bool json = false, fit = false;
};

// The lesson's exercise kernels train.cu builds with: the reference solutions
// (the default) or the student's files (--adamw exercise, --col-sum exercise).
struct Kernels {
  bool adamw_reference = true, col_sum_reference = true;
};

struct CpuRun {
  std::vector<double> losses;
  double step_ms = 0;  // median over timed steps
  std::map<std::string, double> part_ms;  // the median step's parts (they add up to step_ms)
  int timed_steps = 0;
  double spread = 0;  // cpu::relative_spread of the timed steps
};

struct GpuRun {
  std::vector<double> losses;
  std::vector<StepLaunch> roles;     // one step's launches, in order (lab/train/schedule.cpp)
  std::vector<double> kernel_ms;     // per role, kernel time without the launch overhead, mean per step
  std::vector<std::string> launched; // per role, the kernel's name (matmul, matmul_bf16, ...)
  bool out_of_memory = false;        // the runtime refused one of the program's cudaMallocs
  uint64_t peak_bytes = 0;           // the runtime's peak of live device bytes
  double launch_overhead_ms = 0;     // per step
  double pcie_ms = 0;                // per step
  uint64_t h2d_bytes = 0, d2h_bytes = 0;  // per step
  double program_event_ms = 0;       // what the program's cudaEventElapsedTime said (model clock), last step
  std::vector<std::pair<std::string, uint64_t>> memory;  // device bytes per group, counted by the runtime
  double step_ms() const {
    double s = launch_overhead_ms + pcie_ms;
    for (double k : kernel_ms) s += k;
    return s;
  }
  double part_ms(const std::string& part) const {
    double s = 0;
    for (size_t i = 0; i < kernel_ms.size(); ++i) s += part == roles[i].part ? kernel_ms[i] : 0;
    return s;
  }
};

// The CPU step, measured: the given steps for the losses, then (on a fresh
// network, after one warm-up step) further steps timed until 0.3 s passed.
CpuRun run_cpu(const mlp::Shape& shape, const mlp::Plan& plan, int steps, cpu::Precision prec) {
  CpuRun r;
  cpu::MlpCpu net(shape, prec, 0, plan);
  for (int s = 0; s < steps; ++s) r.losses.push_back(net.step(s));
  cpu::MlpCpu timed(shape, prec, 0, plan);
  timed.step(0);  // warm-up: OpenBLAS's threads, page faults
  std::vector<double> totals;
  std::map<std::string, std::vector<double>> parts;
  double spent = 0;
  // At least 5 steps and 300 ms; then on while the steps disagree (a busy
  // machine), up to 1.2 s: lab/cpu/timer.h's rule for every CPU timing.
  auto unsteady = [&] { return spent < 1200 && cpu::relative_spread(totals) > 0.10; };
  for (int s = 1; s <= 200 && (spent < 300 || totals.size() < 5 || unsteady()); ++s) {
    cpu::MlpStepTimes t;
    timed.step(s, &t);
    totals.push_back(t.total_ms());
    parts["gemm"].push_back(t.gemm_ms);
    parts["elementwise"].push_back(t.elementwise_ms);
    parts["adamw"].push_back(t.adamw_ms);
    if (plan.checkpointed()) parts["recompute"].push_back(t.recompute_ms);
    spent += t.total_ms() + t.data_ms;
  }
  // The median step (one descheduling on a shared machine does not move it,
  // lab/cpu/timer.h), with that step's own parts, so the parts add up to it.
  std::vector<size_t> order(totals.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return totals[x] < totals[y]; });
  const size_t mid = order[order.size() / 2];
  for (auto& [k, v] : parts) r.part_ms[k] = v[mid];
  r.step_ms = totals[mid];
  r.timed_steps = int(totals.size());
  r.spread = cpu::relative_spread(totals);
  return r;
}

// Runs `gpulab run train.cu --json` (this binary) and reads its output.
// `kernels`: train.cu builds with the reference AdamW and column-sum
// kernels, or with the student's exercise_adamw.cu / exercise_col_sum.cu.
GpuRun run_gpu(const std::string& train_cu, const mlp::Shape& shape, const mlp::Plan& plan, int steps,
               cpu::Precision prec, const sim::GpuModel& gpu, Kernels kernels, std::string& error) {
  GpuRun r;
  r.roles = step_launches(shape, plan);
  // The task header by absolute path: the lessons folder may be a copy away from the lab's sources.
  const std::string cmd = fmt::format(
      "'{}/gpulab' run '{}' --json --gpu {} -D ADAMW_REFERENCE={} -D COL_SUM_REFERENCE={} "
      "-D 'MLP_TASK_HEADER=\"{}\"' -- {} {} {} {} {} {} {} 2>&1",
      gpulab_dir(), train_cu, gpu.name, kernels.adamw_reference ? 1 : 0, kernels.col_sum_reference ? 1 : 0,
      GPULAB_SOURCE_DIR "/lab/cpu/mlp_task.h", shape.batch, shape.hidden, steps, cpu::precision_name(prec),
      shape.layers, plan.accumulate, plan.every);
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[65536];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
  }
  // The JSON object is the output's last '{' at the start of a line onward (stderr notes may precede it).
  size_t at = out.rfind("\n{");
  json j = json::parse(at == std::string::npos ? out : out.substr(at + 1), nullptr, false);
  if (j.is_discarded() || !j.value("ok", false)) {
    error = "the simulated run of " + train_cu + " failed:\n" + out.substr(0, 4000);
    r.out_of_memory = out.find("refused, out of memory") != std::string::npos;
    return r;
  }
  std::istringstream lines(j.value("output", ""));
  for (std::string l; std::getline(lines, l);) {
    int s = 0;
    double v = 0;
    unsigned long long b = 0;
    char group[32];
    if (std::sscanf(l.c_str(), "step %d loss %lf", &s, &v) == 2) r.losses.push_back(v);
    else if (std::sscanf(l.c_str(), "step %d predicted_ms %lf", &s, &v) == 2) r.program_event_ms = v;
    else if (std::sscanf(l.c_str(), "copy h2d %llu", &b) == 1) r.h2d_bytes = b;
    else if (std::sscanf(l.c_str(), "copy d2h %llu", &b) == 1) r.d2h_bytes = b;
    else if (std::sscanf(l.c_str(), "memory %31s %llu", group, &b) == 2) r.memory.emplace_back(group, b);
  }
  const auto& launches = j["launches"];
  const size_t per_step = r.roles.size();
  if (launches.size() != per_step * size_t(steps) || r.losses.size() != size_t(steps)) {
    error = fmt::format("{} made {} launches and printed {} losses for {} steps; expected {} launches a step "
                        "(was train.cu changed? `gpulab train` reads it launch by launch, lab/train/schedule.cpp)",
                        train_cu, launches.size(), r.losses.size(), steps, per_step);
    return r;
  }
  if (!launches.empty()) r.peak_bytes = launches.back().value("device_peak_bytes", uint64_t(0));
  // The cycle model adds a fixed launch cost to each launch's predicted
  // time (lab/sim/cycle/params.h); it is shown apart from the kernels' work.
  const double overhead_ms = sim::cycle::cycle_params(gpu).launch_overhead_s * 1e3;
  r.kernel_ms.assign(per_step, 0.0);
  r.launched.assign(per_step, "");
  for (size_t i = 0; i < launches.size(); ++i) {
    const auto& l = launches[i];
    const size_t role = i % per_step;
    // Prefix: the mixed-precision GEMMs are matmul_bf16 / matmul_fp16.
    if (l.value("kernel", "").rfind(r.roles[role].kernel, 0) != 0) {
      error = fmt::format("launch {} of {} is {}, expected {} ({})", i + 1, train_cu, l.value("kernel", ""),
                          r.roles[role].kernel, r.roles[role].what);
      return r;
    }
    r.launched[role] = l.value("kernel", "");
    const double ms = l["predicted"].value("time_ms", 0.0);
    r.kernel_ms[role] += (ms - overhead_ms) / steps;
    r.launch_overhead_ms += overhead_ms / steps;
  }
  // Copies at the model's host link rate (PCIe spec bandwidth, one direction;
  // sources in lab/sim/device.cpp), as the lab's runtime charges them. A
  // real cudaMemcpy also pays a fixed setup cost per call that the model
  // does not charge, so for these small copies this is a lower bound.
  r.pcie_ms = double(r.h2d_bytes + r.d2h_bytes) / gpu.host_bytes_per_s * 1e3;
  return r;
}

// The CPU's best measured GEMM rate: OpenBLAS sgemm on 1024^3, median.
double cpu_sgemm_flops() {
  const int n = 1024;
  std::vector<float> A(size_t(n) * n, 0.5f), B(A.size(), 0.25f), C(A.size());
  auto t = cpu::time_median([&] { cpu::gemm_openblas(n, n, n, 1.f, A.data(), B.data(), 0.f, C.data(), 0); });
  return 2.0 * n * n * n / (t.median_ms * 1e-3);
}

bool falls(const std::vector<double>& l) { return l.size() >= 2 && l.back() < l.front(); }

struct Outcome {
  json j;
  std::string text;
  bool ok = true;
  bool losses_match = false;  // CPU and GPU losses agree (ok also wants them to fall, and the memory to add up)
};

// The simulated GPU first: a step that does not fit is refused by the
// runtime before either side allocates its host buffers.
Outcome run_one(const std::string& train_cu, const mlp::Shape& shape, const mlp::Plan& plan, int steps,
                cpu::Precision prec, const sim::GpuModel& gpu, Kernels kernels) {
  Outcome o;
  std::string error;
  GpuRun g = run_gpu(train_cu, shape, plan, steps, prec, gpu, kernels, error);
  if (!error.empty()) {
    o.ok = false;
    o.text = error + "\n";
    if (g.out_of_memory) o.text += refusal_text(shape, plan, gpu);
    o.j = {{"error", error}, {"out_of_memory", g.out_of_memory}};
    if (g.out_of_memory) o.j["needed_bytes"] = step_bytes(shape, plan).total();
    return o;
  }
  CpuRun c = run_cpu(shape, plan, steps, prec);
  // Loss tolerance: both sum in float in different orders (OpenBLAS's
  // blocking vs 16-wide tiles); 1e-3 absolute on a loss near 2 is far above
  // that rounding and far below a wrong gradient's effect after one step.
  double diff = 0;
  for (int s = 0; s < steps; ++s) diff = std::max(diff, std::fabs(c.losses[size_t(s)] - g.losses[size_t(s)]));
  const bool match = diff <= 1e-3, down = falls(c.losses) && falls(g.losses);
  o.ok = match && down;  // and the memory counts, below
  o.losses_match = match;
  const double gpu_ms = g.step_ms(), speedup = c.step_ms / gpu_ms;
  // One row per job (`what`): a deep or accumulated step repeats the same
  // launches, and their times add up in one row.
  json rows = json::array();
  std::map<std::string, size_t> row_of;
  for (size_t i = 0; i < g.roles.size(); ++i) {
    auto [it, fresh] = row_of.emplace(g.roles[i].what, rows.size());
    if (fresh)
      rows.push_back({{"kernel", g.launched[i]}, {"what", g.roles[i].what}, {"part", g.roles[i].part},
                         {"launches", 0}, {"predicted_ms", 0.0}});
    json& k = rows[it->second];
    k["launches"] = k["launches"].get<int>() + 1;
    k["predicted_ms"] = k["predicted_ms"].get<double>() + g.kernel_ms[i];
  }
  bool memory_ok = true;
  const std::string memory = memory_text(g.memory, g.peak_bytes, shape, plan, gpu, memory_ok);
  o.j = {{"shape", {{"batch", shape.batch}, {"in", shape.in}, {"hidden", shape.hidden}, {"classes", shape.classes},
                    {"layers", shape.layers}, {"params", shape.params()}}},
         {"plan", {{"accumulate", plan.accumulate}, {"checkpoint_every", plan.every},
                   {"hidden_buffers", plan.slots(shape.layers)}}},
         {"gemm_flops_per_step", shape.gemm_flops()}, {"precision", cpu::precision_name(prec)},
         {"cpu", {{"label", "measured"}, {"losses", c.losses}, {"step_ms", c.step_ms}, {"timed_steps", c.timed_steps}, {"spread", c.spread},
                  {"part_ms", c.part_ms}}},
         {"gpu", {{"label", "prediction"}, {"model", std::string(gpu.name)}, {"losses", g.losses},
                  {"step_ms", gpu_ms}, {"kernels", rows}, {"launches_per_step", g.roles.size()},
                  {"launch_overhead_ms", g.launch_overhead_ms}, {"pcie_ms", g.pcie_ms},
                  {"h2d_bytes", g.h2d_bytes}, {"d2h_bytes", g.d2h_bytes},
                  {"program_event_ms", g.program_event_ms}, {"memory_bytes", json(g.memory)},
                  {"peak_bytes", g.peak_bytes}, {"formula_bytes", json(step_bytes(shape, plan).groups())},
                  {"memory_matches_formula", memory_ok}}},
         {"loss_max_abs_diff", diff}, {"losses_match", match}, {"losses_fall", down}, {"speedup", speedup}};

  std::string& t = o.text;
  o.ok = o.ok && memory_ok;
  t += fmt::format("MLP {} -> {}{} -> {}, batch {}{}{}, {} parameters, {} steps of AdamW, GEMMs in {}{}\n", shape.in,
                   shape.hidden, shape.layers > 1 ? fmt::format(" (x {} hidden layers)", shape.layers) : "",
                   shape.classes, shape.batch,
                   plan.accumulate > 1 ? fmt::format(" ({} micro-batches of {})", plan.accumulate,
                                                     shape.batch / plan.accumulate)
                                       : "",
                   plan.checkpointed() ? fmt::format(", checkpoint every {} layers", plan.every) : "",
                   shape.params(), steps, cpu::precision_name(prec),
                   prec == cpu::Precision::fp32 ? ""
                                                : " (operands rounded to 16 bits, fp32 sums; fp32 master weights; "
                                                  "on the GPU the tensor cores, on the CPU the same rounding, emulated)");
  t += fmt::format("\n  {:>4}  {:>10}  {:>10}  {:>9}\n", "step", "CPU loss", "GPU loss", "|diff|");
  for (int s = 0; s < steps; ++s)
    t += fmt::format("  {:>4}  {:>10.6f}  {:>10.6f}  {:>9.2e}\n", s, c.losses[size_t(s)], g.losses[size_t(s)],
                     std::fabs(c.losses[size_t(s)] - g.losses[size_t(s)]));
  t += fmt::format("  losses {} (max |diff| {:.2e}, tolerance 1e-3) and {}\n", match ? "match" : "DO NOT MATCH", diff,
                   down ? "fall on both" : "DO NOT FALL");
  if (!match && !kernels.adamw_reference)
    t += "  The GPU ran your exercise_adamw.cu: until it is AdamW (`gpulab check 10-training-step/adamw`), its "
         "updates differ from the CPU's and so do the losses from step 1 on.\n";

  const size_t launches = g.roles.size();
  t += fmt::format("\nOne step, GPU kernel by kernel ({} launches; PREDICTED by the cycle model for the {}):\n",
                   launches, gpu.name);
  const int wide = shape.layers > 1 || plan.accumulate > 1 ? 40 : 22;  // the `what` column
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& k = rows[i];
    const int n = k["launches"];
    const std::string what = k["what"].get<std::string>() + (n > 1 ? fmt::format(" (x{})", n) : "");
    t += fmt::format("  {:>2}  {:<14} {:<{}} {:>9.4f} ms  {:>5.1f}%\n", i + 1, k["kernel"].get<std::string>(), what,
                     wide,
                     k["predicted_ms"].get<double>(), 100 * k["predicted_ms"].get<double>() / gpu_ms);
  }
  t += fmt::format("      {:<{}} {:>9.4f} ms  {:>5.1f}%\n",
                   fmt::format("launch overhead ({} x {:.1f} us)", launches, 1e3 * g.launch_overhead_ms / launches),
                   wide + 15,
                   g.launch_overhead_ms, 100 * g.launch_overhead_ms / gpu_ms);
  t += fmt::format("      {:<{}} {:>9.4f} ms  {:>5.1f}%\n",
                   fmt::format("PCIe: {} B in, {} B out", g.h2d_bytes, g.d2h_bytes), wide + 15, g.pcie_ms,
                   100 * g.pcie_ms / gpu_ms);
  t += fmt::format("      {:<{}} {:>9.4f} ms  (the program's cudaEventElapsedTime, same model clock: {:.4f} ms)\n",
                   "predicted GPU step", wide + 15, gpu_ms, g.program_event_ms);

  t += memory;
  t += fmt::format("\nWhere the time goes: CPU MEASURED here (the median of {} steps, OpenBLAS threads as configured), "
                   "GPU PREDICTED\n",
                   c.timed_steps);
  t += fmt::format("  {:<24} {:>11} {:>11} {:>9}\n", "part", "CPU ms", "GPU ms", "speedup");
  auto row = [&](const std::string& name, double cms, double gms) {
    t += fmt::format("  {:<24} {:>11.4f} {:>11.4f} {:>9}\n", name, cms, gms,
                     gms > 0 && cms > 0 ? fmt::format("{:.1f}x", cms / gms) : std::string("-"));
  };
  auto count = [&](const char* part) {
    return std::count_if(g.roles.begin(), g.roles.end(), [&](const StepLaunch& r) { return r.part == part; });
  };
  row(fmt::format("GEMMs ({})", count("gemm")), c.part_ms["gemm"], g.part_ms("gemm"));
  row(fmt::format("elementwise, loss ({})", count("elementwise")), c.part_ms["elementwise"], g.part_ms("elementwise"));
  if (plan.checkpointed())
    row(fmt::format("recompute ({})", count("recompute")), c.part_ms["recompute"], g.part_ms("recompute"));
  row("AdamW (1)", c.part_ms["adamw"], g.part_ms("adamw"));
  row("launch overhead", 0, g.launch_overhead_ms);
  row("PCIe copies", 0, g.pcie_ms);
  row("step", c.step_ms, gpu_ms);
  if (const std::string w = cpu::spread_warning(c.spread); !w.empty()) t += "  " + w + "\n";
  return o;
}

// Where the CPU stops winning: per width, in the sweep's batch order, the
// first batch whose predicted GPU step beats the CPU's measured one.
std::string crossover_text(const json& sweep) {
  std::vector<int> widths;
  for (const auto& p : sweep)
    if (std::find(widths.begin(), widths.end(), p["hidden"].get<int>()) == widths.end())
      widths.push_back(p["hidden"].get<int>());
  std::string t;
  for (int h : widths) {
    const json* before = nullptr;
    const json* first_win = nullptr;
    for (const auto& p : sweep) {
      if (p["hidden"].get<int>() != h) continue;
      if (p["speedup"].get<double>() >= 1) {
        first_win = &p;
        break;
      }
      before = &p;
    }
    if (!first_win)
      t += fmt::format("  hidden {}: the CPU's measured step wins at every batch swept; the GPU never catches up here.\n", h);
    else if (!before)
      t += fmt::format("  hidden {}: the GPU's predicted step wins from the smallest batch swept ({}).\n", h,
                       (*first_win)["batch"].get<int>());
    else
      t += fmt::format("  hidden {}: the CPU wins up to batch {} ({:.1f}x faster there); the GPU wins from batch {} "
                       "(launches and transfers no longer dominate).\n",
                       h, (*before)["batch"].get<int>(), 1 / (*before)["speedup"].get<double>(),
                       (*first_win)["batch"].get<int>());
  }
  return t;
}

std::vector<std::pair<int, int>> parse_sweep(const std::string& s) {
  std::vector<std::pair<int, int>> out;
  std::istringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    int b = 0, h = 0;
    if (std::sscanf(item.c_str(), "%dx%d", &b, &h) != 2 || b < 1 || h < 1)
      throw std::invalid_argument("--sweep: '" + item + "' is not BATCHxHIDDEN (e.g. 64x128,1024x1024)");
    out.emplace_back(b, h);
  }
  return out;
}

// --layers, --accumulate, --checkpoint: the plan, or a usage error (empty `error` when fine).
mlp::Plan parse_plan(const TrainArgs& a, std::string& error) {
  mlp::Plan plan;
  plan.accumulate = a.accumulate;
  if (a.layers < 1) error = "--layers must be >= 1";
  else if (a.accumulate < 1 || a.batch % a.accumulate)
    error = fmt::format("--accumulate {} must divide --batch {}: each micro-batch has batch / K rows", a.accumulate,
                        a.batch);
  else if (a.checkpoint == "sqrt") plan.every = mlp::Plan::sqrt_every(a.layers);
  else if (!a.checkpoint.empty()) {
    plan.every = std::atoi(a.checkpoint.c_str());
    if (plan.every < 1 || plan.every > a.layers || std::to_string(plan.every) != a.checkpoint)
      error = fmt::format("--checkpoint '{}': give a layer count k from 1 to --layers {} (keep every k-th layer), "
                          "or nothing for k = ceil(sqrt(layers))",
                          a.checkpoint, a.layers);
  }
  return plan;
}

int run_train(const TrainArgs& a) {
  const sim::GpuModel* gpu = &resolved_gpu(a.gpu);
  if (a.batch < 1 || a.hidden < 1 || a.steps < 2) {
    std::fprintf(stderr, "gpulab train: --batch and --hidden must be >= 1 and --steps >= 2 (a falling loss needs two)\n");
    return kExitUsage;
  }
  std::string plan_error;
  const mlp::Plan plan = parse_plan(a, plan_error);
  if (!plan_error.empty()) {
    std::fprintf(stderr, "gpulab train: %s\n", plan_error.c_str());
    return kExitUsage;
  }
  if (a.fit) {  // the formula alone: this step on the GPU model, then a 7B model on every GPU model; no run
    mlp::Shape s;
    s.batch = a.batch, s.hidden = a.hidden, s.layers = a.layers;
    json j = fit_table(7e9);
    j["step"] = step_fit(s, plan, *gpu);
    std::fputs(a.json ? (j.dump(2) + "\n").c_str() : (step_fit_text(j["step"]) + fit_text(j)).c_str(), stdout);
    return kExitOk;
  }
  std::vector<std::pair<int, int>> sweep;
  try {
    sweep = parse_sweep(a.sweep);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpulab train: %s\n", e.what());
    return kExitUsage;
  }
  auto ws = lesson::Workspace::open(a.lessons_dir);
  const std::string dir = lesson::find_lesson_dir(ws.root, "10-training-step");
  const std::string train_cu = fs::absolute(dir + "/train.cu").string();
  if (dir.empty() || !fs::exists(train_cu)) {
    std::fprintf(stderr, "gpulab train: no lessons/10-training-step/train.cu under %s; pass --lessons DIR\n",
                 ws.root.c_str());
    return kExitUsage;
  }
  mlp::Shape shape;
  shape.batch = a.batch, shape.hidden = a.hidden, shape.layers = a.layers;
  const Kernels kernels{a.adamw != "exercise", a.col_sum != "exercise"};
  const cpu::Precision prec = a.precision == "bf16"   ? cpu::Precision::bf16
                              : a.precision == "fp16" ? cpu::Precision::fp16
                                                      : cpu::Precision::fp32;
  // Will it fit? Asked of the formula before anything is allocated, here or in the simulator.
  bool out_of_memory = false;
  if (std::string why = fit_refusal(shape, plan, *gpu, out_of_memory); !why.empty()) {
    const json j = {{"ok", false}, {"out_of_memory", out_of_memory}, {"gpu_capacity_bytes", gpu->dram_bytes},
                    {"needed_bytes", json(step_bytes(shape, plan).groups())},
                    {"needed_total_bytes", step_bytes(shape, plan).total()}, {"error", why}};
    if (a.json) std::puts(j.dump(2).c_str());
    else std::fputs(why.c_str(), stdout);
    std::fprintf(stderr, "gpulab train: the step does not fit; see above\n");
    return kExitKernelFault;
  }
  Outcome o = run_one(train_cu, shape, plan, a.steps, prec, *gpu, kernels);
  json j = o.j;
  std::string text = o.text;
  bool ok = o.ok;
  if (!o.j.contains("speedup")) {  // the run failed (or did not fit): say why, and nothing else
    j["ok"] = false;
    if (a.json) std::puts(j.dump(2).c_str());
    else std::fputs(text.c_str(), stdout);
    std::fprintf(stderr, "gpulab train: %s\n",
                 o.j.value("out_of_memory", false) ? "the step does not fit on the GPU model; see above"
                                                   : "the simulated run failed; see above");
    return kExitKernelFault;
  }
  if (plan.accumulate > 1 || plan.checkpointed()) {
    // Will it fit? The same step without the trade, beside it.
    Outcome base = run_one(train_cu, shape, mlp::Plan{}, a.steps, prec, *gpu, kernels);
    if (!base.j.contains("speedup")) {
      text += "\nThe same step without checkpointing or accumulation:\n" + base.text;
      j["baseline"] = base.j;
      ok = false;
    } else {
      json trade;
      text += trade_text(o.j, base.j, plan, trade, ok);
      j["baseline"] = base.j;
      j["trade"] = trade;
    }
  }

  // Peak ratio: the GPU's datasheet rate for the GEMMs' precision (FP32 on
  // the CUDA cores, or dense bf16/fp16 on the tensor cores) over the best
  // GEMM rate this CPU reaches.
  const double gpu_peak = prec == cpu::Precision::bf16   ? gpu->bf16_tensor_flops
                          : prec == cpu::Precision::fp16 ? gpu->fp16_tensor_flops
                                                         : gpu->fp32_flops;
  const char* peak_kind = prec == cpu::Precision::fp32 ? "FP32" : prec == cpu::Precision::bf16 ? "BF16 tensor" : "FP16 tensor";
  const double cpu_peak = cpu_sgemm_flops(), ratio = gpu_peak / cpu_peak;
  j["peak_ratio"] = {{"gpu_peak_flops", gpu_peak}, {"gpu_peak_kind", peak_kind},
                     {"cpu_sgemm_flops_measured", cpu_peak}, {"ratio", ratio}};
  if (o.j.contains("speedup")) {
    // Amdahl's bound: every kernel the whole peak ratio faster than the
    // CPU's step, but the fixed costs the CPU never pays (launches, copies)
    // left as they are: T_gpu >= T_cpu / ratio + fixed.
    const double cms = o.j["cpu"]["step_ms"], fixed = o.j["gpu"]["launch_overhead_ms"].get<double>() +
                                                      o.j["gpu"]["pcie_ms"].get<double>();
    const double bound = cms / (cms / ratio + fixed);
    j["amdahl"] = {{"fixed_ms", fixed}, {"bound", bound}};
    text += fmt::format("\nAmdahl: even if every kernel ran the whole peak ratio faster than the CPU, the launches and "
                        "copies ({:.4f} ms a step, which the CPU does not pay) would cap this step's speedup at {:.1f}x.",
                        fixed, bound);
  }
  if (o.j.contains("speedup"))
    text += fmt::format("\nSpeedup of the whole step: {:.1f}x. Peak ratio: {:.0f}x ({} {} {:.1f} TFLOP/s dense, datasheet, "
                        "over this CPU's OpenBLAS sgemm at 1024^3, {:.0f} GFLOP/s measured).\n",
                        o.j["speedup"].get<double>(), ratio, gpu->name, peak_kind, gpu_peak / 1e12, cpu_peak / 1e9);

  std::vector<std::string> refused_points;  // sweep points that do not fit on the GPU model
  if (!sweep.empty()) {
    j["sweep"] = json::array();
    text += fmt::format("\nSweep (2 steps each; CPU MEASURED, GPU PREDICTED for the {}):\n", gpu->name);
    text += fmt::format("  {:>6} {:>7} {:>10} {:>10} {:>10} {:>8} {:>9} {:>9} {:>9} {:>8}\n", "batch", "hidden",
                        "GEMM MFLOP", "CPU ms", "GPU ms", "speedup", "GPU GEMM", "overhead", "of peak", "cap");
    for (auto [b, h] : sweep) {
      mlp::Shape s;
      s.batch = b, s.hidden = h;
      bool oom = false;
      if (std::string why = fit_refusal(s, mlp::Plan{}, *gpu, oom); !why.empty()) {
        text += fmt::format("  {}x{}: {}", b, h, why);
        refused_points.push_back(fmt::format("{}x{}", b, h));  // fails the command below, with its own sentence
        continue;
      }
      Outcome r = run_one(train_cu, s, mlp::Plan{}, 2, prec, *gpu, kernels);
      if (!r.j.contains("speedup")) {
        text += r.text;
        ok = false;
        continue;
      }
      // Two steps of a sweep point time the step; they are too few to ask the
      // loss to fall (at batch 1 one example's step may raise it): the losses
      // must match, as everywhere.
      ok = ok && r.losses_match;
      const double gms = r.j["gpu"]["step_ms"], cms = r.j["cpu"]["step_ms"], sp = r.j["speedup"];
      double gemm = 0;
      for (const auto& k : r.j["gpu"]["kernels"]) gemm += k["part"] == "gemm" ? k["predicted_ms"].get<double>() : 0;
      const double fixed = r.j["gpu"]["launch_overhead_ms"].get<double>() + r.j["gpu"]["pcie_ms"].get<double>();
      const double cap = cms / (cms / ratio + fixed);
      text += fmt::format("  {:>6} {:>7} {:>10.1f} {:>10.4f} {:>10.4f} {:>7.1f}x {:>8.0f}% {:>8.0f}% {:>8.1f}% {:>7.0f}x\n",
                          b, h, s.gemm_flops() / 1e6, cms, gms, sp, 100 * gemm / gms, 100 * fixed / gms,
                          100 * sp / ratio, cap);
      if (const double spread = r.j["cpu"].value("spread", 0.0); spread > cpu::kUnsteadySpread)
        text += fmt::format("         (the CPU steps above spread {:.0f}%: a busy machine; the figure may be off)\n",
                            100 * spread);
      j["sweep"].push_back({{"batch", b}, {"hidden", h}, {"cpu_step_ms", cms}, {"gpu_step_ms", gms},
                            {"speedup", sp}, {"gpu_gemm_share", gemm / gms}, {"gpu_fixed_share", fixed / gms},
                            {"amdahl_cap", cap},
                            {"losses_match", r.j["losses_match"]}});
    }
    text += "  GPU GEMM: share of the predicted step in the five GEMMs; overhead: launches + PCIe; "
            "of peak: speedup / peak ratio;\n  cap: Amdahl's bound, every kernel at the peak ratio and the overhead "
            "left as it is.\n";
    text += crossover_text(j["sweep"]);
  }
  j["adamw"] = kernels.adamw_reference ? "reference" : "exercise";
  j["col_sum"] = kernels.col_sum_reference ? "reference" : "exercise";
  j["ok"] = ok && refused_points.empty();
  if (a.json) std::puts(j.dump(2).c_str());
  else std::fputs(text.c_str(), stdout);
  if (!refused_points.empty()) {
    std::string list;
    for (const auto& p : refused_points) list += (list.empty() ? "" : ", ") + p;
    std::fprintf(stderr, "gpulab train: sweep point(s) %s do not fit on the %s's memory (see above); the others ran\n",
                 list.c_str(), std::string(gpu->name).c_str());
  }
  if (!ok) {
    std::fprintf(stderr, "gpulab train: the CPU and simulated GPU losses must match and fall, the counted memory must "
                         "match its formula, and a checkpointed or accumulated run must keep the plain run's losses; "
                         "see above\n");
  }
  ok = ok && refused_points.empty();
  return ok ? kExitOk : kExitKernelFault;
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  auto a = std::make_shared<TrainArgs>();
  auto* cmd = app.add_subcommand(
      "train", "Lesson 10: an MLP training step on the CPU (measured) and the simulated GPU (predicted), compared");
  cmd->add_option("--batch", a->batch, "rows per batch (default 64)");
  cmd->add_option("--hidden", a->hidden, "hidden width (default 128)");
  cmd->add_option("--steps", a->steps, "training steps (default 5, at least 2)");
  add_gpu_option(cmd, a->gpu, "GPU model the step is predicted for (default H100)");
  cmd->add_option("--sweep", a->sweep, "also run BATCHxHIDDEN,... one step each (e.g. 64x128,256x512,1024x1024)")
      ->expected(0, 1)
      ->default_str("64x128,256x256,1024x512,1024x1024");
  cmd->add_option("--precision", a->precision, "the GEMMs' operands: fp32 (default), bf16 or fp16 (tensor cores)")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
  cmd->add_option("--adamw", a->adamw, "the GPU's AdamW kernel: reference (default) or exercise (your exercise_adamw.cu)")
      ->check(CLI::IsMember({"reference", "exercise"}));
  cmd->add_option("--col-sum", a->col_sum,
                  "the GPU's bias-gradient column sum: reference (default) or exercise (your exercise_col_sum.cu)")
      ->check(CLI::IsMember({"reference", "exercise"}));
  cmd->add_option("--layers", a->layers, "hidden layers (default 1; Will it fit?: more make activations grow)");
  cmd->add_option("--checkpoint", a->checkpoint,
                  "gradient checkpointing: keep every k-th hidden layer's output, recompute the rest in backward "
                  "(no value: k = ceil(sqrt(layers))); runs the plain step beside it")
      ->expected(0, 1)
      ->default_str("sqrt");
  cmd->add_option("--accumulate", a->accumulate,
                  "gradient accumulation: K micro-batches of batch / K rows, one AdamW step (default 1); runs the "
                  "full batch beside it");
  cmd->add_flag("--fit", a->fit,
                "no run: this step's device memory by the formula against the GPU model, and a 7B-parameter model's "
                "on every GPU model");
  cmd->add_option("--lessons", a->lessons_dir, "Lessons folder");
  cmd->add_flag("--json", a->json, "print one JSON object");
  cmd->callback([a, &rc] { rc = run_train(*a); });
});

}  // namespace
}  // namespace lab::cli
