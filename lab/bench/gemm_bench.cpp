#include "lab/bench/gemm_bench.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include <fmt/format.h>

#include "lab/gemm/gemm_problem.h"
#include "lab/gemm/gemm_registry.h"
#include "lab/gemm/gemm_sim.h"
#include "lab/compile/nvrtc.h"
#include "lab/cpu/gemm.h"
#include "lab/cpu/timer.h"
#include "lab/cuda/backend.h"
#include "lab/sim/device.h"
#include "lab/sim/report.h"

namespace lab::bench {
using namespace lab::gemm;  // the GEMM versions and problem (lab/gemm)

namespace {

double gemm_flops(int m, int n, int k) { return 2.0 * m * n * k; }

bool selected(const BenchOptions& o, const std::string& name) {
  return o.only.empty() || std::find(o.only.begin(), o.only.end(), name) != o.only.end();
}

void say(const BenchOptions& o, const std::string& line) {
  if (o.progress) o.progress(line);
}

// [CPU] measured here, checked before and after timing.
void cpu_rows(const BenchOptions& o, GemmProblem& p, unsigned threads, std::vector<BenchRow>& rows) {
  std::vector<float> C;
  for (const auto& v : cpu::cpu_gemm_versions()) {
    if (!selected(o, v.name)) continue;
    say(o, fmt::format("cpu   {:<22} {}x{}x{} ...", v.name, p.M, p.N, p.K));
    BenchRow r;
    r.name = v.name; r.device = "cpu"; r.backend = "cpu"; r.precision = "fp32";
    r.reference = v.reference; r.measured = true;
    const unsigned t = v.threaded ? threads : 1;
    r.note = fmt::format("{} thread{}", t, t == 1 ? "" : "s");
    auto call = [&] { v.fn(p.M, p.N, p.K, p.alpha, p.A.data(), p.B.data(), p.beta, C.data(), t); };
    auto restore = [&] { C = p.C0; };  // NaN poison (beta == 0) or the original C
    restore();
    call();
    GemmCheck before = check_gemm(p, Precision::Fp32, C.data());
    cpu::TimingOptions topt;
    topt.warmup = 0;  // the checked call above warmed caches and threads
    topt.min_repeats = 3;
    topt.max_repeats = 20;
    topt.min_total_seconds = 0.2;
    cpu::Timing timing = cpu::time_median(call, topt, restore);
    GemmCheck after = check_gemm(p, Precision::Fp32, C.data());
    r.correct = before.correct && after.correct;
    r.max_rel_error = std::max(before.max_rel_error, after.max_rel_error);
    r.ms = timing.median_ms;
    r.gflops = gemm_flops(p.M, p.N, p.K) / (timing.median_ms * 1e-3) / 1e9;
    if (timing.spread > cpu::kUnsteadySpread)
      r.note = fmt::format("busy machine: repeats spread {:.0f}%", 100 * timing.spread);
    rows.push_back(r);
  }
}

// [SIM] the simulation checks correctness; the time is the machine model's
// prediction from the counted work.
std::optional<double> predicted_ms(const SimGemmRun& run) {
  // Registers and shared memory from ptxas for the model's architecture
  // (carried by the compiled kernel), then the machine model's prediction.
  sim::KernelReport rep = sim::build_report(run.compiled, run.launch, run.result.metrics);
  if (!(rep.predicted.time_ms > 0)) return std::nullopt;
  return rep.predicted.time_ms;
}

void sim_rows(const BenchOptions& o, GemmProblem& p, const std::vector<GemmVersion>& versions,
              std::vector<BenchRow>& rows) {
  const sim::GpuModel& model = *o.gpu;
  const int cc = model.cc_major * 10 + model.cc_minor;
  for (const auto& v : versions) {
    if (!selected(o, v.name)) continue;
    BenchRow r;
    r.name = v.name; r.device = "gpu"; r.backend = "sim"; r.precision = precision_name(v.precision);
    r.measured = false;
    if (cc < v.min_arch) {
      r.note = fmt::format("needs compute capability {}.{}; {} is {}.{}", v.min_arch / 10, v.min_arch % 10,
                           model.name, model.cc_major, model.cc_minor);
      rows.push_back(r);
      continue;
    }
    if (std::string why = v.size_limit(p.M, p.N, p.K); !why.empty()) {
      r.note = why;
      rows.push_back(r);
      continue;
    }
    sim::SimOptions so;
    so.threads = o.threads;
    so.gpu = &model;
    const bool sample_only =
        o.sim_run == "sample" || (o.sim_run == "auto" && double(p.M) * p.N * p.K > 1024.0 * 1024.0 * 1024.0 * 1.001);
    so.timing.sample_only = sample_only;
    so.timing.mode = o.timing == "full" ? sim::TimingMode::Full : sim::TimingMode::Sampled;
    const std::string label = fmt::format("sim   {:<22} {}x{}x{}", v.name, p.M, p.N, p.K);
    say(o, label + " ...");
    if (o.progress)
      so.progress = [&o, label, last = -1](uint64_t done, uint64_t total) mutable {
        int pct = total ? int(100 * done / total) : 100;
        if (pct / 10 != last / 10) {
          last = pct;
          o.progress(fmt::format("{}  {:3d}% of blocks", label, pct));
        }
      };
    SimGemmRun run = simulate_gemm(v, p, so);
    if (run.unsupported) {
      r.note = "simulator: " + run.unsupported_reason.substr(0, run.unsupported_reason.find('\n'));
      rows.push_back(r);
      continue;
    }
    if (sample_only) {
      // Only the timed blocks ran: C is incomplete, so there is nothing to check.
      r.note = fmt::format("sampled run ({} of {} blocks executed): predicted, not checked",
                           run.result.metrics.blocks, run.launch.grid.count());
    } else {
      GemmCheck c = check_gemm(p, v.precision, run.C.data());
      r.correct = c.correct && run.result.ok;
      r.max_rel_error = c.max_rel_error;
    }
    if (!run.result.ok && !run.result.errors.empty())
      r.note = fmt::format("{}: {}", run.result.errors[0].kind, run.result.errors[0].message);
    r.ms = predicted_ms(run);
    if (r.ms) r.gflops = gemm_flops(p.M, p.N, p.K) / (*r.ms * 1e-3) / 1e9;
    else if (r.note.empty()) r.note = "the timing model gave no prediction";
    // The published measurement of a kernel of the same design, where it applies.
    if (const auto& pub = v.published;
        pub && r.gflops && pub->gpu == model.name && p.M == pub->size && p.N == pub->size && p.K == pub->size) {
      r.published_gflops = pub->tflops * 1e3;
      r.published_source = pub->what;
      const std::string held = fmt::format("published {:.0f} TFLOP/s, {}: the model {:+.0f}%", pub->tflops, pub->what,
                                           100 * (*r.gflops / *r.published_gflops - 1));
      r.note = r.note.empty() ? held : r.note + "; " + held;
    }
    r.sim_seconds = run.result.metrics.sim_seconds;
    if (const auto& cy = run.result.metrics.cycle) {
      r.cycles = cy->cycles;
      r.timing_note = cy->sample_note;
      r.model_seconds = cy->model_seconds;
      r.interpreter_seconds = cy->interpreter_seconds;
      r.model_cpu_seconds = cy->model_cpu_seconds;
      r.warp_insts_timed = cy->issued;
    }
    say(o, fmt::format("{}  simulated in {:.1f} s", label, run.result.metrics.sim_seconds));
    rows.push_back(r);
  }
}

// [CUDA] measured on the GPU with events, checked before and after timing.
void cuda_rows(const BenchOptions& o, GemmProblem& p, const std::vector<GemmVersion>& versions,
               std::vector<BenchRow>& rows, std::string& label) {
  cuda::Gpu gpu;
  label = gpu.name();
  const int cc = gpu.compute_capability();
  const size_t mk = size_t(p.M) * p.K, kn = size_t(p.K) * p.N, mn = size_t(p.M) * p.N;
  const uint64_t a32 = gpu.alloc(mk * 4), b32 = gpu.alloc(kn * 4), a16 = gpu.alloc(mk * 2),
                 b16 = gpu.alloc(kn * 2), c = gpu.alloc(mn * 4);
  gpu.upload(a32, p.A.data(), mk * 4);
  gpu.upload(b32, p.B.data(), kn * 4);
  gpu.upload(a16, p.A16.data(), mk * 2);
  gpu.upload(b16, p.B16.data(), kn * 2);
  std::vector<float> host(mn);
  auto check = [&](Precision prec) {
    gpu.synchronize();
    gpu.download(host.data(), c, mn * 4);
    return check_gemm(p, prec, host.data());
  };
  auto run_row = [&](BenchRow r, Precision prec, const std::function<void()>& work) {
    say(o, fmt::format("cuda  {:<22} {}x{}x{} ...", r.name, p.M, p.N, p.K));
    gpu.upload(c, p.C0.data(), mn * 4);  // poison
    work();
    GemmCheck before = check(prec);
    cuda::GpuTiming t = gpu.time(work);
    GemmCheck after = check(prec);
    r.correct = before.correct && after.correct;
    r.max_rel_error = std::max(before.max_rel_error, after.max_rel_error);
    r.measured = true;
    r.ms = t.median_ms;
    r.gflops = gemm_flops(p.M, p.N, p.K) / (t.median_ms * 1e-3) / 1e9;
    rows.push_back(r);
  };
  const std::string arch = gpu.ptx_target();  // on Hopper compute_90a, which 10 and 11 need (wgmma)
  for (const auto& v : versions) {
    if (!selected(o, v.name)) continue;
    BenchRow r;
    r.name = v.name; r.device = "gpu"; r.backend = "cuda"; r.precision = precision_name(v.precision);
    if (cc < v.min_arch) {
      r.note = fmt::format("needs compute capability {}.{}", v.min_arch / 10, v.min_arch % 10);
      rows.push_back(r);
      continue;
    }
    if (std::string why = v.size_limit(p.M, p.N, p.K); !why.empty()) {
      r.note = why;
      rows.push_back(r);
      continue;
    }
    compile::CompileOptions co;
    co.arch = arch;
    void* fn = gpu.load_kernel(compile::compile_file_to_ptx(v.file, co), v.kernel);
    const bool half = v.precision == Precision::Fp16;
    int M = p.M, N = p.N, K = p.K;
    float alpha = p.alpha, beta = p.beta;
    uint64_t A = half ? a16 : a32, B = half ? b16 : b32, C = c;
    sim::LaunchConfig cfg = v.launch_config(M, N, K);
    const uint32_t grid[3] = {cfg.grid.x, cfg.grid.y, 1}, block[3] = {cfg.block.x, cfg.block.y, 1};
    // TMA versions: the driver encodes A's and B's tensor maps.
    struct alignas(64) Map { uint8_t bytes[128]; };
    std::vector<Map> maps;
    for (const GemmTensorMap& g : gemm_tensor_maps(v, M, N, K, A, B)) {
      maps.emplace_back();
      gpu.encode_tensor_map_2d_f16(maps.back().bytes, g.address, g.dims, g.row_stride_bytes, g.box);
    }
    std::vector<void*> args = {&M, &N, &K, &alpha, &A, &B, &beta, &C};
    for (Map& m : maps) args.push_back(m.bytes);
    run_row(r, v.precision, [&] { gpu.launch(fn, grid, block, cfg.dynamic_shared_bytes, args); });
  }
  std::string why;
  if (!gpu.cublas_available(&why)) {
    say(o, "cuBLAS unavailable: " + why);
  } else {
    BenchRow r;
    r.device = "gpu"; r.backend = "cuda"; r.reference = true;
    r.name = kCublasSgemmRow; r.precision = "fp32";
    if (selected(o, r.name)) run_row(r, Precision::Fp32, [&] { gpu.sgemm(p.M, p.N, p.K, p.alpha, a32, b32, p.beta, c); });
    r.name = kCublasGemmExRow; r.precision = "fp16";
    if (selected(o, r.name))
      run_row(r, Precision::Fp16, [&] { gpu.gemm_f16_f32(p.M, p.N, p.K, p.alpha, a16, b16, p.beta, c); });
  }
  for (uint64_t ptr : {a32, b32, a16, b16, c}) gpu.free(ptr);
}

void fill_pct_of_reference(std::vector<BenchRow>& rows) {
  for (auto& r : rows) {
    if (!r.gflops) continue;
    for (const auto& ref : rows)
      if (ref.reference && ref.gflops && ref.device == r.device && ref.backend == r.backend &&
          (ref.precision == r.precision || r.device == "cpu"))
        r.pct_of_reference = 100.0 * *r.gflops / *ref.gflops;
  }
}

}  // namespace

BenchReport run_gemm_bench(const BenchOptions& o) {
  if (o.m < 1 || o.n < 1 || o.k < 1)
    throw BenchError(fmt::format("matrix sizes must be at least 1 (got M={} N={} K={})", o.m, o.n, o.k));
  BenchReport rep;
  rep.m = o.m; rep.n = o.n; rep.k = o.k;
  rep.cpu_threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  std::string why;
  const bool have_gpu = cuda::cuda_available(&why);
  if (o.backend == "cuda") {
    if (!have_gpu) throw BenchError("--backend cuda: " + why);
    rep.gpu_backend = "cuda";
  } else if (o.backend == "sim") {
    rep.gpu_backend = "sim";
  } else if (o.backend == "cpu") {
    rep.gpu_backend = "none";  // the CPU rows alone, all measured here
  } else if (o.backend == "auto") {
    rep.gpu_backend = have_gpu ? "cuda" : "sim";
    rep.backend_note = have_gpu ? "auto: a GPU is present, GPU rows are measured on it"
                                : fmt::format("auto: no GPU ({}); GPU rows run in the simulator", why);
  } else {
    throw BenchError(fmt::format("--backend must be cpu, sim, cuda or auto (got '{}')", o.backend));
  }
  const sim::GpuModel& model = *o.gpu;
  GemmProblem p = make_gemm_problem(o.m, o.n, o.k);
  if (o.cpu_rows) cpu_rows(o, p, rep.cpu_threads, rep.rows);
  if (o.gpu_rows && rep.gpu_backend != "none") {
    auto versions = load_gemm_versions();
    if (rep.gpu_backend == "cuda") {
      cuda_rows(o, p, versions, rep.rows, rep.gpu_label);
    } else {
      rep.gpu_label = fmt::format("{} (simulated)", model.name);
      sim_rows(o, p, versions, rep.rows);
    }
  }
  fill_pct_of_reference(rep.rows);
  return rep;
}

std::string format_gemm_table(const BenchReport& rep) {
  auto opt = [](const std::optional<double>& v, const char* f) {
    return v ? fmt::format(fmt::runtime(f), *v) : std::string("n/a");
  };
  std::string out = fmt::format("GEMM C = alpha*A*B + beta*C, M={} N={} K={}; CPU threads {}; GPU {}\n", rep.m, rep.n,
                                rep.k, rep.cpu_threads, rep.gpu_label.empty() ? "-" : rep.gpu_label);
  if (!rep.backend_note.empty()) out += rep.backend_note + "\n";
  out += fmt::format("{:<22} {:<6} {:<7} {:<5} {:>11} {:>10} {:>8} {:<10} {:>11} {:<7} {}\n", "version", "device",
                     "backend", "prec", "time (ms)", "GFLOP/s", "% of ref", "timing", "max rel err", "check", "note");
  for (const auto& r : rep.rows) {
    std::string check = !r.correct ? "-" : (*r.correct ? "ok" : "FAIL");
    std::string err = r.correct ? (std::isinf(r.max_rel_error) ? "inf/NaN" : fmt::format("{:.1e}", r.max_rel_error))
                                : std::string("-");
    out += fmt::format("{:<22} {:<6} {:<7} {:<5} {:>11} {:>10} {:>8} {:<10} {:>11} {:<7} {}\n",
                       r.name + (r.reference ? " *" : ""), r.device, r.backend, r.precision, opt(r.ms, "{:.3f}"),
                       opt(r.gflops, "{:.1f}"), opt(r.pct_of_reference, "{:.0f}%"),
                       r.measured ? "measured" : "predicted", err, check, r.note);
  }
  out += "* reference (OpenBLAS / cuBLAS). CPU times are measured here; GPU times are measured on a GPU or predicted "
         "by the machine model, as the timing column says.\n";
  return out;
}

nlohmann::json gemm_report_json(const BenchReport& rep) {
  nlohmann::json j;
  j["m"] = rep.m;
  j["n"] = rep.n;
  j["k"] = rep.k;
  j["results"] = nlohmann::json::array();
  for (const auto& r : rep.rows) {
    nlohmann::json row;
    row["name"] = r.name;
    row["device"] = r.device;
    row["backend"] = r.backend;
    row["precision"] = r.precision;
    row["ms"] = r.ms ? nlohmann::json(*r.ms) : nlohmann::json(nullptr);
    row["gflops"] = r.gflops ? nlohmann::json(*r.gflops) : nlohmann::json(nullptr);
    row["measured"] = r.measured;
    row["correct"] = r.correct ? nlohmann::json(*r.correct) : nlohmann::json(nullptr);
    // JSON has no infinity: a NaN/Inf result is reported as null with correct = false.
    row["max_rel_error"] = (r.correct && std::isfinite(r.max_rel_error)) ? nlohmann::json(r.max_rel_error)
                                                                        : nlohmann::json(nullptr);
    row["reference"] = r.reference;
    if (r.published_gflops) {
      row["published_gflops"] = *r.published_gflops;
      row["published_source"] = r.published_source;
    }
    if (r.backend == "sim" && r.cycles > 0) {
      row["cycles"] = r.cycles;
      row["timing_note"] = r.timing_note;
      row["sim_seconds"] = r.sim_seconds;
      row["model_seconds"] = r.model_seconds;
      row["interpreter_seconds"] = r.interpreter_seconds;
      row["model_cpu_seconds"] = r.model_cpu_seconds;
      row["warp_insts_timed"] = r.warp_insts_timed;
    }
    j["results"].push_back(row);
  }
  return j;
}

}  // namespace lab::bench
