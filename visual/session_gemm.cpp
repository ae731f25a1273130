// visual/session_gemm.cpp: a GEMM version of the progression, launched on
// the problem gemm::make_gemm_problem makes: a small run records every event
// (TraceRecorder) for stepping, a big one is watched live (LiveAggregator).
#include <fmt/format.h>

#include <chrono>

#include "lab/gemm/gemm_problem.h"
#include "lab/gemm/gemm_sim.h"
#include "lab/compile/nvrtc.h"
#include "lab/cuda/backend.h"
#include "lab/ptx/parser.h"
#include "lab/sim/limits.h"
#include "lab/sim/occupancy.h"
#include "visual/session_impl.h"

namespace lab::visual {

void Session::Impl::prepare() {
  replay.reset();
  live.reset();
  kernel_run.reset();
  timeline_reset();
  timeline_wanted = false;
  const sim::GpuModel& gpu = sim::gpu_model(cfg.gpu);
  const int n = cfg.size;
  const gemm::GemmVersion& v = versions.at(version);
  const bool big = n > cfg.trace_max_size;
  base.playback = Playback{};
  base.playback.status = big ? fmt::format("simulating {} at {}^3 live...", v.name, n)
                             : fmt::format("simulating {} at {}^3 on the CPU and recording its events...", v.name, n);
  publish(base);
  compiled = sim::compile_kernel({v.file, v.kernel, {}, {}}, gpu);
  timeline_for_gemm();
  const ptx::Kernel& k = compiled.kernel();
  sim::LaunchConfig lc = v.launch_config(n, n, n);
  sim::check_launch_limits(k, lc, gpu, compiled.resources());
  int regs = compiled.resources() ? compiled.resources()->registers : 32;
  sim::OccupancyInput oin{int(lc.block.count()), regs, int(k.static_shared_bytes), int(lc.dynamic_shared_bytes)};
  int bps = std::max(1, sim::occupancy_blocks_per_sm(gpu, oin));
  fill_static(gpu, lc, regs, bps);

  gemm::GemmProblem p = gemm::make_gemm_problem(n, n, n);
  sim::GlobalMemory mem;
  const gemm::GemmBuffers buf = gemm::place_gemm_operands(v, p, mem);
  const uint64_t a = buf.a, b = buf.b, c = buf.c, elem = buf.elem;
  auto params = gemm::gemm_params(v, k, p, buf);

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
    std::vector<sim::SharedServe> served;
    truncated = rec.truncated();
    rec.take(events, lanes, served);
    replay = std::make_unique<TraceReplay>(std::move(ctx), std::move(events), std::move(lanes), std::move(served));
    replay->set_exact_counts(result.metrics);
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


// The launch panel's static parts and the occupancy calculator.
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

  occupancy_model(gpu, int(lc.block.count()), regs, int(L.shared_bytes));

  perf_charts();  // also the launch panel's predicted time, once this version's point has arrived

  if (!lesson) progression_text();
}

// The occupancy calculator over the machine model, starting at the kernel's own numbers.
void Session::Impl::occupancy_model(const sim::GpuModel& gpu, int block_threads, int regs, int shared_bytes) {
  OccupancyModel& om = base.occupancy;
  om.gpu = std::string(gpu.name);
  om.max_threads_per_block = gpu.max_threads_per_block;
  om.max_registers_per_thread = gpu.max_regs_per_thread;
  om.max_shared_per_block = gpu.shared_per_block_optin ? gpu.shared_per_block_optin : gpu.shared_per_block;
  om.kernel = OccupancyQuery{block_threads, regs, shared_bytes};
  ++om.serial;
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

}  // namespace lab::visual
