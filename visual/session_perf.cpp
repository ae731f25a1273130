// visual/session_perf.cpp: the roofline and the CPU-vs-GPU chart. GPU
// points are the machine model's predictions (lab/sim/report.h, as `gpulab
// bench` makes them, each version simulated through gemm::simulate_gemm on a
// low-priority thread); CPU points are measured here (lab/cpu/timer.h).
#include <fmt/format.h>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lab/gemm/gemm_problem.h"
#include "lab/lesson/layer_roofline.h"
#include "lab/gemm/gemm_sim.h"
#include "lab/compile/nvrtc.h"
#include "lab/cpu/gemm.h"
#include "lab/cpu/timer.h"
#include "lab/sim/report.h"
#include "visual/session_impl.h"

namespace lab::visual {

void Session::Impl::measure_cpu(int n) {
  if (!cpu_points.empty()) return;
  gemm::GemmProblem p = gemm::make_gemm_problem(n, n, n);
  std::vector<float> C(size_t(n) * n);
  cpu::TimingOptions to;
  to.min_repeats = 2, to.max_repeats = 5, to.min_total_seconds = 0.05;
  for (const auto& v : cpu::cpu_gemm_versions()) {
    cpu::Timing t = cpu::time_median([&] { v.fn(n, n, n, 1.f, p.A.data(), p.B.data(), 0.f, C.data(), 0); }, to);
    PerfPoint pt;
    pt.label = v.name;
    pt.seconds = t.median_ms / 1e3;
    pt.gflops = 2.0 * n * n * n / pt.seconds / 1e9;
    // Each of A, B and C crosses memory once at best: the CPU point's intensity.
    pt.intensity = 2.0 * n * n * n / (3.0 * n * n * 4);
    pt.cpu = pt.measured = true;
    cpu_points.push_back(pt);
  }
}

// One version's point: simulated at size n (no events), then the machine
// model's prediction (lab/sim/report.h), as `gpulab bench` makes it.
namespace {
PerfPoint predict_point(const gemm::GemmVersion& v, const std::string& gpu_name, int n, unsigned threads,
                        const std::atomic<bool>* cancel) {
  PerfPoint pt;
  pt.label = v.name;
  try {
    const sim::GpuModel& gpu = sim::gpu_model(gpu_name);
    gemm::GemmProblem p = gemm::make_gemm_problem(n, n, n);
    sim::SimOptions o;
    o.gpu = &gpu;
    o.threads = threads;
    o.cancel = cancel;
    // From 1024^3 (the demo's size) only the blocks the cycle model times
    // run: the prediction is the same within 3% (docs/benchmarks.md,
    // sampled vs full) and arrives while the chart is on screen.
    o.timing.sample_only = double(n) * n * n >= 1024.0 * 1024.0 * 1024.0;
    gemm::SimGemmRun run = gemm::simulate_gemm(v, p, o);
    if (run.unsupported) throw std::runtime_error(run.unsupported_reason);
    sim::KernelReport rep = sim::build_report(run.compiled, run.launch, run.result.metrics);
    pt.seconds = rep.predicted.time_s;
    pt.blocks = run.launch.grid.count();
    // The whole GEMM's work over the predicted time (a sampled run executed
    // only some blocks; the time is the whole launch's, as bench reports it).
    const double flop = 2.0 * n * n * n;
    pt.gflops = pt.seconds > 0 ? flop / pt.seconds / 1e9 : 0;
    pt.intensity = rep.predicted.arithmetic_intensity;
    if (o.timing.sample_only && run.result.metrics.blocks > 0) {
      // The sample's DRAM bytes are its blocks': scaled to the grid.
      const double bytes = double(rep.dram_read_bytes + rep.dram_write_bytes) * double(pt.blocks) /
                           double(run.result.metrics.blocks);
      if (bytes > 0) pt.intensity = flop / bytes;
    }
  } catch (const std::exception&) {
    pt.gflops = -1;  // no point: the label says why
    pt.label = v.name + " (no prediction)";
  }
  return pt;
}
}  // namespace

void Session::Impl::predict_all() {
  setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)), 19);
  uint64_t seen = 0;
  while (!stop->load()) {
    uint64_t gen = pred_generation.load();
    if (gen == seen) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    seen = gen;
    std::string gpu;
    {
      std::lock_guard lock(pred_mu);
      gpu = pred_gpu;
    }
    for (size_t i = 0; i < versions.size() && pred_generation.load() == gen && !stop->load(); ++i) {
      PerfPoint pt = predict_point(versions[i], gpu, cfg.predict_size, cfg.sim_threads, stop);
      std::lock_guard lock(pred_mu);
      if (pred_generation.load() == gen) pred_done.emplace_back(i, pt);
    }
  }
}

