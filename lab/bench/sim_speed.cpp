#include "lab/bench/sim_speed.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "lab/gemm/gemm_problem.h"
#include "lab/gemm/gemm_registry.h"
#include "lab/gemm/gemm_sim.h"
#include "lab/sim/arg_spec.h"
#include "lab/sim/compiled.h"
#include "lab/sim/cycle/result.h"

namespace lab::bench {
using namespace lab::gemm;  // the GEMM versions and problem (lab/gemm)

namespace {

// The family a GEMM version's hot loop belongs to, by its place in the
// ladder (kernels/gemm/gemm.toml): what the interpreter spends its time on.
std::string gemm_family(const std::string& name) {
  if (name.rfind("01_", 0) == 0) return "uncoalesced";    // A walked down columns: 32 sectors a request
  if (name.rfind("02_", 0) == 0) return "coalesced";
  if (name.rfind("03_", 0) == 0) return "shared-heavy";   // two ld.shared per FMA
  if (name.rfind("08_", 0) == 0 || name.rfind("09_", 0) == 0) return "tensor";
  return "register-tiled";
}

// One element per thread: the coalesced, memory-bound family at its purest.
constexpr const char* kVectorAdd = R"(
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

struct OneRun {
  double thread_insts = 0, cpu = 0, wall = 0;
  bool correct = false;
};

// Runs `run` (one launch, returning its metrics' figures) twice on one worker
// and twice on `workers`, and fills the row.
template <class Run>
void measure_row(SimSpeedRow& row, unsigned workers, Run&& run) {
  OneRun a = run(1u), b = run(1u);
  const OneRun& best = a.cpu <= b.cpu ? a : b;
  row.thread_insts = best.thread_insts;
  row.cpu_seconds = best.cpu;
  row.wall_seconds = best.wall;
  row.thread_insts_per_cpu_s = best.cpu > 0 ? best.thread_insts / best.cpu : 0;
  row.workers = workers;
  OneRun c = run(workers), d = run(workers);
  row.workers_wall_seconds = std::min(c.wall, d.wall);
  const double one_wall = std::min(a.wall, b.wall);
  row.speedup = row.workers_wall_seconds > 0 ? one_wall / row.workers_wall_seconds : 0;
  row.correct = a.correct && b.correct && c.correct && d.correct;
}

bool wanted(const SimSpeedOptions& o, const std::string& name) {
  return o.only.empty() || std::find(o.only.begin(), o.only.end(), name) != o.only.end();
}

SimSpeedRow vector_add_row(const SimSpeedOptions& o) {
  SimSpeedRow row;
  row.family = "coalesced";
  row.kernel = "vector_add";
  row.problem = fmt::format("{} elements", o.vector_elements);
  sim::KernelSource src;
  src.file = "vector_add (bench sim)";
  src.kernel = "vector_add";
  src.text = kVectorAdd;
  const sim::CompiledKernel k = sim::compile_kernel(src, *o.gpu);
  const uint64_t n = o.vector_elements;
  sim::LaunchConfig cfg;
  cfg.block = {256, 1, 1};
  cfg.grid = {uint32_t((n + 255) / 256), 1, 1};
  measure_row(row, o.workers, [&](unsigned workers) {
    sim::GlobalMemory mem;
    const std::string count = std::to_string(n);
    std::vector<sim::ArgSpec> specs = {sim::parse_arg_spec("f32[" + count + "]=rand:1"),
                                       sim::parse_arg_spec("f32[" + count + "]=rand:2"),
                                       sim::parse_arg_spec("f32[" + count + "]"),
                                       sim::parse_arg_spec("i32=" + count)};
    sim::PreparedArgs args = sim::prepare_args(k.kernel(), specs, mem);
    sim::SimOptions so;
    so.threads = workers;
    so.timing.mode = sim::TimingMode::Off;
    sim::LaunchResult r = sim::launch(k, cfg, args.params, mem, so);
    const float* a = reinterpret_cast<const float*>(mem.host(args.buffer_address[0], n * 4));
    const float* b = reinterpret_cast<const float*>(mem.host(args.buffer_address[1], n * 4));
    const float* c = reinterpret_cast<const float*>(mem.host(args.buffer_address[2], n * 4));
    bool ok = r.ok;
    for (uint64_t i = 0; ok && i < n; ++i) ok = c[i] == a[i] + b[i];
    return OneRun{double(r.metrics.total_thread_insts()), r.metrics.sim_cpu_seconds, r.metrics.sim_seconds, ok};
  });
  return row;
}

SimSpeedRow gemm_row(const SimSpeedOptions& o, const GemmVersion& v) {
  SimSpeedRow row;
  row.family = gemm_family(v.name);
  row.kernel = v.name;
  row.problem = fmt::format("{}^3", o.speed_size);
  GemmProblem p = make_gemm_problem(o.speed_size, o.speed_size, o.speed_size);
  measure_row(row, o.workers, [&](unsigned workers) {
    sim::SimOptions so;
    so.gpu = o.gpu;
    so.threads = workers;
    so.timing.mode = sim::TimingMode::Off;
    SimGemmRun run = simulate_gemm(v, p, so);
    const bool ok = run.result.ok && check_gemm(p, v.precision, run.C.data()).correct;
    return OneRun{double(run.result.metrics.total_thread_insts()), run.result.metrics.sim_cpu_seconds,
                  run.result.metrics.sim_seconds, ok};
  });
  return row;
}

}  // namespace

SimSpeed measure_sim_speed(const SimSpeedOptions& o) {
  SimSpeed s;
  bool ok = true;
  const std::vector<GemmVersion> versions = load_gemm_versions();
  for (const std::string& name : o.only)
    if (name != "vector_add" &&
        std::none_of(versions.begin(), versions.end(), [&](const GemmVersion& v) { return v.name == name; }))
      throw ManifestError(fmt::format("--only {}: no such kernel (vector_add or a version in {})", name,
                                      default_gemm_manifest()));

  if (wanted(o, "vector_add")) {
    if (o.progress) o.progress(fmt::format("sim speed: vector_add, {} elements, 1 and {} workers ...",
                                           o.vector_elements, o.workers));
    s.rows.push_back(vector_add_row(o));
  }
  for (const GemmVersion& v : versions) {
    if (!wanted(o, v.name)) continue;
    if (o.progress)
      o.progress(fmt::format("sim speed: {} at {}^3, 1 and {} workers ...", v.name, o.speed_size, o.workers));
    s.rows.push_back(gemm_row(o, v));
  }
  for (const SimSpeedRow& r : s.rows) ok = ok && r.correct;

  // The cycle model's own rate, on the tiled GEMM with every block timed.
  const std::string name = "03_smem_tiled";
  auto tiled = std::find_if(versions.begin(), versions.end(), [&](const GemmVersion& v) { return v.name == name; });
  if (tiled == versions.end())
    throw ManifestError(fmt::format("{}: no version named {}", default_gemm_manifest(), name));
  const GemmVersion& v = *tiled;
  s.cycle_kernel = v.kernel;
  s.cycle_size = o.speed_size;
  sim::SimOptions so;
  so.gpu = o.gpu;
  so.threads = 1;
  GemmProblem p = make_gemm_problem(o.speed_size, o.speed_size, o.speed_size);
  {
    so.timing.mode = sim::TimingMode::Off;
    SimGemmRun off = simulate_gemm(v, p, so);
    s.timing_off_cpu_seconds = off.result.metrics.sim_cpu_seconds;
    so.timing.mode = sim::TimingMode::Full;
    if (o.progress) o.progress(fmt::format("cycle model speed: {} at {}^3, every block timed ...", name, o.speed_size));
    SimGemmRun timed = simulate_gemm(v, p, so);
    if (const auto& c = timed.result.metrics.cycle) {
      s.cycle_warp_insts = double(c->issued);
      s.cycle_seconds = c->model_seconds;
      s.cycle_warp_insts_per_s = c->model_seconds > 0 ? double(c->issued) / c->model_seconds : 0;
      s.cycle_cpu_seconds = c->model_cpu_seconds;
      s.cycle_warp_insts_per_cpu_s = c->model_cpu_seconds > 0 ? double(c->issued) / c->model_cpu_seconds : 0;
      s.timing_full_cpu_seconds = timed.result.metrics.sim_cpu_seconds + c->model_cpu_seconds;
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
  so.timing.mode = sim::TimingMode::Off;
  so.threads = s.end_to_end_threads;
  SimGemmRun run2 = simulate_gemm(v, big, so);
  ok = ok && run2.result.ok && check_gemm(big, v.precision, run2.C.data()).correct;
  s.end_to_end_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.correct = ok;
  return s;
}

std::string format_sim_speed(const SimSpeed& s) {
  std::string out =
      "simulator speed, timing and events off (the interpreter alone); rates per CPU second of the one worker\n";
  out += fmt::format("  {:<15} {:<20} {:>17} {:>14} {:>8} {:>8} {:>16} {:>9}\n", "family", "kernel", "problem",
                     "thread-insts", "CPU s", "wall s", "insts/CPU s", "speed-up");
  for (const SimSpeedRow& r : s.rows)
    out += fmt::format("  {:<15} {:<20} {:>17} {:>14.3g} {:>8.2f} {:>8.2f} {:>16.3g} {:>8.2f}x{}\n", r.family,
                       r.kernel, r.problem, r.thread_insts, r.cpu_seconds, r.wall_seconds, r.thread_insts_per_cpu_s,
                       r.speedup, r.correct ? "" : "  WRONG");
  if (!s.rows.empty())
    out += fmt::format("  (speed-up: wall time on 1 worker / on {} workers, the better of two runs each)\n",
                       s.rows.front().workers);
  out += fmt::format(
      "cycle model, {} at {}^3, every block timed: {:.3g} warp instructions in {:.2f} s wall, {:.2f} CPU s = "
      "{:.3g} warp-instructions per CPU second\n"
      "  full timing costs {:.2f}x the CPU time of timing off ({:.2f} s against {:.2f} s)\n",
      s.cycle_kernel, s.cycle_size, s.cycle_warp_insts, s.cycle_seconds, s.cycle_cpu_seconds,
      s.cycle_warp_insts_per_cpu_s,
      s.timing_off_cpu_seconds > 0 ? s.timing_full_cpu_seconds / s.timing_off_cpu_seconds : 0,
      s.timing_full_cpu_seconds, s.timing_off_cpu_seconds);
  out += fmt::format("end to end, {}^3 on {} workers: {:.2f} s (reference built, compiled, simulated, checked)\n",
                     s.end_to_end_size, s.end_to_end_threads, s.end_to_end_seconds);
  out += fmt::format("results {}\n", s.correct ? "match their references" : "WRONG");
  return out;
}

nlohmann::json sim_speed_json(const SimSpeed& s) {
  nlohmann::json rows = nlohmann::json::array();
  for (const SimSpeedRow& r : s.rows)
    rows.push_back({{"family", r.family},
                    {"kernel", r.kernel},
                    {"problem", r.problem},
                    {"thread_insts", r.thread_insts},
                    {"cpu_seconds", r.cpu_seconds},
                    {"wall_seconds", r.wall_seconds},
                    {"thread_insts_per_cpu_s", r.thread_insts_per_cpu_s},
                    {"workers", r.workers},
                    {"workers_wall_seconds", r.workers_wall_seconds},
                    {"speedup", r.speedup},
                    {"correct", r.correct}});
  return {{"rows", rows},
          {"cycle_kernel", s.cycle_kernel},
          {"cycle_size", s.cycle_size},
          {"cycle_warp_insts", s.cycle_warp_insts},
          {"cycle_seconds", s.cycle_seconds},
          {"cycle_warp_insts_per_s", s.cycle_warp_insts_per_s},
          {"cycle_cpu_seconds", s.cycle_cpu_seconds},
          {"cycle_warp_insts_per_cpu_s", s.cycle_warp_insts_per_cpu_s},
          {"timing_off_cpu_seconds", s.timing_off_cpu_seconds},
          {"timing_full_cpu_seconds", s.timing_full_cpu_seconds},
          {"end_to_end_size", s.end_to_end_size},
          {"end_to_end_threads", s.end_to_end_threads},
          {"end_to_end_seconds", s.end_to_end_seconds},
          {"correct", s.correct}};
}

}  // namespace lab::bench
