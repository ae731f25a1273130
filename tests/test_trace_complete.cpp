// tests/test_trace_complete.cpp: no counted work escapes the cycle model
// (issue 24, item 1). For a corpus of kernels (the GEMM progression, every
// lesson's kernel exercise at its metric size, the check corpus's correct
// kernels), the sectors and wavefronts the cycle model consumed equal the
// interpreter's counters when every block is timed, and the predicted time
// is the same with and without `--check` (which turns the fast paths off);
// and no lesson kernel is predicted to move DRAM faster than its rated peak.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lab/gemm/gemm_problem.h"
#include "lab/gemm/gemm_registry.h"
#include "lab/gemm/gemm_sim.h"
#include "lab/lesson/manifest.h"
#include "lab/lesson/measure_run.h"
#include "lab/sim/cycle/result.h"
#include "lab/sim/device.h"
#include "lab/sim/run.h"

namespace fs = std::filesystem;
using namespace lab;

namespace {

struct Totals {
  uint64_t sectors = 0, wavefronts = 0;
};

Totals counted(const sim::KernelMetrics& m) {
  Totals t;
  for (const auto& c : m.per_pc) t.sectors += c.sectors, t.wavefronts += c.wavefronts;
  return t;
}

// A full-timing run: every block traced, so the trace must hold every count.
void require_trace_complete(const sim::LaunchResult& r, const std::string& what) {
  INFO(what);
  REQUIRE(r.ok);
  REQUIRE(r.metrics.cycle);
  const Totals t = counted(r.metrics);
  CHECK(r.metrics.cycle->traced_sectors == t.sectors);
  CHECK(r.metrics.cycle->traced_wavefronts == t.wavefronts);
}

sim::SimOptions options(sim::TimingMode mode, bool check) {
  sim::SimOptions o;
  o.gpu = &sim::gpu_model("H100");
  o.timing.mode = mode;
  o.check = check;
  o.threads = 2;
  return o;
}

double predicted_cycles(const sim::RunRequest& base, sim::TimingMode mode, bool check, Totals* traced = nullptr,
                        Totals* counts = nullptr) {
  sim::RunRequest req = base;
  const sim::GpuModel* gpu = req.gpu;
  req.options = options(mode, check);
  req.options.gpu = gpu;
  sim::RunOutcome out = sim::run_kernel(req);
  INFO(req.file << " " << req.kernel << (check ? " --check" : ""));
  REQUIRE(out.result.ok);
  REQUIRE(out.result.metrics.cycle);
  if (traced) *traced = {out.result.metrics.cycle->traced_sectors, out.result.metrics.cycle->traced_wavefronts};
  if (counts) *counts = counted(out.result.metrics);
  return out.result.metrics.cycle->cycles;
}

}  // namespace

TEST_CASE("trace: the GEMM progression's every sector and wavefront reaches the model; --check changes no time") {
  for (const auto& v : gemm::load_gemm_versions()) {
    double cycles[2] = {};
    for (int check = 0; check < 2; ++check) {
      gemm::GemmProblem p = gemm::make_gemm_problem(128, 128, 64);
      gemm::SimGemmRun run = gemm::simulate_gemm(v, p, options(sim::TimingMode::Full, check));
      if (run.unsupported) continue;
      require_trace_complete(run.result, v.name + (check ? " --check" : ""));
      cycles[check] = run.result.metrics.cycle->cycles;
      CHECK(run.result.metrics.cycle->traced_wavefronts + run.result.metrics.cycle->traced_sectors > 0);
    }
    INFO(v.name);
    CHECK(cycles[0] == cycles[1]);
  }
}

TEST_CASE("trace: a 32-way bank conflict costs time, whatever the flags") {
  // The fast path (full warp, 4-byte, no checker) used to count the
  // wavefronts without tracing them: 32-way conflicts were free.
  sim::RunRequest req;
  req.file = std::string(GPULAB_SOURCE_DIR) + "/kernels/mechanisms/banks.cu";
  req.kernel = "shared_ways";
  req.launch.grid = {132, 1, 1};
  req.launch.block = {256, 1, 1};
  req.gpu = &sim::gpu_model("H100");
  const int reps = 64;
  auto run = [&](int ways, bool check) {
    sim::RunRequest r = req;
    r.args = {"f32[" + std::to_string(132 * 256) + "]", "i32=" + std::to_string(ways), "i32=" + std::to_string(reps)};
    Totals traced, counts;
    double c = predicted_cycles(r, sim::TimingMode::Full, check, &traced, &counts);
    CHECK(traced.wavefronts == counts.wavefronts);
    return c;
  };
  const double free1 = run(1, false), conflict32 = run(32, false), conflict32_check = run(32, true);
  CHECK(conflict32 == conflict32_check);
  // One block of 8 warps per SM, 64 loads each of 32 wavefronts: the SM's
  // shared data path serves one wavefront per cycle, so at least 16,384
  // cycles, and little more (the fill loop and the store).
  const double path = 8.0 * reps * 32;
  CHECK(conflict32 >= path);
  CHECK(conflict32 < 1.2 * path);
  CHECK(conflict32 > 4 * free1);
}

