// visual/session.cpp: the worker: build a trace of the chosen kernel, replay
// it at the UI's speed, publish snapshots.
//
// Index
//   [PREPARE]  compile, parse, allocate A/B/C, launch with a TraceRecorder
//              (small runs) or a LiveAggregator published while it runs (big ones)
//   [PERF]     roofline and comparison: the machine model's predictions, CPU measured
//   [STATIC]   the parts of the snapshot that do not change while replaying
//   [LOOP]     commands, playback clock, publishing
#include "visual/session.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sstream>

#include "lab/gemm/gemm_problem.h"
#include "lab/gemm/gemm_registry.h"
#include "lab/gemm/gemm_sim.h"
#include "lab/compile/nvrtc.h"
#include "lab/cpu/gemm.h"
#include "lab/cuda/backend.h"
#include "lab/cpu/timer.h"
#include "lab/ptx/parser.h"
#include "lab/sim/device.h"
#include "lab/sim/occupancy.h"
#include "lab/sim/report.h"
#include "lab/sim/run.h"
#include "visual/live.h"
#include "visual/trace.h"

namespace lab::visual {

namespace {
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The comment block heading a kernel file: the story of that version.
std::string header_comment(const std::string& path) {
  std::string md;
  for (const std::string& l : split_lines(read_file(path))) {
    if (l.rfind("//", 0) != 0) break;
    std::string t = l.size() > 2 && l[2] == ' ' ? l.substr(3) : l.substr(2);
    md += t + "\n";
  }
  return md;
}

// A lesson README, one step per `## ` section.
LessonText lesson_from_readme(const std::string& dir) {
  LessonText lt;
  LessonStep cur;
  for (const std::string& l : split_lines(read_file(dir + "/README.md"))) {
    if (l.rfind("# ", 0) == 0 && lt.title.empty()) {
      lt.title = l.substr(2);
      continue;
    }
    if (l.rfind("## ", 0) == 0) {
      if (!cur.markdown.empty()) lt.steps.push_back(cur);
      cur = LessonStep{};
      cur.title = l.substr(3);
    }
    cur.markdown += l + "\n";
  }
  if (!cur.markdown.empty()) lt.steps.push_back(cur);
  return lt;
}
}  // namespace

struct Session::Impl {
  SessionConfig cfg;
  std::vector<gemm::GemmVersion> versions;
  int version = 0;
  std::atomic<int> want_version{-1};
  // What the replay points into: kept alive with it.
  sim::CompiledKernel compiled;  // the run path's value (lab/sim/compiled.h)
  std::unique_ptr<TraceReplay> replay;
  std::unique_ptr<LiveAggregator> live;  // instead of replay for a big run
  const std::atomic<bool>* stop = nullptr;
  ViewModel base;
  std::vector<PerfPoint> cpu_points;  // measured once, at predict_size
  // The roofline's GPU points: the machine model's prediction for each
  // version at predict_size, filled one per worker turn after a launch.
  std::vector<PerfPoint> gpu_points;
  std::string gpu_points_model;  // the GPU model they were predicted for
  // The predictor thread (lowest CPU priority, so a live run comes first):
  // it predicts every version for pred_gpu; a new generation restarts it.
  std::thread predictor;
  std::mutex pred_mu;
  std::string pred_gpu;
  std::atomic<uint64_t> pred_generation{0};
  std::vector<std::pair<size_t, PerfPoint>> pred_done;
  void predict_all();
  struct LaunchRequest { int version = -1, gpu = -1, size = -1; std::string backend; };
  std::mutex req_mu;
  std::optional<LaunchRequest> request;
  std::string backend_note;  // why the chosen backend is not the one shown
  bool playing = false;
  std::atomic<float> speed{400};
  double credit = 0;  // fractional instructions owed by the playback clock
  mutable std::mutex pub_mu;
  std::shared_ptr<const ViewModel> published = std::make_shared<ViewModel>();
  uint64_t serial = 0;
  std::mutex cmd_mu;
  std::vector<std::pair<PlayCommand, double>> commands;

