// gpulab bench: benchmarks, never tests.
//
//   gpulab bench gemm [--size N | --m M --n N --k K] [--backend cpu|sim|cuda|auto]
//                     [--gpu MODEL] [--threads T] [--only NAME ...] [--json]
//   gpulab bench sim  [--size N] [--workers W] [--only K...] [--e2e-size N] [--threads T] [--json]
//   gpulab bench mechanisms [--gpu MODEL ...] [--only KEY ...] [--json | --markdown]
//
// `bench gemm` runs every CPU and GPU GEMM version on one problem, checks each
// against the float64 reference before and after timing, and prints a table
// (or the JSON the issue fixes). Default size 256: simulating all nine GPU
// versions fits in well under 3 minutes on a 2-core machine; progress lines go
// to stderr. `bench sim` measures the simulator's own speed.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lab/bench/gemm_bench.h"
#include "lab/bench/mechanisms.h"
#include "lab/gemm/gemm_registry.h"
#include "lab/bench/sim_speed.h"
#include "lab/cli/command.h"
#include "lab/cli/version_names.h"
#include "lab/cli/gpu_option.h"
#include "lab/compile/nvrtc.h"
#include "lab/cuda/backend.h"
#include "lab/ptx/parser.h"
#include "lab/sim/device.h"
#include "lab/sim/launch.h"
#include "lab/sim/run.h"

