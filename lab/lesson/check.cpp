// lab/lesson/check.cpp: compile, run on every size with the kernel checks on,
// compare with the float64 reference, then judge the efficiency criteria.
#include "lab/lesson/check.h"

#include "lab/lesson/baseline_cache.h"
#include "lab/sim/uniform_draw.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "lab/compile/nvrtc.h"
#include "lab/lesson/criteria.h"
#include "lab/lesson/shipped.h"
#include "lab/lesson/reference.h"
#include "lab/ptx/parser.h"
#include "lab/sim/device.h"
#include "lab/sim/float16.h"
#include "lab/sim/occupancy.h"
#include "lab/sim/report.h"
#include "lab/sim/run.h"

namespace fs = std::filesystem;

namespace lab::lesson {
namespace {

// A check's time-size prediction (the student's kernel and its baselines,
// sampled alike) times a quarter of `gpulab sim`'s work budget, on no fewer
// than 3 SMs. Against the full budget, over the reference solutions and the
// wrong-reason corpus of the five exercises with a time size, no prediction
// moved by more than 1.4% and no judged ratio under 2x by more than 0.01,
// while checks 12 and 13 answer in 0.53-0.67x the time (docs/benchmarks.md,
// twentieth round). On 2 SMs the transpose's L2 luck moved its prediction
// 5.5%.
constexpr double kCheckTimedWarpInsts = sim::kDefaultTimedWarpInsts / 4;
constexpr uint32_t kCheckMinSliceSms = 3;

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(f, l);) out.push_back(l);
  return out;
}

// The same text once blank space is removed: a copy of a file with its
// indentation or line breaks changed is still a copy.
bool same_code(const std::string& a, const std::string& b) {
  auto squeeze = [](const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::string out;
    for (char c; f.get(c);)
      if (!std::isspace(static_cast<unsigned char>(c))) out += c;
    return f.eof() ? out : std::string();
  };
  const std::string sa = squeeze(a);
  return !sa.empty() && sa == squeeze(b);
}

bool same_file(const std::string& a, const std::string& b) {
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  std::stringstream sa, sb;
  sa << fa.rdbuf();
  sb << fb.rdbuf();
  return fa && fb && sa.str() == sb.str();
}

std::string sizes_text(const SizeVars& s) {
  std::string out;
  for (auto& [k, v] : s) out += fmt::format("{}{}={}", out.empty() ? "" : " ", k, v);
  return out;
}

// Default tolerance: a few units in the last place of the output type,
// relative to max(1, |reference|) (fp16 eps 2^-10, bf16 2^-7, f32 2^-23).
double default_tolerance(sim::ElemType type) {
  if (type == sim::ElemType::F16) return 4e-3;
  if (type == sim::ElemType::BF16) return 3e-2;
  if (type == sim::ElemType::F64) return 1e-10;
  return 1e-4;
}

std::string index_text(const ArgSpec& a, const std::vector<int64_t>& dims, uint64_t i) {
  if (dims.size() <= 1) return fmt::format("{}[{}]", a.name, i);
  std::string idx;
  for (size_t d = dims.size(); d-- > 0;) {
    idx = fmt::format("[{}]", i % uint64_t(dims[d])) + idx;
    i /= uint64_t(dims[d]);
  }
  return a.name + idx;
}

sim::Dim3 dim3_of(const std::vector<std::string>& e, const SizeVars& s) {
  sim::Dim3 d;
  if (e.size() > 0) d.x = uint32_t(eval_size(e[0], s));
  if (e.size() > 1) d.y = uint32_t(eval_size(e[1], s));
  if (e.size() > 2) d.z = uint32_t(eval_size(e[2], s));
  return d;
}

// The run path's compiled kernel (lab/sim/compiled.h): PTX, module, kernel
// and ptxas's resources for the model, computed once.
using Loaded = sim::CompiledKernel;

Loaded load_kernel(const std::string& path, const std::string& kernel, const sim::GpuModel& gpu,
                   const std::vector<std::string>& defines) {
  return sim::compile_kernel({path, kernel, defines, {}}, gpu);
}

// One launch on one size: the buffers it used and what the simulator said.
struct SizeRun {
  sim::LaunchResult result;
  std::vector<std::vector<double>> host;   // per arg: input values as stored (scalars: one value)
  std::vector<std::vector<double>> got;    // per arg: output values read back (empty for inputs)
  std::string problem;                     // a setup problem (param mismatch, launch limits)
  bool refused = false;                    // the GPU would refuse this launch (limits.h)
};

