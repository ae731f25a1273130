// visual/session_kernel.cpp: a kernel that is not a GEMM version (the user's
// FILE.cu, or a lesson step's exercise/solution/template at the lesson's
// size), launched through sim::run_kernel as `gpulab sim` launches it, with a
// TraceRecorder. Buffers the lesson declares two-dimensional (or, for a
// user's kernel, buffers with a square element count) are drawn as matrices.
#include <fmt/format.h>

#include <cmath>

#include "lab/compile/nvrtc.h"
#include "lab/sim/occupancy.h"
#include "visual/session_impl.h"

namespace lab::visual {

KernelRun Session::Impl::user_kernel() const {
  KernelRun r;
  r.request.file = cfg.file;
  r.request.kernel = cfg.kernel;
  r.request.launch.grid = sim::Dim3{cfg.grid[0], cfg.grid[1], cfg.grid[2]};
  r.request.launch.block = sim::Dim3{cfg.block[0], cfg.block[1], cfg.block[2]};
  r.request.args = cfg.args;
  r.request.gpu = &sim::gpu_model(cfg.gpu);
  r.label = cfg.file;
  return r;
}

KernelRun Session::Impl::lesson_kernel(int step) const {
  if (!lesson || step < 0 || step >= int(lesson->steps.size())) throw std::runtime_error("no such lesson step");
  const lesson::Step& st = lesson->steps[size_t(step)];
  if (!lesson->find_exercise(st.measure_exercise)) throw std::runtime_error("step " + std::to_string(step + 1) + " runs no kernel");
  const lesson::Exercise measured = lesson->measured_exercise(st);
  const lesson::Exercise* ex = &measured;
  lesson::MeasureRun m = lesson::measure_run(*lesson, *ex, st.measure_file, st.measure_kernel, cfg.gpu);
  KernelRun r;
  r.request = m.request;
  r.matrices = m.matrices;
  r.label = fmt::format("{} as {} at {}", lesson_file_label(st.measure_file), ex->id, m.sizes_text);
  r.lesson_step = step;
  return r;
}

void Session::Impl::prepare_kernel(const KernelRun& run) {
  replay.reset();
  live.reset();
  timeline_reset();
  timeline_wanted = false;
  timeline_for_kernel(run);
  const sim::GpuModel& gpu = *run.request.gpu;
  base.playback = Playback{};
  base.playback.status = fmt::format("simulating {} and recording its events...", run.label);
  publish(base);
  sim::RunRequest req = run.request;
  TraceRecorder rec(cfg.max_events);
  req.options.events = &rec;
  req.options.threads = 2;
  kernel_run = std::make_unique<sim::RunOutcome>(sim::run_kernel(req));
  const sim::RunOutcome& out = *kernel_run;
  const ptx::Kernel& k = out.kernel();
  int regs = out.compiled.resources() ? out.compiled.resources()->registers : 32;
  sim::OccupancyInput oin{int(req.launch.block.count()), regs, int(k.static_shared_bytes),
                          int(req.launch.dynamic_shared_bytes)};
  int bps = std::max(1, sim::occupancy_blocks_per_sm(gpu, oin));
  TraceContext ctx;
  ctx.module = &out.compiled.module();
  ctx.kernel = &k;
  ctx.sm_count = uint32_t(gpu.sm_count);
  ctx.max_warps_per_sm = uint32_t(gpu.max_warps_per_sm);
  ctx.blocks_per_sm = uint32_t(bps);
  const sim::Dim3 g = req.launch.grid, b = req.launch.block;
  ctx.grid[0] = g.x, ctx.grid[1] = g.y, ctx.grid[2] = g.z;
  ctx.block[0] = b.x, ctx.block[1] = b.y, ctx.block[2] = b.z;
  if (!run.matrices.empty()) {
    for (const auto& m : run.matrices)
      if (m.arg < out.specs.size() && out.specs[m.arg].is_buffer)
        ctx.matrices.push_back({m.name, out.args.buffer_address[m.arg], out.args.buffer_bytes[m.arg], m.rows, m.cols,
                                uint32_t(sim::elem_bytes(out.specs[m.arg].type))});
  } else {
    for (size_t i = 0; i < out.specs.size() && i < 8 && ctx.matrices.size() < 3; ++i) {
      if (!out.specs[i].is_buffer || !out.specs[i].count) continue;
      uint32_t eb = uint32_t(sim::elem_bytes(out.specs[i].type));
      uint64_t cnt = out.specs[i].count;
      uint32_t side = uint32_t(std::llround(std::sqrt(double(cnt))));
      uint32_t rows = uint64_t(side) * side == cnt ? side : 1, cols = uint32_t(cnt / rows);
      ctx.matrices.push_back({"arg" + std::to_string(i), out.args.buffer_address[i], out.args.buffer_bytes[i], rows,
                              cols, eb});
    }
  }
  ctx.source_lines = split_lines(read_file(req.file));
  ctx.source_name = run.label;
  ctx.ptx_lines = split_lines(out.compiled.ptx);
  std::vector<TraceEvent> events;
  std::vector<std::array<uint64_t, 32>> lanes;
  std::vector<sim::SharedServe> served;
  bool truncated = rec.truncated();
  rec.take(events, lanes, served);
  replay = std::make_unique<TraceReplay>(std::move(ctx), std::move(events), std::move(lanes), std::move(served));
  // The per-line numbers are the simulator's own, for the whole run (a cut trace replays only its start).
  replay->set_exact_counts(out.result.metrics);
  LaunchInfo& L = base.launch;
  L = LaunchInfo{};
  L.kernel = req.kernel;
  L.file = run.label;
  L.gpu = std::string(gpu.name);
  L.problem = run.lesson_step >= 0 ? run.label.substr(run.label.rfind(" at ") + 4)
                                   : fmt::format("{} arguments", req.args.size());
  L.grid[0] = g.x, L.grid[1] = g.y, L.grid[2] = g.z;
  L.block[0] = b.x, L.block[1] = b.y, L.block[2] = b.z;
  L.registers = uint32_t(regs);
  L.shared_bytes = k.static_shared_bytes + req.launch.dynamic_shared_bytes;
  L.backends = {"simulator"};
  L.lesson_step = run.lesson_step;
  occupancy_model(gpu, int(b.count()), regs, int(L.shared_bytes));
  base.sm.gpu = std::string(gpu.name);
  if (!lesson) {
    base.lesson = LessonText{};
    base.lesson.title = req.file;
    base.lesson.steps.push_back({req.kernel, "# " + req.kernel + "\n\n" + header_comment(req.file), "", "", {}, false});
  }
  kernel_charts(out, gpu);
  L.predicted_seconds = kernel_point.seconds;
  L.predicted_note = kernel_point.seconds > 0 ? fmt::format("predicted by the {} model for this launch", gpu.name)
                                              : "no prediction: " + kernel_point.label;
  base.playback.status = truncated ? fmt::format("replay: first {:.1f} M events; numbers: whole run", cfg.max_events / 1e6)
                         : !out.result.ok && !out.result.errors.empty()
                             ? out.result.errors[0].kind + ": " + out.result.errors[0].message
                             : "";
  base.playback.sim_seconds = out.result.metrics.sim_seconds;
}

}  // namespace lab::visual
