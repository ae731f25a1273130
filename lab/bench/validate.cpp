#include "lab/bench/validate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "lab/bench/gemm_bench.h"
#include "lab/gemm/gemm_problem.h"
#include "lab/gemm/gemm_registry.h"
#include "lab/gemm/gemm_sim.h"
#include "lab/compile/nvrtc.h"
#include "lab/cuda/backend.h"
#include "lab/sim/device.h"
#include "lab/sim/report.h"

namespace lab::bench {
using namespace lab::gemm;  // the GEMM versions and problem (lab/gemm)

const std::vector<NcuMetric>& ncu_metrics() {
  // Nsight Compute Kernel Profiling Guide: requests and sectors of the L1TEX
  // unit per global op; shared-memory wavefronts and bank conflicts of the
  // LSU data pipe; achieved occupancy as active warps over the SM's maximum.
  static const std::vector<NcuMetric> m = {
      {"warp_instructions", "smsp__inst_executed.sum"},
      {"global_load_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
      {"global_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"},
      {"global_store_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"},
      {"global_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"},
      {"shared_load_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"},
      {"shared_load_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"},
      {"shared_store_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"},
      {"shared_store_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"},
      {"achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"},
  };
  return m;
}

namespace {

void say(const ValidateOptions& o, const std::string& s) {
  if (o.progress) o.progress(s);
}

bool selected(const ValidateOptions& o, const std::string& name) {
  if (o.only.empty()) return true;
  for (const auto& n : o.only)
    if (n == name) return true;
  return false;
}

// [SIM] every version in the simulator, with the machine model's report.
void simulate_all(const ValidateOptions& o, const std::vector<GemmVersion>& versions, std::vector<ValidateRow>& rows) {
  const sim::GpuModel& model = *o.gpu;
  GemmProblem p = make_gemm_problem(o.size, o.size, o.size);
  for (const auto& v : versions) {
    if (!selected(o, v.name)) continue;
    ValidateRow row;
    row.name = v.name;
    SideFigures& s = row.sim;
    if (model.cc_major * 10 + model.cc_minor < v.min_arch) {
      s.note = fmt::format("needs compute capability {}.{}", v.min_arch / 10, v.min_arch % 10);
      rows.push_back(row);
      continue;
    }
    say(o, fmt::format("sim   {:<22} {}^3 ...", v.name, o.size));
    sim::SimOptions so;
    so.threads = o.threads;
    so.gpu = &model;
    SimGemmRun run = simulate_gemm(v, p, so);
    if (run.unsupported) {
      s.note = "simulator: " + run.unsupported_reason.substr(0, run.unsupported_reason.find('\n'));
      rows.push_back(row);
      continue;
    }
    s.ran = true;
    GemmCheck c = check_gemm(p, v.precision, run.C.data());
    s.correct = c.correct && run.result.ok;
    s.max_rel_error = c.max_rel_error;
    sim::KernelReport kr = sim::build_report(run.compiled, run.launch, run.result.metrics);
    nlohmann::json mj = kr.to_metrics_json();
    for (const auto& m : ncu_metrics())
      if (mj.contains(m.key)) s.counters[m.key] = mj[m.key];
    nlohmann::json pj = kr.to_predicted_json();
    if (pj.contains("time_ms") && pj["time_ms"].is_number()) s.ms = pj["time_ms"].get<double>();
    rows.push_back(row);
  }
}

// Nsight Compute's --csv --page raw output: a header row of metric names,
// a units row, then one row per profiled kernel launch.
std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"') quoted = !quoted;
    else if (ch == ',' && !quoted) { out.push_back(cur); cur.clear(); }
    else cur += ch;
  }
  out.push_back(cur);
  return out;
}

std::optional<nlohmann::json> ncu_counters(const ValidateOptions& o, const GemmVersion& v, std::string& note) {
  if (o.self_exe.empty() || std::system("command -v ncu >/dev/null 2>&1") != 0) {
    note = "ncu not on PATH: counters not measured";
    return std::nullopt;
  }
  std::string metrics;
  for (const auto& m : ncu_metrics()) metrics += (metrics.empty() ? "" : ",") + std::string(m.ncu);
  // --clock-control none: the GPU runs at its own clocks, as in the timed runs.
  std::string cmd = fmt::format(
      "ncu --clock-control none --csv --page raw --metrics {} --kernel-name {} --launch-count 1 "
      "'{}' bench gemm --backend cuda --only {} --size {} --quiet --json 2>/dev/null",
      metrics, v.kernel, o.self_exe, v.name, o.size);
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) { note = "could not start ncu"; return std::nullopt; }
  std::vector<std::vector<std::string>> table;
  std::array<char, 1 << 16> buf;
  while (fgets(buf.data(), int(buf.size()), pipe)) {
    std::string line(buf.data());
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (line.rfind("\"ID\"", 0) == 0 || (!table.empty() && !line.empty() && line[0] == '"'))
      table.push_back(split_csv_line(line));
  }
  pclose(pipe);
  if (table.size() < 3) { note = "ncu printed no metrics (is profiling permitted for this user?)"; return std::nullopt; }
  const auto& header = table[0];
  const auto& values = table[2];
  nlohmann::json out = nlohmann::json::object();
  for (const auto& m : ncu_metrics())
    for (size_t i = 0; i < header.size() && i < values.size(); ++i)
      if (header[i] == m.ncu) {
        std::string val = values[i];
        val.erase(std::remove(val.begin(), val.end(), ','), val.end());
        double d = std::strtod(val.c_str(), nullptr);
        out[m.key] = std::string(m.key) == "achieved_occupancy" ? d / 100.0 : d;
      }
  return out;
}