SizeRun run_size(const Loaded& L, const Exercise& ex, const Geometry& geo, const SizeVars& sizes, uint64_t seed,
                 const CheckOptions& opts, const std::string& lesson_file) {
  SizeRun out;
  const ptx::Kernel& k = L.kernel();
  if (k.params.size() != ex.args.size()) {
    out.problem = fmt::format("{}: kernel '{}' takes {} parameters but the lesson passes {} ({}); keep the kernel's "
                              "signature as the template has it",
                              L.file, ex.kernel, k.params.size(), ex.args.size(), lesson_file);
    return out;
  }
  sim::LaunchConfig cfg;
  cfg.grid = dim3_of(geo.grid, sizes);
  cfg.block = dim3_of(geo.block, sizes);
  cfg.dynamic_shared_bytes = uint32_t(eval_size(geo.shared_bytes, sizes));
  try {
    // The GPU's own refusal (registers per block from ptxas, shared memory,
    // threads), named as the CUDA runtime would, before anything runs.
    sim::check_launch_limits(k, cfg, *L.gpu, L.resources());
  } catch (const std::exception& e) {
    out.problem = e.what();
    out.refused = true;
    return out;
  }
  // The lesson's arguments as the simulator's specs: prepare_args (the one
  // place parameters are checked, packed and buffers placed) does the rest;
  // outputs start as poison (NaN), inputs get the lesson's random values.
  std::vector<sim::ArgSpec> specs(ex.args.size());
  std::vector<uint64_t> count(ex.args.size(), 0);
  out.host.resize(ex.args.size());
  out.got.resize(ex.args.size());
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < ex.args.size(); ++i) {
    const ArgSpec& a = ex.args[i];
    sim::ArgSpec& sp = specs[i];
    sp.text = a.text;
    sp.type = a.type;
    sp.name = a.name;
    if (a.role == ArgSpec::Role::Scalar) {
      bool literal = std::isdigit(static_cast<unsigned char>(a.value[0])) || a.value[0] == '-' || a.value[0] == '.';
      double v = literal ? std::stod(a.value) : double(eval_size(a.value, sizes));
      uint8_t bytes[8] = {};
      sim::store_element(a.type, bytes, v);
      std::memcpy(&sp.scalar_bits, bytes, sizeof bytes);
      out.host[i] = {sim::load_element(a.type, bytes)};
      continue;
    }
    uint64_t n = 1;
    for (auto& d : a.dims) n *= uint64_t(eval_size(d, sizes));
    count[i] = n;
    sp.is_buffer = true;
    sp.count = n;
    sp.init = a.role == ArgSpec::Role::Out ? sim::ArgSpec::Init::Uninit : sim::ArgSpec::Init::Zero;
  }
  sim::GlobalMemory mem;
  sim::PreparedArgs prepared;
  try {
    prepared = sim::prepare_args(k, specs, mem);
  } catch (const sim::ArgSpecError& e) {
    out.problem = fmt::format("{}: {} ({}); keep the kernel's signature as the template has it", L.file, e.what(),
                              lesson_file);
    return out;
  }
  for (size_t i = 0; i < ex.args.size(); ++i) {
    const ArgSpec& a = ex.args[i];
    if (a.role != ArgSpec::Role::In && a.role != ArgSpec::Role::InOut) continue;
    const uint64_t n = count[i], eb = uint64_t(a.elem_bytes());
    const bool nonnegative = std::find(ex.nonnegative.begin(), ex.nonnegative.end(), a.name) != ex.nonnegative.end();
    uint8_t* raw = mem.host(prepared.buffer_address[i], n * eb);
    auto& vals = out.host[i];
    if (opts.keep_values) vals.resize(n);
    const bool is_float = sim::elem_is_float(a.type);
    for (uint64_t j = 0; j < n; ++j) {
      // Floats uniform in [-1, 1) (uniform_real_distribution's sequence,
      // without its call per element); integers in [0, 16) (counts,
      // degrees, indices).
      double v = is_float ? sim::uniform_minus_one_to_one(rng()) : double(rng() % 16);
      if (nonnegative) v = std::fabs(v);
      if (a.type == sim::ElemType::F32) {  // the common case without store_element's switch: the same float
        const float f = float(v);
        std::memcpy(raw + j * 4, &f, 4);
        if (opts.keep_values) vals[j] = f;
        continue;
      }
      sim::store_element(a.type, raw + j * eb, v);
      if (opts.keep_values) vals[j] = sim::load_element(a.type, raw + j * eb);
    }
  }
  const std::vector<uint8_t>& params = prepared.params;
  sim::SimOptions so;
  so.check = opts.kernel_checks;
  so.threads = opts.threads;
  so.timing.sample_only = opts.sample_only;
  if (!opts.predict) so.timing.mode = sim::TimingMode::Off;
  so.timing.max_blocks_per_sm = opts.max_blocks_per_sm;
  so.timing.timed_warp_insts = opts.timed_warp_insts;
  so.timing.min_slice_sms = opts.min_slice_sms;
  so.cancel = opts.cancel;
  try {
    out.result = sim::launch(L, cfg, params, mem, so);
  } catch (const std::exception& e) {
    out.problem = e.what();
    return out;
  }
  for (size_t i = 0; opts.keep_values && i < ex.args.size(); ++i) {
    const ArgSpec& a = ex.args[i];
    if (a.role != ArgSpec::Role::Out && a.role != ArgSpec::Role::InOut) continue;
    uint64_t bytes = count[i] * uint64_t(a.elem_bytes());
    std::vector<uint8_t> raw(bytes);
    mem.read(prepared.buffer_address[i], raw.data(), bytes);
    auto& got = out.got[i];
    got.resize(count[i]);
    for (uint64_t j = 0; j < count[i]; ++j) got[j] = sim::load_element(a.type, raw.data() + j * a.elem_bytes());
  }
  return out;
}

std::string errors_text(const std::vector<sim::KernelError>& errs, const std::vector<std::string>& src) {
  std::string s;
  size_t shown = 0;
  for (const auto& e : errs) {
    if (shown++ == 4) {
      s += fmt::format("\n  ... and {} more", errs.size() - 4);
      break;
    }
    s += fmt::format("\n  {}:{}: {}: {} (block {},{},{} thread {},{},{}{})", e.file.empty() ? "?" : e.file, e.line, e.kind,
                     e.message, e.block.x, e.block.y, e.block.z, e.thread.x, e.thread.y, e.thread.z,
                     e.count > 1 ? fmt::format(", {} times", e.count) : "");
    if (e.line && e.line <= src.size()) s += fmt::format("\n      {}", src[e.line - 1]);
  }
  return s;
}