// Takes the predictor's new points (restarting it for a new GPU model):
// true when some arrived; *all once every version has its point.
bool Session::Impl::predict_next(bool* all) {
  if (gpu_points_model != cfg.gpu || gpu_points.size() != versions.size()) {
    gpu_points.assign(versions.size(), PerfPoint{});
    for (size_t i = 0; i < versions.size(); ++i) gpu_points[i].label = versions[i].name;
    gpu_points_model = cfg.gpu;
    {
      std::lock_guard lock(pred_mu);
      pred_gpu = cfg.gpu;
      pred_done.clear();
      ++pred_generation;
    }
    if (!predictor.joinable()) predictor = std::thread([this] { predict_all(); });
  }
  std::vector<std::pair<size_t, PerfPoint>> got;
  {
    std::lock_guard lock(pred_mu);
    got.swap(pred_done);
  }
  for (auto& [i, pt] : got)
    if (i < gpu_points.size()) gpu_points[i] = pt;
  if (!got.empty()) perf_charts();
  *all = true;
  for (const auto& g : gpu_points) *all &= g.gflops != 0;
  return !got.empty();
}

// Roofline and comparison from the CPU's measured points and the model's predictions.
void Session::Impl::perf_charts() {
  const sim::GpuModel& gpu = sim::gpu_model(cfg.gpu);
  measure_cpu(cfg.predict_size);
  size_t done = 0;
  for (const auto& g : gpu_points) done += g.gflops != 0;
  Roofline& r = base.roofline;
  r.device = fmt::format("{} model; GPU points predicted at {}^3{}", gpu.name, cfg.predict_size,
                         done < versions.size() ? fmt::format(" ({} of {} so far)", done, versions.size()) : "");
  r.peak_gflops = gpu.fp32_flops / 1e9;
  r.peak_tensor_gflops = gpu.fp16_tensor_flops / 1e9;
  r.bandwidth_gbs = gpu.dram_bytes_per_s / 1e9;
  r.sm_count = uint32_t(gpu.sm_count);
  r.problem = fmt::format("GEMM {}^3", cfg.predict_size);
  // Short labels on the roofline (every point of a GEMM this size sits near
  // the same intensity); the comparison chart spells the names out.
  auto short_label = [](const std::string& name) {
    size_t u = name.find('_', name.rfind("cpu_", 0) == 0 ? 4 : 0);
    return u == std::string::npos ? name : name.substr(0, u);
  };
  r.points = cpu_points;
  for (auto& pt : r.points) pt.label = short_label(pt.label);
  Comparison& cmp = base.comparison;
  cmp.problem = fmt::format("GEMM {}^3 (CPU measured here, GPU predicted by the {} model)", cfg.predict_size,
                            gpu.name);
  cmp.versions = cpu_points;
  for (size_t i = 0; i < gpu_points.size(); ++i) {
    PerfPoint pt = gpu_points[i];
    if (pt.gflops <= 0) continue;
    pt.current = int(i) == version;
    cmp.versions.push_back(pt);
    pt.label = short_label(pt.label);
    r.points.push_back(pt);
  }
  // The launch panel's predicted time: this version's point, when it is at the size on screen.
  if (version < int(gpu_points.size()) && gpu_points[size_t(version)].seconds > 0 && cfg.size == cfg.predict_size) {
    base.launch.predicted_seconds = gpu_points[size_t(version)].seconds;
    base.launch.predicted_note = fmt::format("predicted by the {} model at {}^3", gpu.name, cfg.predict_size);
  }
}