// [LIVE] the same versions on this machine's GPU: results and times from the
// bench's CUDA path, counters from ncu.
std::string measure_live(const ValidateOptions& o, const std::vector<GemmVersion>& versions,
                         std::vector<ValidateRow>& rows) {
  BenchOptions bo;
  bo.m = bo.n = bo.k = o.size;
  bo.backend = "cuda";
  bo.cpu_rows = false;
  bo.only = o.only;
  bo.progress = o.progress;
  BenchReport br = run_gemm_bench(bo);
  for (auto& row : rows) {
    for (const auto& b : br.rows) {
      if (b.name != row.name || b.backend != "cuda") continue;
      row.gpu.ran = b.correct.has_value();
      row.gpu.correct = b.correct;
      row.gpu.max_rel_error = b.max_rel_error;
      row.gpu.ms = b.ms;
      row.gpu.note = b.note;
    }
    for (const auto& v : versions)
      if (v.name == row.name && row.gpu.ran) {
        std::string note;
        if (auto c = ncu_counters(o, v, note)) row.gpu.counters = *c;
        else if (row.gpu.note.empty()) row.gpu.note = note;
      }
  }
  return "live: " + br.gpu_label;
}

std::string load_recorded(const std::string& path, std::vector<ValidateRow>& rows, int size) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the recorded GPU results (check the path)", path));
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON ({}); write it with `gpulab validate --record`", path, e.what()));
  }
  if (!j.contains("kernels") || !j["kernels"].is_array())
    throw std::runtime_error(fmt::format("{}: no \"kernels\" array; write it with `gpulab validate --record`", path));
  if (j.value("size", size) != size)
    throw std::runtime_error(fmt::format("{}: recorded at size {}, but this run is size {}; pass --size {}", path,
                                         j.value("size", 0), size, j.value("size", 0)));
  for (auto& row : rows)
    for (const auto& k : j["kernels"])
      if (k.value("name", "") == row.name) {
        row.gpu.ran = true;
        if (k.contains("correct") && k["correct"].is_boolean()) row.gpu.correct = k["correct"].get<bool>();
        row.gpu.max_rel_error = k.value("max_rel_error", 0.0);
        if (k.contains("ms") && k["ms"].is_number()) row.gpu.ms = k["ms"].get<double>();
        if (k.contains("counters")) row.gpu.counters = k["counters"];
      }
  return fmt::format("recorded: {} ({}, {})", path, j.value("gpu", "unknown GPU"), j.value("date", "undated"));
}

std::string fmt_num(const nlohmann::json& v) {
  if (!v.is_number()) return "-";
  double d = v.get<double>();
  if (d != 0 && std::abs(d) < 10) return fmt::format("{:.3g}", d);
  return fmt::format("{:.0f}", d);
}

}  // namespace