// Compares outputs with the reference; returns "" when everything matches.
std::string compare(const Exercise& ex, const SizeRun& run, const SizeVars& sizes, double& max_err) {
  const Reference* ref = find_reference(ex.reference);
  ReferenceArgs ra;
  ra.sizes = sizes;
  std::vector<std::vector<double>> expect;
  expect.reserve(ex.args.size());
  std::vector<size_t> out_args;
  for (size_t i = 0; i < ex.args.size(); ++i) {
    const ArgSpec& a = ex.args[i];
    if (a.role == ArgSpec::Role::In || a.role == ArgSpec::Role::InOut) ra.in.push_back(&run.host[i]);
    if (a.role == ArgSpec::Role::Scalar && sim::elem_is_float(a.type)) ra.scalars.push_back(run.host[i][0]);
  }
  for (size_t i = 0; i < ex.args.size(); ++i) {
    const ArgSpec& a = ex.args[i];
    if (a.role == ArgSpec::Role::Out || a.role == ArgSpec::Role::InOut) {
      uint64_t n = 1;
      for (auto& d : a.dims) n *= uint64_t(eval_size(d, sizes));
      expect.emplace_back(a.role == ArgSpec::Role::InOut ? run.host[i] : std::vector<double>(n, 0.0));
      out_args.push_back(i);
    }
  }
  for (auto& e : expect) ra.out.push_back(&e);
  ref->run(ra);
  max_err = 0;
  for (size_t o = 0; o < out_args.size(); ++o) {
    const ArgSpec& a = ex.args[out_args[o]];
    const std::vector<double>& got = run.got[out_args[o]];
    const std::vector<double>& want = expect[o];
    std::vector<int64_t> dims;
    for (auto& d : a.dims) dims.push_back(eval_size(d, sizes));
    double tol = ex.tolerance.value_or(default_tolerance(a.type));
    uint64_t unwritten = 0, wrong = 0, first_unwritten = 0, first_wrong = 0;
    double worst = 0;
    for (uint64_t j = 0; j < got.size(); ++j) {
      double err = std::fabs(got[j] - want[j]) / std::max(1.0, std::fabs(want[j]));
      if (std::isnan(got[j])) {
        if (unwritten++ == 0) first_unwritten = j;
        continue;
      }
      if (!(err <= tol)) {
        if (wrong++ == 0) first_wrong = j;
      }
      if (err > worst) worst = err;
    }
    max_err = std::max(max_err, worst);
    if (unwritten == got.size())
      return fmt::format("no element of output '{}' was written: all {} still hold the poison value (NaN) they "
                         "were filled with. Every output element must be stored by some thread.",
                         a.name, got.size());
    if (unwritten)
      return fmt::format("{} of {} elements of '{}' are NaN, first {}: either never written (outputs start as NaN "
                         "poison) or computed as NaN. Check the bounds test and that the grid covers every element.",
                         unwritten, got.size(), a.name, index_text(a, dims, first_unwritten));
    if (wrong)
      return fmt::format("{} of {} elements of '{}' are wrong; first {} = {:.7g}, expected {:.7g} (error {:.2g}, "
                         "tolerance {:.1g} relative to max(1, |expected|))",
                         wrong, got.size(), a.name, index_text(a, dims, first_wrong), got[first_wrong],
                         want[first_wrong], std::fabs(got[first_wrong] - want[first_wrong]), tol);
  }
  return "";
}

// Occupancy, registers and the predicted time come from the machine model's
// report (ptxas resources for the model's architecture, occupancy, schedule,
// timing), the same figures `gpulab sim` shows.
void fill_model(const Loaded& L, const Geometry& geo, const SizeVars& sizes, const sim::KernelMetrics& metrics,
                KernelFigures& f) {
  try {
    sim::LaunchConfig cfg;
    cfg.block = dim3_of(geo.block, sizes);
    cfg.grid = dim3_of(geo.grid, sizes);
    cfg.dynamic_shared_bytes = uint32_t(eval_size(geo.shared_bytes, sizes));
    sim::KernelReport kr = sim::build_report(L, cfg, metrics);
    f.occupancy = kr.occupancy.occupancy;
    f.predicted_seconds = kr.predicted.time_s;
    f.registers = kr.registers_per_thread;
    f.shared_bytes = kr.shared_bytes_per_block;
  } catch (const std::exception& e) {
    f.occupancy = -1;  // reported by the criteria as unavailable, with the reason
    f.predicted_seconds = -1;
    f.predicted_unavailable = fmt::format("the machine model could not predict this kernel's time: {}", e.what());
  }
}

}  // namespace

