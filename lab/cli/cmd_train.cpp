// gpulab train: lesson 10's training step, on the CPU and on the simulated
// GPU, side by side.
//
//   gpulab train [--batch 64] [--hidden 128] [--steps 5] [--precision fp32|bf16|fp16] [--gpu H100]
//                [--adamw reference|exercise] [--sweep [LIST]] [--json]
//
// The CPU runs lab/cpu/mlp_step.cpp (OpenBLAS GEMMs + loops) and is TIMED
// here. The GPU runs lessons/10-training-step/train.cu, an ordinary CUDA
// program, through `gpulab run` (every launch simulated, times PREDICTED by
// the cycle model, copies at the model's PCIe rate). Both train the same MLP
// from the same weights on the same batches, so the losses must agree and
// fall; the command fails (exit 1) when they do not. Then: where each step's
// time goes, part by part, the speedup against the peak-FLOP/s ratio, and
// (--sweep) how both change with batch and width.
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
#include "lab/cli/run_build.h"
#include "lab/cpu/gemm.h"
#include "lab/cpu/mlp_step.h"
#include "lab/cpu/timer.h"
#include "lab/lesson/workspace.h"
#include "lab/sim/cycle/params.h"
#include "lab/sim/device.h"

namespace lab::cli {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

struct TrainArgs {
  int batch = 64, hidden = 128, steps = 5;
  std::string gpu = "H100", lessons_dir, sweep, precision = "fp32", adamw = "reference";
  bool json = false;
};

// The launches of one step of train.cu, in its order, and the part of the
// step each belongs to (the CPU step times the same parts).
struct Role {
  const char* kernel;
  const char* what;
  const char* part;
};
constexpr Role kRoles[] = {
    {"matmul", "X W1 -> H", "gemm"},           {"bias_relu", "H + b1, ReLU", "elementwise"},
    {"matmul", "H W2 -> logits", "gemm"},      {"softmax_xent", "loss rows, dlogits", "elementwise"},
    {"mean_loss", "mean of the rows", "elementwise"}, {"matmul", "H^T dlogits -> dW2", "gemm"},
    {"col_sum", "-> db2", "elementwise"},      {"matmul", "dlogits W2^T -> dH", "gemm"},
    {"relu_backward", "dH masked", "elementwise"}, {"matmul", "X^T dH -> dW1", "gemm"},
    {"col_sum", "-> db1", "elementwise"},      {"adamw", "every parameter", "adamw"},
};
constexpr size_t kLaunchesPerStep = std::size(kRoles);

struct CpuRun {
  std::vector<double> losses;
  double step_ms = 0;  // median over timed steps
  std::map<std::string, double> part_ms;  // the median step's parts (they add up to step_ms)
  int timed_steps = 0;
};

struct GpuRun {
  std::vector<double> losses;
  std::vector<double> kernel_ms;     // per role, kernel time without the launch overhead, mean per step
  std::vector<std::string> launched; // per role, the kernel's name (matmul, matmul_bf16, ...)
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
    for (size_t i = 0; i < kernel_ms.size(); ++i) s += part == kRoles[i].part ? kernel_ms[i] : 0;
    return s;
  }
};