// A user's or a lesson's kernel: one point, the machine model's prediction
// for the launch just simulated (lab/sim/report.h, as `gpulab sim` reports it).
void Session::Impl::kernel_charts(const sim::RunOutcome& out, const sim::GpuModel& gpu) {
  kernel_point = PerfPoint{};
  kernel_point.label = out.kernel().name;
  try {
    sim::LaunchConfig lc;
    lc.grid = sim::Dim3{base.launch.grid[0], base.launch.grid[1], base.launch.grid[2]};
    lc.block = sim::Dim3{base.launch.block[0], base.launch.block[1], base.launch.block[2]};
    lc.dynamic_shared_bytes = base.launch.shared_bytes - out.kernel().static_shared_bytes;
    sim::KernelReport rep = sim::build_report(out.compiled, lc, out.result.metrics);
    kernel_point.intensity = rep.predicted.arithmetic_intensity;
    kernel_point.seconds = rep.predicted.time_s;
    kernel_point.gflops = rep.predicted.predicted_flops / 1e9;
    kernel_point.blocks = lc.grid.count();
    kernel_point.current = true;
  } catch (const std::exception& e) {
    kernel_point.label = e.what();
  }
  Roofline& r = base.roofline;
  r = Roofline{};
  r.device = fmt::format("{} model; the kernel's point predicted for this launch", gpu.name);
  r.peak_gflops = gpu.fp32_flops / 1e9;
  r.peak_tensor_gflops = gpu.fp16_tensor_flops / 1e9;
  r.bandwidth_gbs = gpu.dram_bytes_per_s / 1e9;
  r.sm_count = uint32_t(gpu.sm_count);
  r.problem = base.launch.kernel;
  if (kernel_point.gflops > 0 && kernel_point.intensity > 0) r.points.push_back(kernel_point);
  else if (kernel_point.seconds > 0)
    r.note = fmt::format("{} does no floating-point work (or moves no DRAM bytes), so it has no point on a FLOP/s "
                         "roofline; the model predicts {:.3g} us for this launch.",
                         out.kernel().name, kernel_point.seconds * 1e6);
  base.comparison = Comparison{};
  base.comparison.problem = fmt::format("{} (GPU predicted by the {} model)", base.launch.kernel, gpu.name);
  if (kernel_point.gflops > 0 && kernel_point.intensity > 0) base.comparison.versions.push_back(kernel_point);
}

// The layer's bound at each batch size on the fp16 tensor roofline (the
// table `gpulab lesson 07` prints, lab/lesson/layer_roofline.h): the points
// walk up the memory slope as the batch grows and meet the ridge near 512.
void Session::Impl::layer_charts(int in, int out) {
  const sim::GpuModel& gpu = sim::gpu_model(cfg.gpu);
  Roofline& r = base.roofline;
  r = Roofline{};
  r.device = fmt::format("{} model; a {} -> {} fp16 layer's roofline bound at each batch size (bounds, not "
                         "predictions)", gpu.name, in, out);
  r.peak_gflops = gpu.fp32_flops / 1e9;
  r.peak_tensor_gflops = gpu.fp16_tensor_flops / 1e9;
  r.bandwidth_gbs = gpu.dram_bytes_per_s / 1e9;
  r.sm_count = uint32_t(gpu.sm_count);
  r.problem = fmt::format("layer {} -> {}, batch 1 to 4096", in, out);
  for (const lesson::LayerPoint& p : lesson::layer_roofline(in, out, gpu)) {
    if (p.batch != 1 && p.batch != 8 && p.batch != 64 && p.batch != 512 && p.batch != 4096) continue;  // labels that fit
    PerfPoint pt;
    pt.bound = true;
    pt.label = fmt::format("B={}", p.batch);
    pt.intensity = p.intensity;
    pt.gflops = p.attainable / 1e9;
    pt.seconds = p.seconds;
    r.points.push_back(pt);
  }
  r.note = "Each point is the batch's bound: below the ridge the layer waits on DRAM (W is read whatever the "
           "batch), above it on the tensor cores.";
}

}  // namespace lab::visual