// The kernel checks (races, uninitialised reads) are off: the kernel is the
// lesson's own code (a baseline, a before/after), and only its counters matter.
MeasuredKernel kernel_figures_at(const Lesson& lesson, const Exercise& ex, const std::string& file,
                                 const std::string& kernel, const Geometry& geo, const SizeVars& sizes,
                                 const CheckOptions& opts) {
  Loaded BL = load_kernel(fs::path(file).is_absolute() ? file : lesson.path(file), kernel, *opts.gpu, ex.defines);
  CheckOptions fast = opts;
  fast.kernel_checks = false;
  fast.keep_values = false;  // measured, not compared
  SizeRun br = run_size(BL, ex, geo, sizes, opts.seed, fast, lesson.manifest_path);
  if (!br.problem.empty()) throw std::runtime_error(br.problem);
  MeasuredKernel m;
  m.figures = fold_metrics(BL.module(), BL.kernel(), br.result.metrics);
  fill_model(BL, geo, sizes, br.result.metrics, m.figures);
  m.blocks_run = br.result.metrics.blocks;
  m.blocks_total = dim3_of(geo.grid, sizes).count();
  m.block_threads = uint32_t(dim3_of(geo.block, sizes).count());
  // Resident blocks capped (CheckOptions::max_blocks_per_sm): the occupancy is the cap's.
  if (opts.max_blocks_per_sm && m.figures.occupancy > 0 && opts.gpu->max_warps_per_sm > 0)
    m.figures.occupancy = std::min(m.figures.occupancy, double(opts.max_blocks_per_sm) * ((m.block_threads + 31) / 32) /
                                                            double(opts.gpu->max_warps_per_sm));
  return m;
}

namespace {

// A baseline's figures (the reference solution's, a named baseline's) do not
// change while the lab runs, so every check in one process (a `gpulab watch`
// session, a test's many attempts at one exercise) simulates each once, and
// later processes of the same build read them from disk (baseline_cache.h).
// The key holds everything the run depends on: the file's text (an edited
// solution is run again; headers it includes are not part of the key, as in
// the PTX cache's, and no lesson's kernel baseline includes one), the
// exercise (its arguments), kernel, geometry, sizes, GPU model, seed and run
// options.
KernelFigures baseline_figures(const Lesson& lesson, const Exercise& ex, const std::string& file,
                               const std::string& kernel, const Geometry& geo, const SizeVars& sizes,
                               const CheckOptions& o) {
  const std::string path = fs::path(file).is_absolute() ? file : lesson.path(file);
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string key = fmt::format("{}|{}\n{}\n{}\n{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|", lesson.manifest_path, ex.id, path,
                                text.str(), kernel, fmt::join(geo.grid, ","), fmt::join(geo.block, ","), geo.shared_bytes,
                                sizes_text(sizes), o.gpu->name, o.seed, o.sample_only, o.max_blocks_per_sm, o.predict,
                                o.timed_warp_insts, o.min_slice_sms);
  for (const auto& d : ex.defines) key += d + ";";
  for (const auto& a : ex.args) key += a.text + ";";
  static std::mutex* mutex = new std::mutex;
  static auto* cache = new std::map<std::string, KernelFigures>;
  {
    std::lock_guard<std::mutex> lock(*mutex);
    if (auto it = cache->find(key); it != cache->end()) return it->second;
  }
  // Kept on disk too (baseline_cache.h): the next check, in another process,
  // reads them instead of predicting the baseline again.
  std::optional<KernelFigures> kept = cached_baseline(key);
  KernelFigures f = kept ? std::move(*kept) : kernel_figures_at(lesson, ex, file, kernel, geo, sizes, o).figures;
  if (!kept) store_baseline(key, f);
  std::lock_guard<std::mutex> lock(*mutex);
  return cache->emplace(std::move(key), std::move(f)).first->second;
}

}  // namespace