// The CPU step, measured: the given steps for the losses, then (on a fresh
// network, after one warm-up step) further steps timed until 0.3 s passed.
CpuRun run_cpu(const mlp::Shape& shape, int steps, cpu::Precision prec) {
  CpuRun r;
  cpu::MlpCpu net(shape, prec);
  for (int s = 0; s < steps; ++s) r.losses.push_back(net.step(s));
  cpu::MlpCpu timed(shape, prec);
  timed.step(0);  // warm-up: OpenBLAS's threads, page faults
  std::vector<double> totals;
  std::map<std::string, std::vector<double>> parts;
  double spent = 0;
  for (int s = 1; s <= 200 && (spent < 300 || totals.size() < 3); ++s) {
    cpu::MlpStepTimes t;
    timed.step(s, &t);
    totals.push_back(t.total_ms());
    parts["gemm"].push_back(t.gemm_ms);
    parts["elementwise"].push_back(t.elementwise_ms);
    parts["adamw"].push_back(t.adamw_ms);
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
  return r;
}

// Runs `gpulab run train.cu --json` (this binary) and reads its output.
// `adamw_reference`: train.cu builds with the reference AdamW kernel, else
// with the student's exercise_adamw.cu.
GpuRun run_gpu(const std::string& train_cu, const mlp::Shape& shape, int steps, cpu::Precision prec,
               const sim::GpuModel& gpu, bool adamw_reference, std::string& error) {
  GpuRun r;
  // The task header by absolute path: the lessons folder may be a copy away from the lab's sources.
  const std::string cmd = fmt::format(
      "'{}/gpulab' run '{}' --json --gpu {} -D ADAMW_REFERENCE={} -D 'MLP_TASK_HEADER=\"{}\"' -- {} {} {} {} 2>&1",
      gpulab_dir(), train_cu, gpu.name, adamw_reference ? 1 : 0, GPULAB_SOURCE_DIR "/lab/cpu/mlp_task.h",
      shape.batch, shape.hidden, steps, cpu::precision_name(prec));
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
  if (launches.size() != kLaunchesPerStep * size_t(steps) || r.losses.size() != size_t(steps)) {
    error = fmt::format("{} made {} launches and printed {} losses for {} steps; expected {} launches a step "
                        "(was train.cu changed? `gpulab train` reads it launch by launch)",
                        train_cu, launches.size(), r.losses.size(), steps, kLaunchesPerStep);
    return r;
  }
  // The cycle model adds a fixed launch cost to each launch's predicted
  // time (lab/sim/cycle/params.h); it is shown apart from the kernels' work.
  const double overhead_ms = sim::cycle::cycle_params(gpu).launch_overhead_s * 1e3;
  r.kernel_ms.assign(kLaunchesPerStep, 0.0);
  r.launched.assign(kLaunchesPerStep, "");
  for (size_t i = 0; i < launches.size(); ++i) {
    const auto& l = launches[i];
    const size_t role = i % kLaunchesPerStep;
    // Prefix: the mixed-precision GEMMs are matmul_bf16 / matmul_fp16.
    if (l.value("kernel", "").rfind(kRoles[role].kernel, 0) != 0) {
      error = fmt::format("launch {} of {} is {}, expected {}", i + 1, train_cu, l.value("kernel", ""),
                          kRoles[role].kernel);
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

// Device memory by group, as the lab's runtime counted it (cudaMemGetInfo
// before and after each group's cudaMalloc calls), and the same counts
// scaled to a large model: per parameter, fp32 weights + gradients + Adam's
// m and v are 4 + 4 + 8 = 16 bytes, whatever the model.
std::string memory_text(const GpuRun& g, const mlp::Shape& shape, const sim::GpuModel& gpu) {
  std::map<std::string, uint64_t> m(g.memory.begin(), g.memory.end());
  uint64_t total = 0;
  for (auto& [k, v] : g.memory) total += v;
  std::string t = fmt::format("\nMemory on the GPU (bytes the lab's runtime counted, cudaMemGetInfo around each group):\n");
  for (auto& [k, v] : g.memory)
    t += fmt::format("  {:<12} {:>12}  {:>5.1f}%\n", k, v, 100.0 * double(v) / double(total));
  const double per_param = double(m["weights"] + m["gradients"] + m["optimizer"]) / double(shape.params());
  t += fmt::format("  per parameter: {:.1f} bytes (fp32 weights, gradients, Adam's m and v); activations: {:.0f} bytes "
                   "per batch row\n",
                   per_param, double(m["activations"]) / shape.batch);
  const double p7 = 7e9, gb = 1e9;
  t += fmt::format("  scaled to 7e9 parameters: {:.0f} GB of weights + gradients + optimizer state (fp16 weights "
                   "alone would be {:.0f} GB), against the {}'s {:.0f} GB: {}\n",
                   per_param * p7 / gb, 2 * p7 / gb, gpu.name, double(gpu.dram_bytes) / gb,
                   per_param * p7 > double(gpu.dram_bytes) ? "it does not fit, before a single activation"
                                                          : "it fits, activations permitting");
  return t;
}

struct Outcome {
  json j;
  std::string text;
  bool ok = true;
};

Outcome run_one(const std::string& train_cu, const mlp::Shape& shape, int steps, cpu::Precision prec,
                const sim::GpuModel& gpu, bool adamw_reference) {
  Outcome o;
  CpuRun c = run_cpu(shape, steps, prec);
  std::string error;
  GpuRun g = run_gpu(train_cu, shape, steps, prec, gpu, adamw_reference, error);
  if (!error.empty()) {
    o.ok = false;
    o.text = error + "\n";
    o.j = {{"error", error}};
    return o;
  }
  // Loss tolerance: both sum in float in different orders (OpenBLAS's
  // blocking vs 16-wide tiles); 1e-3 absolute on a loss near 2 is far above
  // that rounding and far below a wrong gradient's effect after one step.
  double diff = 0;
  for (int s = 0; s < steps; ++s) diff = std::max(diff, std::fabs(c.losses[size_t(s)] - g.losses[size_t(s)]));
  const bool match = diff <= 1e-3, down = falls(c.losses) && falls(g.losses);
  o.ok = match && down;
  const double gpu_ms = g.step_ms(), speedup = c.step_ms / gpu_ms;
  json kernels = json::array();
  for (size_t i = 0; i < kLaunchesPerStep; ++i)
    kernels.push_back({{"kernel", g.launched[i]}, {"what", kRoles[i].what}, {"part", kRoles[i].part},
                       {"predicted_ms", g.kernel_ms[i]}});
  o.j = {{"shape", {{"batch", shape.batch}, {"in", shape.in}, {"hidden", shape.hidden}, {"classes", shape.classes},
                    {"params", shape.params()}}},
         {"gemm_flops_per_step", shape.gemm_flops()}, {"precision", cpu::precision_name(prec)},
         {"cpu", {{"label", "measured"}, {"losses", c.losses}, {"step_ms", c.step_ms}, {"timed_steps", c.timed_steps},
                  {"part_ms", c.part_ms}}},
         {"gpu", {{"label", "prediction"}, {"model", std::string(gpu.name)}, {"losses", g.losses},
                  {"step_ms", gpu_ms}, {"kernels", kernels}, {"launches_per_step", kLaunchesPerStep},
                  {"launch_overhead_ms", g.launch_overhead_ms}, {"pcie_ms", g.pcie_ms},
                  {"h2d_bytes", g.h2d_bytes}, {"d2h_bytes", g.d2h_bytes},
                  {"program_event_ms", g.program_event_ms}, {"memory_bytes", json(g.memory)}}},
         {"loss_max_abs_diff", diff}, {"losses_match", match}, {"losses_fall", down}, {"speedup", speedup}};

  std::string& t = o.text;
  t += fmt::format("MLP {} -> {} -> {}, batch {}, {} parameters, {} steps of AdamW, GEMMs in {}{}\n", shape.in,
                   shape.hidden, shape.classes, shape.batch, shape.params(), steps, cpu::precision_name(prec),
                   prec == cpu::Precision::fp32 ? ""
                                                : " (operands rounded to 16 bits, fp32 sums; fp32 master weights; "
                                                  "on the GPU the tensor cores, on the CPU the same rounding, emulated)");
  t += fmt::format("\n  {:>4}  {:>10}  {:>10}  {:>9}\n", "step", "CPU loss", "GPU loss", "|diff|");
  for (int s = 0; s < steps; ++s)
    t += fmt::format("  {:>4}  {:>10.6f}  {:>10.6f}  {:>9.2e}\n", s, c.losses[size_t(s)], g.losses[size_t(s)],
                     std::fabs(c.losses[size_t(s)] - g.losses[size_t(s)]));
  t += fmt::format("  losses {} (max |diff| {:.2e}, tolerance 1e-3) and {}\n", match ? "match" : "DO NOT MATCH", diff,
                   down ? "fall on both" : "DO NOT FALL");
  if (!match && !adamw_reference)
    t += "  The GPU ran your exercise_adamw.cu: until it is AdamW (`gpulab check 10-training-step/adamw`), its "
         "updates differ from the CPU's and so do the losses from step 1 on.\n";

  t += fmt::format("\nOne step, GPU kernel by kernel ({} launches; PREDICTED by the cycle model for the {}):\n",
                   kLaunchesPerStep, gpu.name);
  for (size_t i = 0; i < kLaunchesPerStep; ++i)
    t += fmt::format("  {:>2}  {:<14} {:<22} {:>9.4f} ms  {:>5.1f}%\n", i + 1, g.launched[i], kRoles[i].what,
                     g.kernel_ms[i], 100 * g.kernel_ms[i] / gpu_ms);
  t += fmt::format("      {:<37} {:>9.4f} ms  {:>5.1f}%\n",
                   fmt::format("launch overhead ({} x {:.0f} us)", kLaunchesPerStep,
                               1e3 * g.launch_overhead_ms / kLaunchesPerStep),
                   g.launch_overhead_ms, 100 * g.launch_overhead_ms / gpu_ms);
  t += fmt::format("      {:<37} {:>9.4f} ms  {:>5.1f}%\n",
                   fmt::format("PCIe: {} B in, {} B out", g.h2d_bytes, g.d2h_bytes), g.pcie_ms,
                   100 * g.pcie_ms / gpu_ms);
  t += fmt::format("      {:<37} {:>9.4f} ms  (the program's cudaEventElapsedTime, same model clock: {:.4f} ms)\n",
                   "predicted GPU step", gpu_ms, g.program_event_ms);

  t += memory_text(g, shape, gpu);
  t += fmt::format("\nWhere the time goes: CPU MEASURED here (the median of {} steps, OpenBLAS threads as configured), "
                   "GPU PREDICTED\n",
                   c.timed_steps);
  t += fmt::format("  {:<24} {:>11} {:>11} {:>9}\n", "part", "CPU ms", "GPU ms", "speedup");
  auto row = [&](const std::string& name, double cms, double gms) {
    t += fmt::format("  {:<24} {:>11.4f} {:>11.4f} {:>9}\n", name, cms, gms,
                     gms > 0 && cms > 0 ? fmt::format("{:.1f}x", cms / gms) : std::string("-"));
  };
  row("GEMMs (5)", c.part_ms["gemm"], g.part_ms("gemm"));
  row("elementwise, loss (6)", c.part_ms["elementwise"], g.part_ms("elementwise"));
  row("AdamW (1)", c.part_ms["adamw"], g.part_ms("adamw"));
  row("launch overhead", 0, g.launch_overhead_ms);
  row("PCIe copies", 0, g.pcie_ms);
  row("step", c.step_ms, gpu_ms);
  return o;
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

int run_train(const TrainArgs& a) {
  const sim::GpuModel* gpu = &resolved_gpu(a.gpu);
  if (a.batch < 1 || a.hidden < 1 || a.steps < 2) {
    std::fprintf(stderr, "gpulab train: --batch and --hidden must be >= 1 and --steps >= 2 (a falling loss needs two)\n");
    return kExitUsage;
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
  shape.batch = a.batch, shape.hidden = a.hidden;
  const bool adamw_reference = a.adamw != "exercise";
  const cpu::Precision prec = a.precision == "bf16"   ? cpu::Precision::bf16
                              : a.precision == "fp16" ? cpu::Precision::fp16
                                                      : cpu::Precision::fp32;
  Outcome o = run_one(train_cu, shape, a.steps, prec, *gpu, adamw_reference);
  json j = o.j;
  std::string text = o.text;
  bool ok = o.ok;

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

  if (!sweep.empty()) {
    j["sweep"] = json::array();
    text += fmt::format("\nSweep (2 steps each; CPU MEASURED, GPU PREDICTED for the {}):\n", gpu->name);
    text += fmt::format("  {:>6} {:>7} {:>10} {:>10} {:>10} {:>8} {:>9} {:>9} {:>9} {:>8}\n", "batch", "hidden",
                        "GEMM MFLOP", "CPU ms", "GPU ms", "speedup", "GPU GEMM", "overhead", "of peak", "cap");
    for (auto [b, h] : sweep) {
      mlp::Shape s;
      s.batch = b, s.hidden = h;
      Outcome r = run_one(train_cu, s, 2, prec, *gpu, adamw_reference);
      if (!r.j.contains("speedup")) {
        text += r.text;
        ok = false;
        continue;
      }
      ok = ok && r.ok;
      const double gms = r.j["gpu"]["step_ms"], cms = r.j["cpu"]["step_ms"], sp = r.j["speedup"];
      double gemm = 0;
      for (const auto& k : r.j["gpu"]["kernels"]) gemm += k["part"] == "gemm" ? k["predicted_ms"].get<double>() : 0;
      const double fixed = r.j["gpu"]["launch_overhead_ms"].get<double>() + r.j["gpu"]["pcie_ms"].get<double>();
      const double cap = cms / (cms / ratio + fixed);
      text += fmt::format("  {:>6} {:>7} {:>10.1f} {:>10.4f} {:>10.4f} {:>7.1f}x {:>8.0f}% {:>8.0f}% {:>8.1f}% {:>7.0f}x\n",
                          b, h, s.gemm_flops() / 1e6, cms, gms, sp, 100 * gemm / gms, 100 * fixed / gms,
                          100 * sp / ratio, cap);
      j["sweep"].push_back({{"batch", b}, {"hidden", h}, {"cpu_step_ms", cms}, {"gpu_step_ms", gms},
                            {"speedup", sp}, {"gpu_gemm_share", gemm / gms}, {"gpu_fixed_share", fixed / gms},
                            {"amdahl_cap", cap},
                            {"losses_match", r.j["losses_match"]}});
    }
    text += "  GPU GEMM: share of the predicted step in the five GEMMs; overhead: launches + PCIe; "
            "of peak: speedup / peak ratio;\n  cap: Amdahl's bound, every kernel at the peak ratio and the overhead "
            "left as it is.\n";
  }
  j["adamw"] = adamw_reference ? "reference" : "exercise";
  j["ok"] = ok;
  if (a.json) std::puts(j.dump(2).c_str());
  else std::fputs(text.c_str(), stdout);
  if (!ok) std::fprintf(stderr, "gpulab train: the CPU and simulated GPU losses must match and fall; see above\n");
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
  cmd->add_option("--lessons", a->lessons_dir, "Lessons folder");
  cmd->add_flag("--json", a->json, "print one JSON object");
  cmd->callback([a, &rc] { rc = run_train(*a); });
});

}  // namespace
}  // namespace lab::cli