  void publish(ViewModel vm) {
    vm.serial = ++serial;
    auto p = std::make_shared<const ViewModel>(std::move(vm));
    std::lock_guard lock(pub_mu);
    published = std::move(p);
  }
  void prepare();
  void prepare_user_kernel();
  std::unique_ptr<sim::RunOutcome> user_run;
  void measure_cpu(int n);
  bool predict_next(bool* all);
  void perf_charts();
  void apply_request(const LaunchRequest& r);
  void fill_static(const sim::GpuModel& gpu, const sim::LaunchConfig& lc, int regs, int blocks_per_sm);
};

// [PREPARE] --------------------------------------------------------------------
// A kernel of the user's: launched through run_kernel, as `gpulab sim` does;
// each buffer argument with a square element count is drawn as a matrix.
void Session::Impl::prepare_user_kernel() {
  replay.reset();
  const sim::GpuModel& gpu = sim::gpu_model(cfg.gpu);
  base.playback.status = fmt::format("simulating {} and recording its events...", cfg.kernel);
  publish(base);
  sim::RunRequest req;
  req.file = cfg.file;
  req.kernel = cfg.kernel;
  req.launch.grid = sim::Dim3{cfg.grid[0], cfg.grid[1], cfg.grid[2]};
  req.launch.block = sim::Dim3{cfg.block[0], cfg.block[1], cfg.block[2]};
  req.args = cfg.args;
  req.gpu = &gpu;
  TraceRecorder rec(cfg.max_events);
  req.options.events = &rec;
  req.options.threads = 2;
  user_run = std::make_unique<sim::RunOutcome>(sim::run_kernel(req));
  const sim::RunOutcome& out = *user_run;
  const ptx::Kernel& k = out.kernel();
  int regs = out.compiled.resources() ? out.compiled.resources()->registers : 32;
  sim::OccupancyInput oin{int(req.launch.block.count()), regs, int(k.static_shared_bytes), 0};
  int bps = std::max(1, sim::occupancy_blocks_per_sm(gpu, oin));
  TraceContext ctx;
  ctx.module = &out.compiled.module();
  ctx.kernel = &k;
  ctx.sm_count = uint32_t(gpu.sm_count);
  ctx.max_warps_per_sm = uint32_t(gpu.max_warps_per_sm);
  ctx.blocks_per_sm = uint32_t(bps);
  for (int d = 0; d < 3; ++d) ctx.grid[d] = cfg.grid[d], ctx.block[d] = cfg.block[d];
  static const char* names[] = {"arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7"};
  for (size_t i = 0; i < out.specs.size() && i < 8 && ctx.matrices.size() < 3; ++i) {
    if (!out.specs[i].is_buffer || !out.specs[i].count) continue;
    uint32_t eb = uint32_t(sim::elem_bytes(out.specs[i].type));
    uint64_t cnt = out.specs[i].count;
    uint32_t side = uint32_t(std::llround(std::sqrt(double(cnt))));
    uint32_t rows = uint64_t(side) * side == cnt ? side : 1, cols = uint32_t(cnt / rows);
    ctx.matrices.push_back({names[i], out.args.buffer_address[i], out.args.buffer_bytes[i], rows, cols, eb});
  }
  ctx.source_lines = split_lines(read_file(cfg.file));
  ctx.source_name = cfg.file;
  ctx.ptx_lines = split_lines(out.compiled.ptx);
  std::vector<TraceEvent> events;
  std::vector<std::array<uint64_t, 32>> lanes;
  bool truncated = rec.truncated();
  rec.take(events, lanes);
  replay = std::make_unique<TraceReplay>(std::move(ctx), std::move(events), std::move(lanes));
  LaunchInfo& L = base.launch;
  L = LaunchInfo{};
  L.kernel = cfg.kernel;
  L.file = cfg.file;
  L.gpu = std::string(gpu.name);
  L.problem = fmt::format("{} arguments", cfg.args.size());
  for (int d = 0; d < 3; ++d) L.grid[d] = cfg.grid[d], L.block[d] = cfg.block[d];
  L.registers = uint32_t(regs);
  L.shared_bytes = k.static_shared_bytes;
  L.backends = {"simulator"};
  base.sm.gpu = std::string(gpu.name);
  base.lesson = LessonText{};
  base.lesson.title = cfg.file;
  base.lesson.steps.push_back({cfg.kernel, "# " + cfg.kernel + "\n\n" + header_comment(cfg.file), "", ""});
  base.playback.status = truncated ? fmt::format("trace cut at {} events: launch fewer blocks", cfg.max_events)
                         : !out.result.ok && !out.result.errors.empty() ? out.result.errors[0].kind + ": " + out.result.errors[0].message
                                                                        : "";
  base.playback.sim_seconds = out.result.metrics.sim_seconds;
}

void Session::Impl::prepare() {
  replay.reset();
  live.reset();
  const sim::GpuModel& gpu = sim::gpu_model(cfg.gpu);
  const int n = cfg.size;
  const gemm::GemmVersion& v = versions.at(version);
  const bool big = n > cfg.trace_max_size;
  base.playback = Playback{};
  base.playback.status = big ? fmt::format("simulating {} at {}^3 live...", v.name, n)
                             : fmt::format("simulating {} at {}^3 on the CPU and recording its events...", v.name, n);
  publish(base);
  compiled = sim::compile_kernel({v.file, v.kernel, {}, {}}, gpu);
  const ptx::Kernel& k = compiled.kernel();
  sim::LaunchConfig lc = v.launch_config(n, n, n);
  sim::check_launch_limits(k, lc, gpu, compiled.resources());
  int regs = compiled.resources() ? compiled.resources()->registers : 32;
  sim::OccupancyInput oin{int(lc.block.count()), regs, int(k.static_shared_bytes), int(lc.dynamic_shared_bytes)};
  int bps = std::max(1, sim::occupancy_blocks_per_sm(gpu, oin));
  fill_static(gpu, lc, regs, bps);

  gemm::GemmProblem p = gemm::make_gemm_problem(n, n, n);
  const bool half = v.precision == gemm::Precision::Fp16;
  const uint64_t elem = half ? 2 : 4;
  sim::GlobalMemory mem;
  uint64_t a = mem.allocate(uint64_t(n) * n * elem, "A"), b = mem.allocate(uint64_t(n) * n * elem, "B"),
           c = mem.allocate(uint64_t(n) * n * 4, "C");
  if (half) {
    mem.write(a, p.A16.data(), p.A16.size() * 2);
    mem.write(b, p.B16.data(), p.B16.size() * 2);
  } else {
    mem.write(a, p.A.data(), p.A.size() * 4);
    mem.write(b, p.B.data(), p.B.size() * 4);
  }
  mem.write(c, p.C0.data(), p.C0.size() * 4);
  auto params = gemm::pack_gemm_params(k, n, n, n, p.alpha, a, b, p.beta, c);

  TraceContext ctx;
  ctx.module = &compiled.module();
  ctx.kernel = &k;
  ctx.sm_count = uint32_t(gpu.sm_count);
  ctx.max_warps_per_sm = uint32_t(gpu.max_warps_per_sm);
  ctx.blocks_per_sm = uint32_t(bps);
  ctx.grid[0] = lc.grid.x, ctx.grid[1] = lc.grid.y, ctx.grid[2] = lc.grid.z;
  ctx.block[0] = lc.block.x, ctx.block[1] = lc.block.y, ctx.block[2] = lc.block.z;
  ctx.matrices = {{"A", a, uint64_t(n) * n * elem, uint32_t(n), uint32_t(n), uint32_t(elem)},
                  {"B", b, uint64_t(n) * n * elem, uint32_t(n), uint32_t(n), uint32_t(elem)},
                  {"C", c, uint64_t(n) * n * 4, uint32_t(n), uint32_t(n), 4}};
  ctx.source_lines = split_lines(read_file(v.file));
  ctx.source_name = "kernels/gemm/" + v.file.substr(v.file.find_last_of('/') + 1);
  ctx.ptx_lines = split_lines(compiled.ptx);

  sim::SimOptions opt;
  opt.gpu = &gpu;
  sim::LaunchResult result;
  bool truncated = false;
  if (!big) {
    // A small run: record every event, so the views can step through it.
    TraceRecorder rec(cfg.max_events);
    opt.events = &rec;
    opt.threads = 2;
    result = sim::launch(compiled, lc, params, mem, opt);
    std::vector<TraceEvent> events;
    std::vector<std::array<uint64_t, 32>> lanes;
    truncated = rec.truncated();
    rec.take(events, lanes);
    replay = std::make_unique<TraceReplay>(std::move(ctx), std::move(events), std::move(lanes));
  } else {
    // A big run: the simulator runs on its own threads into a LiveAggregator;
    // this thread publishes what it has gathered at about the UI's frame rate.
    live = std::make_unique<LiveAggregator>(std::move(ctx), cfg.event_every);
    opt.events = live.get();
    opt.event_every = cfg.event_every;
    opt.threads = cfg.sim_threads;
    std::atomic<bool> cancel{false}, done{false};
    opt.cancel = &cancel;
    std::string error;
    std::thread sim_thread([&] {
      try {
        result = sim::launch(compiled, lc, params, mem, opt);
      } catch (const std::exception& e) {
        error = e.what();
      }
      done = true;
    });
    auto t0 = std::chrono::steady_clock::now();
    while (!done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(33));
      bool pending;
      {
        std::lock_guard lock(req_mu);
        pending = request.has_value();
      }
      if ((stop && stop->load()) || want_version.load() >= 0 || pending) cancel = true;
      ViewModel vm = base;
      live->fill(vm);
      vm.playback.sim_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      vm.playback.status = fmt::format("live run ({}^3 > {}^3): events sampled 1 in {}; stepping needs a small run",
                                       n, cfg.trace_max_size, cfg.event_every);
      publish(std::move(vm));
    }
    sim_thread.join();
    if (!error.empty()) throw std::runtime_error(error);
    live->finish(result.metrics);
    if (cancel) base.playback.status = "cancelled";
  }
  base.playback.sim_seconds = result.metrics.sim_seconds;
  if (cfg.print_sim_time)
    std::printf("simulated %s %d^3 on %s in %.3f s (%s)\n", v.name.c_str(), n, cfg.gpu.c_str(),
                result.metrics.sim_seconds,
                big ? fmt::format("live view, events sampled 1 in {}", cfg.event_every).c_str() : "full trace");
  std::fflush(stdout);
  if (big && base.playback.status == "cancelled") return;
  base.playback.status = truncated ? fmt::format("trace cut at {} events: pick a smaller size", cfg.max_events)
                         : !result.ok && !result.errors.empty() ? "kernel error: " + result.errors[0].message
                         : big ? fmt::format("live run of {}^3: stepping needs a small run (size {} or less)", n,
                                             cfg.trace_max_size)
                               : "";
}