CheckReport check_exercise(const Lesson& lesson, const Exercise& ex_in, const CheckOptions& opts) {
  CheckReport rep;
  rep.lesson_id = lesson.id;
  rep.exercise_id = ex_in.id;
  // A shipped exercise is judged by the lab's own definition (shipped.h): an
  // edited lesson.toml in the lessons folder is reported, not obeyed.
  const std::optional<Exercise> shipped = shipped_exercise_if_edited(lesson, ex_in);
  const Exercise& ex = shipped ? *shipped : ex_in;
  if (shipped)
    rep.manifest_note = fmt::format(
        "{}'s definition of '{}' differs from the lab's own (its sizes, limits or criteria were edited): the lab's is "
        "used. Restore lesson.toml to silence this.",
        lesson.manifest_path, ex.id);
  std::string path = !opts.source.empty() ? opts.source : lesson.path(opts.solution ? ex.solution : ex.file);
  rep.file = path;
  rep.reference_copy = !opts.solution && !ex.solution.empty() && same_code(path, lesson.path(ex.solution));
  auto fail = [&](std::string stage, std::string msg) {
    rep.stage = std::move(stage);
    rep.message = std::move(msg);
    rep.passed = false;
    return rep;
  };
  if (!fs::exists(path))
    return fail("file", fmt::format("{}: not found. `gpulab reset {}/{}` restores it from the template.", path,
                                     lesson.id, ex.id));
  if (!ex.program.empty()) return check_program_exercise(lesson, ex, opts, std::move(rep));
  std::vector<std::string> src = read_lines(path);

  // 1. compile and parse
  Loaded L;
  try {
    L = load_kernel(path, ex.kernel, *opts.gpu, ex.defines);
  } catch (const compile::CompileError& e) {
    return fail("compile", fmt::format("{} does not compile:\n{}", path, e.log));
  } catch (const std::exception& e) {
    return fail("compile", e.what());
  }

  // Time is judged where the GPU is full, on the blocks the cycle model samples
  // (outputs there are incomplete; correctness is settled on every size below).
  CheckOptions sampled = opts;
  sampled.sample_only = true;
  sampled.timed_warp_insts = kCheckTimedWarpInsts;
  sampled.min_slice_sms = kCheckMinSliceSms;
  // The student's kernel at the time size, the check's longest run (a
  // prediction of a launch that fills the GPU), starts now, beside the
  // correctness runs, under the launch limits this thread has (the step
  // budget, the deadline, a watch's cancel); a check that ends before it is
  // read stops it and waits for it to stop (timed_guard). Its threads run at
  // a lower priority (nice 10, which the simulator's workers inherit), so
  // the correctness runs, whose failure is the common answer while a student
  // works, keep the cores and take what they took before; it has the
  // machine once they are done.
  std::atomic<bool> timed_stop{false};
  std::future<KernelFigures> timed_run;
  struct StopAndWait {
    std::atomic<bool>& stop;
    std::future<KernelFigures>& run;
    ~StopAndWait() {
      stop = true;
      if (run.valid()) run.wait();
    }
  } timed_guard{timed_stop, timed_run};
  if (!ex.time_size.empty() && std::any_of(ex.criteria.begin(), ex.criteria.end(), [](const Criterion& c) {
        return c.metric == Metric::MaxPredictedTimeRatio;
      })) {
    CheckOptions own = sampled;
    own.cancel = &timed_stop;
    timed_run = std::async(std::launch::async, [&lesson, &ex, own, limits = sim::LaunchLimitScope::current(),
                                                file = fs::absolute(path).string()] {
      sim::LaunchLimitScope scope(limits);
      // Linux's nice value is per thread, and threads started later inherit it
      // (setpriority(2), "BUGS"); raising it needs no privilege.
      setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)), 10);
      return kernel_figures_at(lesson, ex, file, ex.kernel, ex.geometry, ex.time_size, own).figures;
    });
  }

  // 2-3. every size: run with checks on, compare with the reference
  KernelFigures figures;
  sim::KernelMetrics metric_run;  // the metric size's counters, for the machine model
  SizeVars metric_sizes = ex.sizes[ex.metric_size];
  // One size: run it (with the kernel checks when `checks`), then judge its
  // values. Wrong values from a run without the checks run again with them,
  // so a race or a missing barrier is named first instead of only its symptom.
  auto run_and_judge = [&](const SizeVars& sz, uint64_t seed, bool checks, bool predict, SizeResult& sr) {
    CheckOptions size_opts = opts;
    size_opts.kernel_checks = checks;
    size_opts.predict = predict;
    SizeRun run = run_size(L, ex, ex.geometry, sz, seed, size_opts, lesson.manifest_path);
    sr.sizes = sz;
    sr.sim_seconds = run.result.metrics.sim_seconds;
    if (run.refused) return run;
    if (!run.problem.empty()) {
      sr.message = run.problem;
    } else if (!run.result.errors.empty()) {
      sr.message = fmt::format("the kernel checks found {} problem(s):{}", run.result.errors.size(),
                               errors_text(run.result.errors, src));
    } else {
      sr.message = compare(ex, run, sz, sr.max_error);
      if (!sr.message.empty() && opts.kernel_checks && !checks) {
        CheckOptions again_opts = opts;
        again_opts.predict = false;  // only its kernel errors are read
        SizeRun again = run_size(L, ex, ex.geometry, sz, seed, again_opts, lesson.manifest_path);
        if (again.problem.empty() && !again.result.errors.empty())
          sr.message = fmt::format("the kernel checks found {} problem(s):{}\n  and so: {}", again.result.errors.size(),
                                   errors_text(again.result.errors, src), sr.message);
      }
    }
    sr.ok = sr.message.empty();
    return run;
  };
  auto refused = [&](const SizeVars& sz, const SizeRun& run) {
    // A block the GPU would refuse never runs: that is the failure, not a later symptom.
    if (const compile::ResourceUsage* u = L.resources()) rep.registers = u->registers, rep.shared_bytes = u->static_shared_bytes;
    return fail("launch", fmt::format("cannot launch at size {}: {}", sizes_text(sz), run.problem));
  };
  bool all_ok = true;
  for (size_t si = 0; si < ex.sizes.size(); ++si) {
    const SizeVars& sz = ex.sizes[si];
    SizeResult sr;
    // The kernel checks (races, uninitialised reads, exact bounds) cost ~5x
    // the plain run. They run on every other size, which are small and odd
    // (edge blocks, partial tiles, several tile steps); the metric size, the
    // largest, is still compared element by element with the reference.
    const bool checks = opts.kernel_checks && !(si == ex.metric_size && ex.sizes.size() >= 3);
    // Only the metric size's prediction is read (the criteria); the others are compared.
    SizeRun run = run_and_judge(sz, opts.seed + si, checks, si == ex.metric_size, sr);
    if (run.refused) return refused(sz, run);
    all_ok = all_ok && sr.ok;
    if (si == ex.metric_size && sr.ok) {
      figures = fold_metrics(L.module(), L.kernel(), run.result.metrics);
      metric_run = run.result.metrics;
    }
    rep.sizes.push_back(std::move(sr));
    if (!rep.sizes.back().ok) break;  // later sizes would say the same
  }
  if (!all_ok) {
    const SizeResult& bad = rep.sizes.back();
    return fail("correctness", fmt::format("wrong at size {}: {}", sizes_text(bad.sizes), bad.message));
  }

  // 4. efficiency criteria at the metric size
  fill_model(L, ex.geometry, metric_sizes, metric_run, figures);
  rep.registers = figures.registers;
  rep.shared_bytes = figures.shared_bytes;
  rep.occupancy = figures.occupancy;
  rep.predicted_seconds = figures.predicted_seconds;
  // A criterion's baseline (the reference solution, or a named one) at `sizes`:
  // the checked file's own figures when it is the solution, else a run of it.
  // Kept per baseline and size kind, so each runs once.
  std::map<std::string, KernelFigures> baselines, timed_baselines;
  // Runs baseline `name` at `sizes`; false when it is the checked file itself
  // or no baseline of that name exists.
  auto run_baseline = [&](const std::string& name, const SizeVars& sizes, const CheckOptions& o, KernelFigures* out) {
    auto run = [&](const std::string& file, const std::string& kernel, const Geometry& geo) {
      *out = baseline_figures(lesson, ex, file, kernel, geo, sizes, o);
      return true;
    };
    if (name == "solution") return !same_file(path, lesson.path(ex.solution)) && run(ex.solution, ex.kernel, ex.geometry);
    for (auto& [n, b] : ex.baselines)
      if (n == name) return run(b.file, b.kernel, b.geometry);
    return false;
  };
  auto baseline_at = [&](const std::string& name, const SizeVars& sizes, const CheckOptions& o,
                         const KernelFigures& own, std::map<std::string, KernelFigures>& memo) -> const KernelFigures* {
    if (name.empty()) return nullptr;
    if (!memo.count(name)) {
      try {
        if (name == "solution" && same_file(path, lesson.path(ex.solution))) memo[name] = own;
        else if (KernelFigures f; run_baseline(name, sizes, o, &f)) memo[name] = std::move(f);
      } catch (const std::exception& e) {
        throw ManifestError(lesson.manifest_path, "baselines." + name, e.what());
      }
    }
    return &memo[name];
  };
  // The baselines' runs at the time size start now, beside the student's own
  // (started above): each is a prediction of a launch that fills the GPU, the
  // check's longest runs, and they do not depend on one another. They land
  // in baseline_figures' cache, which baseline_at then reads; a failure is
  // reported there, when baseline_at runs it again.
  std::vector<std::future<void>> timed_ahead;
  if (!ex.time_size.empty())
    for (const auto& c : ex.criteria)
      if (c.metric == Metric::MaxPredictedTimeRatio && !c.baseline.empty())
        timed_ahead.push_back(std::async(std::launch::async, [&, name = c.baseline] {
          try {
            KernelFigures f;
            run_baseline(name, ex.time_size, sampled, &f);
          } catch (const std::exception&) {
          }
        }));
  // The drawn second size (step 5) runs now, while the time-size run is
  // still going on the other core; its result is read in step 5, as if it
  // ran there.
  const SizeVars* judge_size = nullptr;
  SizeResult judge_result;
  SizeRun judge_run;
  if (!ex.judge_sizes.empty()) {
    const size_t pick = opts.judge_size >= 0 ? size_t(opts.judge_size) % ex.judge_sizes.size()
                                             : size_t(std::random_device{}() % ex.judge_sizes.size());
    judge_size = &ex.judge_sizes[pick];
    judge_result.drawn = true;
    // The kernel checks ran on the small sizes; wrong values rerun with them.
    judge_run = run_and_judge(*judge_size, opts.seed + ex.sizes.size(), false, true, judge_result);
  }
  std::optional<KernelFigures> timed;  // the student's kernel at ex.time_size
  for (const auto& c : ex.criteria) {
    if (c.metric == Metric::MaxPredictedTimeRatio && !ex.time_size.empty()) {
      if (!timed) timed = timed_run.get();
      for (std::future<void>& f : timed_ahead) f.wait();
      CriterionResult cr = evaluate_criterion(c, *timed, ex.time_size,
                                              baseline_at(c.baseline, ex.time_size, sampled, *timed, timed_baselines), src);
      cr.file = path;
      cr.message += fmt::format(", at size {} (a sample of the blocks timed)", sizes_text(ex.time_size));
      if (!cr.ok && !c.why.empty()) cr.message += ". " + c.why;
      rep.criteria.push_back(std::move(cr));
      continue;
    }
    const KernelFigures* base = baseline_at(c.baseline, metric_sizes, opts, figures, baselines);
    CriterionResult cr = evaluate_criterion(c, figures, metric_sizes, base, src);
    if (cr.file.empty() || cr.file == path || fs::path(cr.file).filename() == fs::path(path).filename()) cr.file = path;
    if (!cr.ok && !c.why.empty()) cr.message += " " + c.why;
    rep.criteria.push_back(std::move(cr));
  }
  // 5. The criteria again at a second size drawn from the manifest's
  // judge_sizes: a kernel efficient only at the metric size fails there.
  // Correct there too; time stays judged where the exercise says (time_size).
  if (judge_size) {
    const SizeVars& jz = *judge_size;
    const SizeResult& sr = judge_result;
    const SizeRun& run = judge_run;
    if (run.refused) return refused(jz, run);
    rep.sizes.push_back(sr);
    if (!sr.ok)
      return fail("correctness", fmt::format("wrong at size {} (drawn for this check from the {} the lesson lists): {}",
                                             sizes_text(jz), ex.judge_sizes.size(), sr.message));
    KernelFigures judged = fold_metrics(L.module(), L.kernel(), run.result.metrics);
    fill_model(L, ex.geometry, jz, run.result.metrics, judged);
    std::map<std::string, KernelFigures> judged_baselines;
    for (size_t i = 0; i < ex.criteria.size() && i < rep.criteria.size(); ++i) {
      const Criterion& c = ex.criteria[i];
      if (c.metric == Metric::MaxPredictedTimeRatio && !ex.time_size.empty()) continue;
      CriterionResult cr = evaluate_criterion(c, judged, jz, baseline_at(c.baseline, jz, opts, judged, judged_baselines), src);
      if (cr.ok) {
        if (rep.criteria[i].ok) rep.criteria[i].message += fmt::format("; at size {}: {}", sizes_text(jz), cr.message);
        continue;
      }
      if (!rep.criteria[i].ok) continue;  // already failing at the metric size: one message is enough
      if (cr.file.empty() || cr.file == path || fs::path(cr.file).filename() == fs::path(path).filename()) cr.file = path;
      while (!cr.message.empty() && cr.message.back() == '.') cr.message.pop_back();
      cr.message += fmt::format(", at size {} (drawn for this check; it held at {})", sizes_text(jz), sizes_text(metric_sizes));
      if (!c.why.empty()) cr.message += ". " + c.why;
      rep.criteria[i] = std::move(cr);
    }
  }
  size_t failed = 0;
  for (auto& c : rep.criteria) failed += !c.ok;
  if (failed)
    return fail("criteria", fmt::format("correct on all {} sizes, but {} of {} efficiency criteria failed",
                                        rep.sizes.size(), failed, rep.criteria.size()));
  rep.passed = true;
  rep.stage = "passed";
  rep.message = ex.judge_sizes.empty()
                    ? fmt::format("correct on all {} sizes and all {} efficiency criteria met", rep.sizes.size(),
                                  rep.criteria.size())
                    : fmt::format("correct on all {} sizes and all {} efficiency criteria met at sizes {} and {}",
                                  rep.sizes.size(), rep.criteria.size(), sizes_text(metric_sizes),
                                  sizes_text(rep.sizes.back().sizes));
  return rep;
}