ValidateReport run_validate(const ValidateOptions& o) {
  ValidateReport rep;
  rep.size = o.size;
  auto versions = load_gemm_versions();
  std::string why;
  bool live = false;
  if (o.gpu_backend == "cuda" || o.gpu_backend == "auto") {
    live = cuda::cuda_available(&why);
    if (!live && o.gpu_backend == "cuda")
      throw std::runtime_error("--gpu-backend cuda: no GPU can be used: " + why);
  }
  ValidateOptions so = o;
  if (live) {
    // Model the GPU that is actually here, so the two sides are the same chip.
    cuda::Gpu gpu;
    std::string name = gpu.name();
    for (const auto& m : sim::all_gpu_models())
      if (name.find(std::string(m.name)) != std::string::npos) so.gpu = &m;
  }
  rep.gpu_model = std::string(so.gpu->name);
  simulate_all(so, versions, rep.rows);
  if (live) rep.gpu_source = measure_live(so, versions, rep.rows);
  else if (!o.against.empty()) rep.gpu_source = load_recorded(o.against, rep.rows, o.size);
  else rep.gpu_source = "none (" + (why.empty() ? std::string("--gpu-backend none") : why) +
                        "; give --against FILE recorded on a GPU with --record)";
  return rep;
}

std::string format_validate(const ValidateReport& rep) {
  std::string out = fmt::format("GEMM {}^3: simulator modelling {} vs GPU side: {}\n\n", rep.size, rep.gpu_model,
                                rep.gpu_source);
  for (const auto& r : rep.rows) {
    out += fmt::format("{}\n", r.name);
    if (!r.sim.ran) {
      out += fmt::format("  simulator: not run ({})\n", r.sim.note);
      continue;
    }
    auto ok = [](const SideFigures& s) {
      return !s.ran ? std::string("-") : s.correct.value_or(false) ? std::string("correct") : std::string("WRONG");
    };
    auto err = [](const SideFigures& s) { return s.ran ? fmt::format("{:.2e}", s.max_rel_error) : std::string("-"); };
    out += fmt::format("  {:<28} {:>16} {:>16} {:>8}\n", "", "simulated", "GPU", "ratio");
    out += fmt::format("  {:<28} {:>16} {:>16}\n", "result", ok(r.sim), ok(r.gpu));
    out += fmt::format("  {:<28} {:>16} {:>16}\n", "max relative error", err(r.sim), err(r.gpu));
    auto ms = [](const std::optional<double>& v) { return v ? fmt::format("{:.4f}", *v) : std::string("-"); };
    std::string ratio = (r.sim.ms && r.gpu.ms && *r.gpu.ms > 0) ? fmt::format("{:.2f}", *r.sim.ms / *r.gpu.ms) : "-";
    out += fmt::format("  {:<28} {:>16} {:>16} {:>8}\n", "time ms (predicted/measured)", ms(r.sim.ms), ms(r.gpu.ms), ratio);
    for (const auto& m : ncu_metrics()) {
      nlohmann::json a = r.sim.counters.value(m.key, nlohmann::json()), b = r.gpu.counters.value(m.key, nlohmann::json());
      std::string q = (a.is_number() && b.is_number() && b.get<double>() != 0)
                          ? fmt::format("{:.2f}", a.get<double>() / b.get<double>())
                          : "-";
      out += fmt::format("  {:<28} {:>16} {:>16} {:>8}\n", m.key, fmt_num(a), fmt_num(b), q);
    }
    if (!r.gpu.note.empty()) out += fmt::format("  note: {}\n", r.gpu.note);
  }
  return out;
}

static nlohmann::json side_json(const SideFigures& s) {
  nlohmann::json j = {{"ran", s.ran}, {"max_rel_error", s.max_rel_error}, {"counters", s.counters}};
  j["correct"] = s.correct ? nlohmann::json(*s.correct) : nlohmann::json();
  j["ms"] = s.ms ? nlohmann::json(*s.ms) : nlohmann::json();
  if (!s.note.empty()) j["note"] = s.note;
  return j;
}

nlohmann::json validate_json(const ValidateReport& rep) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : rep.rows) rows.push_back({{"name", r.name}, {"sim", side_json(r.sim)}, {"gpu", side_json(r.gpu)}});
  return {{"size", rep.size}, {"gpu_model", rep.gpu_model}, {"gpu_source", rep.gpu_source}, {"kernels", rows}};
}

nlohmann::json recorded_json(const ValidateReport& rep, const std::string& command) {
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& r : rep.rows) {
    if (!r.gpu.ran) continue;
    nlohmann::json k = {{"name", r.name}, {"max_rel_error", r.gpu.max_rel_error}, {"counters", r.gpu.counters}};
    k["correct"] = r.gpu.correct ? nlohmann::json(*r.gpu.correct) : nlohmann::json();
    k["ms"] = r.gpu.ms ? nlohmann::json(*r.gpu.ms) : nlohmann::json();
    kernels.push_back(k);
  }
  return {{"gpu", rep.gpu_source}, {"date", date}, {"command", command}, {"size", rep.size}, {"kernels", kernels}};
}

}  // namespace lab::bench