// [PERF] -----------------------------------------------------------------------
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
    gemm::SimGemmRun run = gemm::simulate_gemm(v, p, o);
    if (run.unsupported) throw std::runtime_error(run.unsupported_reason);
    sim::KernelReport rep = sim::build_report(run.compiled, run.launch, run.result.metrics);
    pt.intensity = rep.predicted.arithmetic_intensity;
    pt.seconds = rep.predicted.time_s;
    pt.gflops = rep.predicted.predicted_flops / 1e9;
  } catch (const std::exception&) {
    pt.gflops = -1;  // no point: the label says why
    pt.label = v.name + " (no prediction)";
  }
  return pt;
}

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
}

// [STATIC] ---------------------------------------------------------------------
void Session::Impl::fill_static(const sim::GpuModel& gpu, const sim::LaunchConfig& lc, int regs, int bps) {
  const gemm::GemmVersion& v = versions.at(version);
  const int n = cfg.size;
  LaunchInfo& L = base.launch;
  L = LaunchInfo{};
  L.kernel = v.kernel;
  L.file = "kernels/gemm/" + v.file.substr(v.file.find_last_of('/') + 1);
  L.gpu = std::string(gpu.name);
  L.problem = fmt::format("M=N=K={} ({})", n, gemm::precision_name(v.precision));
  L.grid[0] = lc.grid.x, L.grid[1] = lc.grid.y, L.grid[2] = lc.grid.z;
  L.block[0] = lc.block.x, L.block[1] = lc.block.y, L.block[2] = lc.block.z;
  L.registers = uint32_t(regs);
  L.shared_bytes = 0;
  for (const auto& k : compiled.module().kernels)
    if (k.name == v.kernel) L.shared_bytes = k.static_shared_bytes + lc.dynamic_shared_bytes;
  for (const auto& vv : versions) L.kernels.push_back(vv.name);
  for (const auto& g : sim::all_gpu_models()) L.gpus.push_back(std::string(g.name));
  L.sizes = {"32", "64", "128", "256", "512"};
  L.current_kernel = version;
  for (size_t i = 0; i < L.gpus.size(); ++i)
    if (L.gpus[i] == gpu.name) L.current_gpu = int(i);
  for (size_t i = 0; i < L.sizes.size(); ++i)
    if (L.sizes[i] == std::to_string(n)) L.current_size = int(i);
  L.backends = {"simulator", "cuda"};
  L.backend = "simulator";
  base.sm.gpu = std::string(gpu.name);

  // Occupancy calculator over the machine model.
  OccupancyModel& om = base.occupancy;
  om.gpu = std::string(gpu.name);
  om.max_threads_per_block = gpu.max_threads_per_block;
  om.max_registers_per_thread = gpu.max_regs_per_thread;
  om.max_shared_per_block = gpu.shared_per_block_optin ? gpu.shared_per_block_optin : gpu.shared_per_block;
  om.kernel = OccupancyQuery{int(lc.block.count()), regs, int(L.shared_bytes)};
  const sim::GpuModel* g = &gpu;
  om.compute = [g](const OccupancyQuery& q) {
    OccupancyAnswer a;
    a.max_warps_per_sm = g->max_warps_per_sm;
    try {
      sim::Occupancy o = sim::compute_occupancy(*g, sim::OccupancyInput{q.block_threads, q.registers, q.shared_bytes, 0});
      a.blocks_per_sm = o.blocks_per_sm;
      a.warps_per_sm = o.warps_per_sm;
      auto lim = [](int x) { return x >= sim::Occupancy::kUnlimited ? 9999 : x; };
      a.by_warps = lim(o.limit_warps), a.by_registers = lim(o.limit_registers);
      a.by_shared = lim(o.limit_shared), a.by_blocks = lim(o.limit_blocks);
      a.limiter = sim::limiter_name(o.limiter);
      a.explanation = o.explanation;
    } catch (const std::exception& e) {
      a.limiter = "cannot launch";
      a.explanation = e.what();
    }
    return a;
  };

  perf_charts();

  // Lesson text: a lesson's README, or each version's header comment.
  if (!cfg.lesson_dir.empty()) {
    base.lesson = lesson_from_readme(cfg.lesson_dir);
  } else {
    base.lesson = LessonText{};
    base.lesson.title = "The GEMM progression";
    for (const auto& vv : versions) {
      LessonStep s;
      s.title = vv.name;
      s.markdown = "# " + vv.name + "\n\n" + header_comment(vv.file);
      s.run_label = "Run " + vv.name;
      s.run_target = vv.name;
      base.lesson.steps.push_back(s);
    }
  }
}