std::string measure_table(const Lesson& lesson, const Exercise& ex_in, const std::string& source, const std::string& kernel,
                          const CheckOptions& opts) {
  Exercise ex = ex_in;
  if (!kernel.empty()) ex.kernel = kernel;
  std::string path = lesson.path(source);
  std::vector<std::string> src = read_lines(path);
  Loaded L = load_kernel(path, ex.kernel, *opts.gpu, ex.defines);
  const SizeVars& sz = ex.sizes[ex.metric_size];
  CheckOptions counted = opts;
  counted.keep_values = false;  // its counters are shown, its values not compared
  SizeRun run = run_size(L, ex, ex.geometry, sz, opts.seed, counted, lesson.manifest_path);
  if (!run.problem.empty()) return run.problem + "\n";
  KernelFigures f = fold_metrics(L.module(), L.kernel(), run.result.metrics);
  std::string s = fmt::format("{} ({}), size {}, simulated as {}:\n", source, ex.kernel, sizes_text(sz), opts.gpu->name);
  // A reference solution's counts are shown, its code is not: the lesson
  // measures it before the student has tried the exercise (`gpulab
  // solution` shows it after a pass, or on request).
  const bool reference = source.find(".solutions/") != std::string::npos;
  // One row per memory instruction: two loads on one source line are two rows.
  s += fmt::format("  {:>5}  {:<17} {:>9} {:>9} {:>8} {:>9} {:>8}  {}\n", "line", "instruction", "requests", "sectors",
                   "sect/req", "wavefr", "conflict", "source");
  // The instructions of one kind on one line that cost alike (an unrolled
  // loop's copies) fold into one row, in the order the line first appears,
  // with their counts added: "load shared x32".
  std::vector<bool> done(f.mem.size(), false);
  for (size_t i = 0; i < f.mem.size(); ++i) {
    if (done[i]) continue;
    const InstrCounters& ic = f.mem[i];
    auto same = [&](const InstrCounters& o) {
      return o.line == ic.line && o.file == ic.file && o.global == ic.global && o.local == ic.local &&
             o.shared == ic.shared && o.reads == ic.reads && o.writes == ic.writes && o.requests == ic.requests &&
             o.sectors == ic.sectors && o.wavefronts == ic.wavefronts;  // copies cost alike; a cheap load beside an expensive one keeps its row
    };
    uint64_t n = 0, requests = 0, sectors = 0, wavefronts = 0, ideal = 0;
    for (size_t j = i; j < f.mem.size(); ++j)
      if (!done[j] && same(f.mem[j])) {
        done[j] = true, ++n;
        requests += f.mem[j].requests, sectors += f.mem[j].sectors, wavefronts += f.mem[j].wavefronts,
            ideal += f.mem[j].ideal_wavefronts;
      }
    std::string kind = fmt::format("{} {}{}", ic.reads && ic.writes ? "atomic" : ic.reads ? "load" : "store",
                                   ic.global ? "global" : ic.local ? "local" : "shared",
                                   n > 1 ? fmt::format(" x{}", n) : "");
    std::string text = !reference && ic.line && ic.line <= src.size() ? src[ic.line - 1] : "";
    size_t b = text.find_first_not_of(" \t");
    text = b == std::string::npos ? "" : text.substr(b, 56);
    s += fmt::format("  {:>5}  {:<17} {:>9} {:>9} {:>8} {:>9} {:>8}  {}\n", ic.line, kind, requests,
                     ic.shared ? std::string("-") : std::to_string(sectors),
                     ic.shared ? std::string("-") : fmt::format("{:.1f}", requests ? double(sectors) / double(requests) : 0.0),
                     ic.shared ? std::to_string(wavefronts) : std::string("-"),
                     ic.shared ? std::to_string(sim::bank_conflicts(wavefronts, ideal)) : std::string("-"), text);
  }
  if (reference) s += "  (the reference solution's code is not shown: `gpulab solution` shows it once your exercise passes)\n";
  s += "  (requests: warp-level instructions; sectors: the 32-byte sectors a global or local request touched;\n"
       "   wavefr: a shared request's wavefronts; conflict: wavefronts beyond the conflict-free ideal;\n"
       "   xN: N instructions of that kind on the line, e.g. an unrolled loop's copies, counts added)\n";
  double eff = f.warp_insts ? double(f.active_lanes) / (32.0 * double(f.warp_insts)) : 0;
  s += fmt::format("  totals: {} warp instructions, warp execution efficiency {:.1f}%, {} FP32 FMA warp instructions,\n"
                   "          {} global load sectors, {} global store sectors ({} bytes), {} shared loads, {} bank conflicts\n",
                   f.warp_insts, 100 * eff, f.fma_warp_insts, f.global_load_sectors, f.global_store_sectors,
                   32 * (f.global_load_sectors + f.global_store_sectors), f.shared_load_requests, f.bank_conflicts());
  if (f.tensor_macs > 0)
    s += fmt::format("          tensor cores: {:.0f} multiply-adds in mma instructions, {:.1f}% of all multiply-adds\n",
                     f.tensor_macs, 100 * f.tensor_macs / (f.tensor_macs + f.other_macs));
  fill_model(L, ex.geometry, sz, run.result.metrics, f);
  if (f.registers)
    s += fmt::format("  resources: {} registers per thread, {} bytes of shared memory per block, theoretical occupancy "
                     "{:.0f}% on the {} model\n",
                     f.registers, f.shared_bytes, 100 * f.occupancy, opts.gpu->name);
  return s;
}