TEST_CASE("trace: every lesson's kernel exercise, solved, predicts the same time with and without --check") {
  const std::string root = std::string(GPULAB_SOURCE_DIR) + "/lessons";
  int runs = 0;
  for (const lesson::Lesson& L : lesson::load_lessons(root)) {
    for (const lesson::Exercise& ex : L.exercises) {
      if (!ex.program.empty() || ex.solution.empty()) continue;  // program exercises: no single kernel
      lesson::MeasureRun mr = lesson::measure_run(L, ex, ex.solution);
      INFO(L.id << "/" << ex.id << " at " << mr.sizes_text);
      double cycles[2] = {};
      uint64_t dram = 0;
      bool ok = true;
      for (int check = 0; check < 2; ++check) {
        sim::RunRequest req = mr.request;
        const sim::GpuModel* gpu = req.gpu;
        req.options = options(sim::TimingMode::Sampled, check);
        req.options.gpu = gpu;
        sim::RunOutcome out = sim::run_kernel(req);
        // measure_run fills inputs with rand; an exercise that needs inputs in
        // a range (a histogram's bins) faults on them in both runs alike.
        ok = ok && out.result.ok && out.result.metrics.cycle;
        if (!ok) break;
        cycles[check] = out.result.metrics.cycle->cycles;
        if (!check)
          for (const auto& c : out.result.metrics.per_pc) dram += c.dram_read_bytes + c.dram_write_bytes;
      }
      if (!ok) continue;
      CHECK(cycles[0] == cycles[1]);
      // No predicted DRAM rate above the rated peak (issue 24): the bytes the
      // L2 model sent to DRAM over the predicted kernel time.
      const sim::GpuModel& g = *mr.request.gpu;
      const double seconds = cycles[0] / g.boost_clock_hz;
      INFO("DRAM " << dram << " bytes in " << seconds * 1e6 << " us");
      CHECK(double(dram) / seconds <= g.dram_bytes_per_s);
      ++runs;
    }
  }
  CHECK(runs >= 12);
}

TEST_CASE("trace: the check corpus's correct kernels reach the model whole") {
  const fs::path dir = fs::path(GPULAB_SOURCE_DIR) / "tests/check";
  int runs = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("ok_", 0) != 0 || e.path().extension() != ".cu") continue;
    sim::RunRequest req;
    req.file = e.path().string();
    req.gpu = &sim::gpu_model("H100");
    std::ifstream in(e.path());
    std::string line;
    bool has_run = false;
    while (std::getline(in, line)) {
      if (line.rfind("// run: ", 0) != 0) continue;
      has_run = true;
      std::stringstream ss(line.substr(8));
      std::string opt, val;
      auto dim = [](const std::string& s) {
        uint32_t v[3] = {1, 1, 1};
        std::stringstream ds(s);
        std::string part;
        for (int i = 0; i < 3 && std::getline(ds, part, ','); ++i) v[i] = uint32_t(std::stoul(part));
        return sim::Dim3{v[0], v[1], v[2]};
      };
      while (ss >> opt >> val) {
        if (opt == "--kernel") req.kernel = val;
        else if (opt == "--grid") req.launch.grid = dim(val);
        else if (opt == "--block") req.launch.block = dim(val);
        else if (opt == "--smem") req.launch.dynamic_shared_bytes = uint32_t(std::stoul(val));
        else if (opt == "--arg") req.args.push_back(val);
      }
    }
    if (!has_run) continue;
    INFO(name);
    Totals traced, counts;
    const double off = predicted_cycles(req, sim::TimingMode::Full, false, &traced, &counts);
    CHECK(traced.sectors == counts.sectors);
    CHECK(traced.wavefronts == counts.wavefronts);
    CHECK(off == predicted_cycles(req, sim::TimingMode::Full, true));
    ++runs;
  }
  CHECK(runs >= 10);
}