// The launch panel's Run: the chosen model and size apply to the next launch.
void Session::Impl::apply_request(const LaunchRequest& r) {
  const LaunchInfo& L = base.launch;
  if (r.gpu >= 0 && r.gpu < int(L.gpus.size())) cfg.gpu = L.gpus[r.gpu];
  if (r.size >= 0 && r.size < int(L.sizes.size())) cfg.size = std::stoi(L.sizes[r.size]);
  if (r.version >= 0 && r.version < int(versions.size())) version = r.version;
  backend_note.clear();
  if (r.backend == "cuda") {
    std::string why;
    backend_note = cuda::cuda_available(&why)
                       ? "backend cuda: the view traces the simulator; `gpulab bench --backend cuda` times the GPU"
                       : "backend cuda is unavailable here (" + why + "): shown in the simulator";
  }
}

// [LOOP] -----------------------------------------------------------------------
// One turn of the worker: apply the UI's commands, advance the playback clock, publish.
void play_tick(Session::Impl& I, std::chrono::steady_clock::time_point& last, bool& dirty) {
  std::vector<std::pair<PlayCommand, double>> cmds;
  {
    std::lock_guard lock(I.cmd_mu);
    cmds.swap(I.commands);
  }
  for (auto [c, arg] : cmds) {
    dirty = true;
    if (!I.replay) continue;
    switch (c) {
      case PlayCommand::Play: I.playing = true; break;
      case PlayCommand::Pause: I.playing = false; break;
      case PlayCommand::Toggle: I.playing = !I.playing; break;
      case PlayCommand::StepInstr: I.playing = false; I.replay->step_instr(); break;
      case PlayCommand::StepBarrier: I.playing = false; I.replay->step_barrier(); break;
      case PlayCommand::StepWave: I.playing = false; I.replay->step_wave(); break;
      case PlayCommand::Restart: I.replay->seek(0); break;
      case PlayCommand::Seek: I.replay->seek(uint64_t(arg * I.replay->size())); break;
      case PlayCommand::None: break;
    }
  }
  auto now = std::chrono::steady_clock::now();
  double dt = std::chrono::duration<double>(now - last).count();
  last = now;
  if (I.playing && I.replay) {
    I.credit += dt * I.speed.load();
    uint64_t n = uint64_t(I.credit);
    I.credit -= double(n);
    for (uint64_t i = 0; i < n && I.replay->cursor() < I.replay->size(); ++i) I.replay->step_instr();
    if (I.replay->cursor() >= I.replay->size()) I.playing = false;
    dirty |= n > 0;
  }
  if (dirty) {
    ViewModel vm = I.base;
    if (I.replay) I.replay->fill(vm);
    else if (I.live) I.live->fill(vm);
    vm.playback.playing = I.playing;
    I.publish(std::move(vm));
    dirty = false;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(15));
}