std::string format_report(const CheckReport& r) {
  std::string s = fmt::format("{} {}/{} ({})\n", r.passed ? "PASS" : "FAIL", r.lesson_id, r.exercise_id, r.file);
  if (!r.manifest_note.empty()) s += "  NOTE: " + r.manifest_note + "\n";
  for (const auto& sr : r.sizes)
    s += fmt::format("  {} size {}{}{}\n", sr.ok ? "ok  " : "FAIL", sizes_text(sr.sizes),
                     sr.ok ? fmt::format(" (max error {:.1e})", sr.max_error) : "",
                     sr.drawn ? ", drawn for this check: the criteria are judged here too" : "");
  if (r.registers)
    s += fmt::format("  resources: {} registers per thread, {} bytes of shared memory per block{}\n", r.registers,
                     r.shared_bytes, r.occupancy >= 0 ? fmt::format(", theoretical occupancy {:.0f}%", 100 * r.occupancy) : "");
  for (const auto& c : r.criteria) {
    s += fmt::format("  {} {}: {}\n", c.ok ? "ok  " : "FAIL", c.name, c.message);
    if (!c.ok && c.line) s += fmt::format("       {}:{}: {}\n", c.file, c.line, c.source_line);
  }
  s += (r.passed ? "" : "=> ") + r.message + "\n";
  return s;
}

