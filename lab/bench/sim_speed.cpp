#include "lab/bench/sim_speed.h"

#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "lab/gemm/gemm_problem.h"
#include "lab/gemm/gemm_registry.h"
#include "lab/gemm/gemm_sim.h"
#include "lab/sim/cycle/result.h"

namespace lab::bench {
using namespace lab::gemm;  // the GEMM versions and problem (lab/gemm)

SimSpeed measure_sim_speed(const SimSpeedOptions& o) {
  const std::string name = "03_smem_tiled";
  GemmVersion v;
  bool found = false;
  for (const auto& x : load_gemm_versions())
    if (x.name == name) { v = x; found = true; }
  if (!found) throw ManifestError(fmt::format("{}: no version named {}", default_gemm_manifest(), name));

  SimSpeed s;
  s.kernel = v.kernel;
  s.speed_size = o.speed_size;
  sim::SimOptions so;
  so.gpu = o.gpu;  // resolved by the caller
  so.threads = 1;  // per-core speed: one worker
  so.timing.mode = sim::TimingMode::Off;  // the interpreter alone (the cycle model is measured below)
  if (o.progress) o.progress(fmt::format("sim speed: {} at {}^3 on 1 worker ...", name, o.speed_size));
  GemmProblem p = make_gemm_problem(o.speed_size, o.speed_size, o.speed_size);
  simulate_gemm(v, p, so);  // warm: compile cache, page faults
  SimGemmRun run = simulate_gemm(v, p, so);
  s.speed_seconds = run.result.metrics.sim_seconds;
  s.thread_insts = double(run.result.metrics.total_thread_insts());
  s.thread_insts_per_s_per_core = s.speed_seconds > 0 ? s.thread_insts / s.speed_seconds : 0;
  bool ok = run.result.ok && check_gemm(p, v.precision, run.C.data()).correct;

  {
    sim::SimOptions co = so;
    co.timing.mode = sim::TimingMode::Full;
    if (o.progress) o.progress(fmt::format("cycle model speed: {} at {}^3, every block timed ...", name, o.speed_size));
    SimGemmRun timed = simulate_gemm(v, p, co);
    if (const auto& c = timed.result.metrics.cycle) {
      s.cycle_warp_insts = double(c->issued);
      s.cycle_seconds = c->model_seconds;
      s.cycle_warp_insts_per_s = c->model_seconds > 0 ? double(c->issued) / c->model_seconds : 0;
      s.cycle_cpu_seconds = c->model_cpu_seconds;
      s.cycle_warp_insts_per_cpu_s = c->model_cpu_seconds > 0 ? double(c->issued) / c->model_cpu_seconds : 0;
    }
    ok = ok && timed.result.ok && check_gemm(p, v.precision, timed.C.data()).correct;
  }

  s.end_to_end_size = o.end_to_end_size;
  s.end_to_end_threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  if (o.progress)
    o.progress(fmt::format("sim speed: {} at {}^3 end to end on {} workers ...", name, o.end_to_end_size,
                           s.end_to_end_threads));
  auto t0 = std::chrono::steady_clock::now();
  GemmProblem big = make_gemm_problem(o.end_to_end_size, o.end_to_end_size, o.end_to_end_size);
  so.threads = s.end_to_end_threads;
  SimGemmRun run2 = simulate_gemm(v, big, so);
  ok = ok && run2.result.ok && check_gemm(big, v.precision, run2.C.data()).correct;
  s.end_to_end_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.correct = ok;
  return s;
}

std::string format_sim_speed(const SimSpeed& s) {
  return fmt::format(
      "simulator speed on {} (events off)\n"
      "  {}^3, 1 worker:       {:.3g} thread-instructions in {:.2f} s = {:.3g} thread-instructions/s per core\n"
      "  {}^3 end to end, {} workers: {:.2f} s (reference built, compiled, simulated, checked)\n"
      "  cycle model, {}^3, every block timed: {:.3g} warp instructions in {:.2f} s = {:.3g} warp-instructions/s "
      "per core\n"
      "    (its thread's CPU time {:.2f} s = {:.3g} warp-instructions per CPU second)\n"
      "  results {}\n",
      s.kernel, s.speed_size, s.thread_insts, s.speed_seconds, s.thread_insts_per_s_per_core, s.end_to_end_size,
      s.end_to_end_threads, s.end_to_end_seconds, s.speed_size, s.cycle_warp_insts, s.cycle_seconds,
      s.cycle_warp_insts_per_s, s.cycle_cpu_seconds, s.cycle_warp_insts_per_cpu_s,
      s.correct ? "match the float64 reference" : "WRONG");
}

nlohmann::json sim_speed_json(const SimSpeed& s) {
  return {{"kernel", s.kernel},
          {"speed_size", s.speed_size},
          {"speed_seconds", s.speed_seconds},
          {"thread_insts", s.thread_insts},
          {"thread_insts_per_s_per_core", s.thread_insts_per_s_per_core},
          {"end_to_end_size", s.end_to_end_size},
          {"end_to_end_threads", s.end_to_end_threads},
          {"end_to_end_seconds", s.end_to_end_seconds},
          {"cycle_warp_insts", s.cycle_warp_insts},
          {"cycle_seconds", s.cycle_seconds},
          {"cycle_warp_insts_per_s_per_core", s.cycle_warp_insts_per_s},
          {"cycle_cpu_seconds", s.cycle_cpu_seconds},
          {"cycle_warp_insts_per_cpu_s", s.cycle_warp_insts_per_cpu_s},
          {"correct", s.correct}};
}

}  // namespace lab::bench