Session::Session(SessionConfig cfg) : impl_(std::make_unique<Impl>()) {
  impl_->cfg = std::move(cfg);
  impl_->stop = &stop_;
  impl_->speed = impl_->cfg.speed;
  impl_->playing = impl_->cfg.autoplay;
  worker_ = std::thread([this] { run(); });
}

Session::~Session() {
  stop_ = true;
  if (worker_.joinable()) worker_.join();
}

std::shared_ptr<const ViewModel> Session::snapshot() const {
  std::lock_guard lock(impl_->pub_mu);
  return impl_->published;
}

void Session::send(UiState& ui) {
  impl_->speed = ui.speed;
  if (ui.command != PlayCommand::None) {
    std::lock_guard lock(impl_->cmd_mu);
    impl_->commands.emplace_back(ui.command, ui.seek_fraction);
    ui.command = PlayCommand::None;
  }
  auto choose = [&](const std::string& name) {
    for (size_t i = 0; i < impl_->versions.size(); ++i)
      if (impl_->versions[i].name == name) select_version(int(i));
  };
  if (!ui.run_target.empty()) choose(ui.run_target), ui.run_target.clear();
  if (ui.launch_requested) {
    ui.launch_requested = false;
    request_launch(ui.kernel_choice, ui.gpu_choice, ui.size_choice, ui.backend_choice);
  }
}