namespace {

struct GemmArgs {
  int size = 256, m = 0, n = 0, k = 0;
  std::string backend = "auto", gpu = "H100", sim_run = "auto", timing = "sampled";
  unsigned threads = 0;
  std::vector<std::string> only;
  bool json = false, quiet = false;
};

void progress_line(const std::string& s) { std::fprintf(stderr, "[bench] %s\n", s.c_str()); }

int run_bench_gemm(const GemmArgs& a) {
  lab::bench::BenchOptions o;
  o.m = a.m ? a.m : a.size;
  o.n = a.n ? a.n : a.size;
  o.k = a.k ? a.k : a.size;
  o.backend = a.backend;
  o.gpu = &lab::cli::resolved_gpu(a.gpu);
  o.threads = a.threads;
  o.only = a.only;
  o.sim_run = a.sim_run;
  o.timing = a.timing;
  if (!a.quiet) o.progress = progress_line;
  try {
    if (std::string bad = lab::cli::unknown_only_names(a.only, true); !bad.empty()) {
      std::fprintf(stderr, "gpulab bench gemm: %s\n", bad.c_str());
      return lab::cli::kExitUsage;
    }
    lab::bench::BenchReport rep = lab::bench::run_gemm_bench(o);
    if (a.json)
      std::printf("%s\n", lab::bench::gemm_report_json(rep).dump(2).c_str());
    else
      std::printf("%s", lab::bench::format_gemm_table(rep).c_str());
    for (const auto& r : rep.rows)
      if (r.correct && !*r.correct) return lab::cli::kExitKernelFault;  // a wrong result is never just a number
    return lab::cli::kExitOk;
  } catch (const lab::bench::BenchError& e) {
    std::fprintf(stderr, "gpulab bench gemm: %s\n", e.what());
  } catch (const lab::sim::LaunchError& e) {
    std::fprintf(stderr, "gpulab bench gemm: %s\n", e.what());
  } catch (const lab::compile::CompileError& e) {
    std::fprintf(stderr, "gpulab bench gemm: %s\n", e.what());
  } catch (const lab::ptx::ParseError& e) {
    std::fprintf(stderr, "gpulab bench gemm: %s\n", e.what());
  } catch (const lab::gemm::ManifestError& e) {
    std::fprintf(stderr, "gpulab bench gemm: %s\n", e.what());
  } catch (const lab::sim::RunError& e) {
    std::fprintf(stderr, "gpulab bench gemm: %s\n", e.what());
  } catch (const lab::cuda::CudaError& e) {
    std::fprintf(stderr, "gpulab bench gemm: %s\n", e.what());
  }
  return lab::cli::kExitUsage;
}

struct SimArgs {
  int size = 512, e2e = 512;
  unsigned threads = 0, workers = 2;
  std::vector<std::string> only;
  std::string gpu = "H100";
  bool json = false;
};

int run_bench_sim(const SimArgs& a) {
  lab::bench::SimSpeedOptions o;
  o.speed_size = a.size;
  o.end_to_end_size = a.e2e;
  o.threads = a.threads;
  o.workers = a.workers;
  o.only = a.only;
  o.gpu = &lab::cli::resolved_gpu(a.gpu);
  o.progress = progress_line;
  try {
    lab::bench::SimSpeed s = lab::bench::measure_sim_speed(o);
    if (a.json)
      std::printf("%s\n", lab::bench::sim_speed_json(s).dump(2).c_str());
    else
      std::printf("%s", lab::bench::format_sim_speed(s).c_str());
    return s.correct ? lab::cli::kExitOk : lab::cli::kExitKernelFault;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpulab bench sim: %s\n", e.what());
    return lab::cli::kExitUsage;
  }
}

struct MechArgs {
  std::vector<std::string> gpus, only;
  unsigned threads = 0;
  std::string backend = "sim";
  bool json = false, markdown = false;
};

int run_bench_mechanisms(const MechArgs& a) {
  lab::bench::MechanismOptions o;
  for (const auto& g : a.gpus) o.gpus.push_back(&lab::cli::resolved_gpu(g));
  o.only = a.only;
  o.threads = a.threads;
  o.measure_on_gpu = a.backend == "cuda";
  o.progress = progress_line;
  try {
    lab::bench::MechanismReport rep = lab::bench::run_mechanisms(o);
    if (a.json) std::printf("%s\n", lab::bench::mechanisms_json(rep).dump(2).c_str());
    else if (a.markdown) std::printf("%s", lab::bench::mechanisms_markdown(rep).c_str());
    else std::printf("%s", lab::bench::format_mechanisms(rep).c_str());
    return lab::cli::kExitOk;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpulab bench mechanisms: %s\n", e.what());
    return lab::cli::kExitUsage;
  }
}

const bool registered = lab::cli::register_command([](CLI::App& app, int& rc) {
  auto* bench = app.add_subcommand("bench", "Benchmarks: GEMM versions on CPU and GPU, simulator speed");
  bench->require_subcommand(1);

  static GemmArgs g;
  auto* gemm = bench->add_subcommand("gemm", "Every GEMM version, checked then timed (or predicted)");
  auto* size = gemm->add_option("--size", g.size, "M = N = K (default 256)")->check(CLI::PositiveNumber);
  gemm->add_option("--m", g.m, "rows of A and C")->check(CLI::PositiveNumber)->excludes(size);
  gemm->add_option("--n", g.n, "columns of B and C")->check(CLI::PositiveNumber)->excludes(size);
  gemm->add_option("--k", g.k, "columns of A, rows of B")->check(CLI::PositiveNumber)->excludes(size);
  gemm->add_option("--backend", g.backend, "cpu (the CPU rows only) | sim | cuda | auto (GPU when present)")
      ->check(CLI::IsMember({"cpu", "sim", "cuda", "auto"}));
  lab::cli::add_gpu_option(gemm, g.gpu, "GPU model for predictions");
  gemm->add_option("--threads", g.threads, "CPU threads for cpu_04 and OpenBLAS, and simulator workers (0 = all)");
  gemm->add_option("--only", g.only, "run only these versions (e.g. 03_smem_tiled cpu_04_simd_threads)");
  gemm->add_option("--sim-run", g.sim_run,
                   "simulator rows: full (every block, checked), sample (only the timed blocks: a prediction, not "
                   "checked), auto (sample above 1024^3; default)")
      ->check(CLI::IsMember({"auto", "full", "sample"}));
  gemm->add_option("--timing", g.timing,
                   "cycle model for simulator rows: sampled (a slice of SMs and waves, scaled; default) or full "
                   "(every block timed, slow)")
      ->check(CLI::IsMember({"sampled", "full"}));
  gemm->add_flag("--json", g.json, "JSON instead of the table");
  gemm->add_flag("--quiet", g.quiet, "no progress lines on stderr");
  gemm->callback([&rc] {
    // --m/--n/--k: any not given falls back to --size's default.
    rc = run_bench_gemm(g);
  });

  static SimArgs s;
  auto* simc = bench->add_subcommand(
      "sim", "Simulator speed per kernel family: thread-instructions per CPU second, 2 workers against 1");
  simc->add_option("--size", s.size, "GEMM M = N = K for the family rows (default 512)")->check(CLI::PositiveNumber);
  simc->add_option("--workers", s.workers, "the speed-up column: this many workers against one (default 2)")
      ->check(CLI::Range(2u, 256u));
  simc->add_option("--only", s.only, "family rows for these kernels only (vector_add, 01_naive, ...)");
  simc->add_option("--e2e-size", s.e2e, "problem for the end-to-end time (default 512)")->check(CLI::PositiveNumber);
  simc->add_option("--threads", s.threads, "simulator workers for the end-to-end run (0 = all)");
  lab::cli::add_gpu_option(simc, s.gpu, "GPU model");
  simc->add_flag("--json", s.json, "JSON instead of text");
  simc->callback([&rc] { rc = run_bench_sim(s); });

  static MechArgs m;
  auto* mech = bench->add_subcommand(
      "mechanisms", "The cycle model's microbenchmarks: one kernel per mechanism, beside the published figure");
  mech->add_option("--gpu", m.gpus, "GPU models (default: H100 A100 V100 T4, the ones with published figures)");
  mech->add_option("--only", m.only, "mechanisms: banks stride chase dependent peak stream dram divergence hiding atomics l1 pages blocks");
  mech->add_option("--threads", m.threads, "simulator workers (0 = all)");
  mech->add_option("--backend", m.backend,
                   "sim (the model's predictions, default) | cuda (measure each point on this machine's GPU)")
      ->check(CLI::IsMember({"sim", "cuda"}));
  auto* js = mech->add_flag("--json", m.json, "JSON instead of the table");
  mech->add_flag("--markdown", m.markdown, "a Markdown table (docs/fidelity.md)")->excludes(js);
  mech->callback([&rc] { rc = run_bench_mechanisms(m); });
});

}  // namespace