std::string report_json(const CheckReport& r) {
  nlohmann::json j;
  j["lesson"] = r.lesson_id;
  j["exercise"] = r.exercise_id;
  j["file"] = r.file;
  j["passed"] = r.passed;
  j["stage"] = r.stage;
  j["message"] = r.message;
  j["sizes"] = nlohmann::json::array();
  for (const auto& sr : r.sizes)
    j["sizes"].push_back(
        {{"sizes", sr.sizes}, {"ok", sr.ok}, {"message", sr.message}, {"max_error", sr.max_error}, {"drawn", sr.drawn}});
  j["criteria"] = nlohmann::json::array();
  for (const auto& c : r.criteria) {
    nlohmann::json cj = {{"name", c.name}, {"ok", c.ok}, {"measured", c.measured}, {"limit", c.limit}, {"message", c.message}};
    if (c.line) cj["file"] = c.file, cj["line"] = c.line, cj["source_line"] = c.source_line;
    j["criteria"].push_back(cj);
  }
  // Resources at the metric size (null when not known): what the occupancy follows from.
  j["registers_per_thread"] = r.registers ? nlohmann::json(r.registers) : nlohmann::json(nullptr);
  j["shared_bytes_per_block"] = r.registers ? nlohmann::json(r.shared_bytes) : nlohmann::json(nullptr);
  j["occupancy"] = r.occupancy >= 0 ? nlohmann::json(r.occupancy) : nlohmann::json(nullptr);
  j["reference_copy"] = r.reference_copy;
  if (!r.manifest_note.empty()) j["manifest_edited"] = r.manifest_note;
  j["predicted_seconds"] = r.predicted_seconds > 0 ? nlohmann::json(r.predicted_seconds) : nlohmann::json(nullptr);
  return j.dump();
}

}  // namespace lab::lesson