void Session::select_version(int index) { impl_->want_version = index; }

void Session::request_launch(int version, int gpu, int size, int backend) {
  Impl::LaunchRequest r{version, gpu, size, backend == 1 ? "cuda" : "simulator"};
  std::lock_guard lock(impl_->req_mu);
  impl_->request = r;
}
int Session::version_count() const { return int(impl_->versions.size()); }

void Session::run() {
  Impl& I = *impl_;
  if (!I.cfg.file.empty()) {
    try {
      I.prepare_user_kernel();
      if (I.replay && I.cfg.start_fraction > 0) I.replay->seek(uint64_t(I.cfg.start_fraction * I.replay->size()));
    } catch (const std::exception& e) {
      I.replay.reset();
      I.base.playback.status = std::string("error: ") + e.what();
    }
  }
  if (!I.cfg.file.empty()) {
    ready_ = true;
    charts_ready_ = true;
    bool dirty = true;
    auto last = std::chrono::steady_clock::now();
    while (!stop_) play_tick(I, last, dirty);
    return;
  }
  try {
    I.versions = gemm::load_gemm_versions();
  } catch (const std::exception& e) {
    I.base.playback.status = std::string("cannot load the GEMM progression: ") + e.what();
    I.publish(I.base);
    ready_ = true;
    charts_ready_ = true;
    return;
  }
  I.version = std::min<int>(2, int(I.versions.size()) - 1);
  for (size_t i = 0; i < I.versions.size(); ++i)
    if (I.versions[i].name == I.cfg.version || I.versions[i].kernel == I.cfg.version) I.version = int(i);
  I.want_version = I.version;
  auto last = std::chrono::steady_clock::now();
  bool dirty = true;
  while (!stop_) {
    int want = I.want_version.exchange(-1);
    std::optional<Impl::LaunchRequest> req;
    {
      std::lock_guard lock(I.req_mu);
      req.swap(I.request);
    }
    if (req) {
      I.apply_request(*req);
      charts_ready_ = false;  // a new GPU model needs its own predictions
      want = I.version;
    }
    if (want >= 0 && want < int(I.versions.size())) {
      I.version = want;
      try {
        I.prepare();
        if (I.replay && I.cfg.start_fraction > 0) I.replay->seek(uint64_t(I.cfg.start_fraction * I.replay->size()));
      } catch (const std::exception& e) {
        I.replay.reset();
        I.live.reset();
        I.base.playback.status = std::string("error: ") + e.what();
      }
      if (!I.backend_note.empty())
        I.base.playback.status = I.base.playback.status.empty() ? I.backend_note
                                                                : I.backend_note + "; " + I.base.playback.status;
      ready_ = true;
      dirty = true;
    } else if (ready_ && !charts_ready_) {
      bool all = false;
      if (I.predict_next(&all)) dirty = true;  // more versions on the roofline
      if (all) charts_ready_ = true;
    }
    play_tick(I, last, dirty);
  }
  if (I.predictor.joinable()) I.predictor.join();
}


}  // namespace lab::visual
