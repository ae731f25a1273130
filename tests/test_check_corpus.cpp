// tests/test_check_corpus.cpp: the planted-bug corpus (tests/check/*.cu)
// through lab::sim::run_kernel with checks on, as `gpulab sim --check` runs it.
// Each file's header says what must happen:
//   // expect: KIND line N [; KIND line N ...]   each listed error is reported, and
//                                                no error of a kind not listed
//   // expect: clean                             no errors at all
//   // run: --kernel K --grid G --block B [--smem S] [--max-steps N] --arg SPEC ...
// tests/cli/checks.sh runs the same corpus through the gpulab command.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "lab/sim/run.h"

namespace fs = std::filesystem;
using namespace lab::sim;

namespace {

Dim3 dim(const std::string& s) {
  Dim3 d;
  uint32_t v[3] = {1, 1, 1};
  std::stringstream ss(s);
  std::string part;
  for (int i = 0; i < 3 && std::getline(ss, part, ','); ++i) v[i] = uint32_t(std::stoul(part));
  d.x = v[0]; d.y = v[1]; d.z = v[2];
  return d;
}

struct CorpusCase {
  std::string file;
  bool clean = false;
  std::vector<std::pair<std::string, uint32_t>> expect;
  RunRequest req;
};

CorpusCase load(const fs::path& path) {
  CorpusCase c;
  c.file = path.string();
  c.req.file = path.string();
  c.req.options.check = true;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("// expect: ", 0) == 0) {
      std::string e = line.substr(11);
      if (e == "clean") { c.clean = true; continue; }
      std::stringstream ss(e);
      std::string part;
      while (std::getline(ss, part, ';')) {
        std::stringstream ps(part);
        std::string kind, word;
        uint32_t n = 0;
        ps >> kind >> word >> n;
        c.expect.emplace_back(kind, n);
      }
    } else if (line.rfind("// run: ", 0) == 0) {
      std::stringstream ss(line.substr(8));
      std::string opt, val;
      while (ss >> opt >> val) {
        if (opt == "--kernel") c.req.kernel = val;
        else if (opt == "--grid") c.req.launch.grid = dim(val);
        else if (opt == "--block") c.req.launch.block = dim(val);
        else if (opt == "--smem") c.req.launch.dynamic_shared_bytes = uint32_t(std::stoul(val));
        else if (opt == "--max-steps") c.req.options.max_steps = std::stoull(val);
        else if (opt == "--arg") c.req.args.push_back(val);
      }
    }
  }
  return c;
}

std::vector<fs::path> corpus_files() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(GPULAB_SOURCE_DIR) / "tests/check"))
    if (e.path().extension() == ".cu") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string describe(const std::vector<KernelError>& errors) {
  std::string s;
  for (const auto& e : errors) s += "\n  " + e.kind + " line " + std::to_string(e.line) + ": " + e.message;
  return s;
}

}  // namespace

TEST_CASE("planted bugs are found on their line; correct kernels raise nothing") {
  auto files = corpus_files();
  REQUIRE(files.size() >= 20);
  int clean = 0, buggy = 0;
  for (const auto& f : files) {
    CorpusCase c = load(f);
    CAPTURE(c.file);
    REQUIRE((c.clean || !c.expect.empty()));
    RunOutcome out = run_kernel(c.req);
    const auto& errors = out.result.errors;
    INFO("errors:" << describe(errors));
    if (std::getenv("GPULAB_SHOW_CHECKS")) MESSAGE(c.file << ":" << describe(errors));
    if (c.clean) {
      ++clean;
      CHECK(out.result.ok);
      CHECK(errors.empty());
      continue;
    }
    ++buggy;
    CHECK_FALSE(out.result.ok);
    std::set<std::string> kinds;
    for (const auto& [kind, line] : c.expect) {
      kinds.insert(kind);
      bool found = std::any_of(errors.begin(), errors.end(),
                               [&](const KernelError& e) { return e.kind == kind && e.line == line; });
      CHECK_MESSAGE(found, "missing " << kind << " at line " << line);
    }
    for (const auto& e : errors) {
      CHECK_MESSAGE(kinds.count(e.kind), "unexpected " << e.kind << " at line " << e.line);
      CHECK(e.file.find(f.filename().string()) != std::string::npos);
      CHECK(e.count >= 1);
      // Dedup keeps the first few offenders so a report names several threads.
      CHECK(e.offenders.size() == std::min<uint64_t>(e.count, KernelError::kMaxOffenders));
    }
  }
  MESSAGE("corpus: " << buggy << " planted bugs found at kind and line, " << clean << " correct kernels clean");
  CHECK(clean >= 13);
  CHECK(buggy >= 16);
}

TEST_CASE("a race inside a helper names the helper's line and the call's") {
  // Inlined by the compiler (`.loc ... inlined_at`) or by the lab's parser
  // (a __noinline__ .func): the report's line is the student's call (13),
  // and its message names the statement at fault inside the helper (9).
  for (const char* name : {"race_in_noinline_helper.cu", "race_in_inlined_helper.cu"}) {
    CorpusCase c = load(fs::path(GPULAB_SOURCE_DIR) / "tests/check" / name);
    CAPTURE(name);
    RunOutcome out = run_kernel(c.req);
    INFO("errors:" << describe(out.result.errors));
    const auto& errors = out.result.errors;
    const bool named = std::any_of(errors.begin(), errors.end(), [](const KernelError& e) {
      return e.kind == "race" && e.line == 15 &&
             e.message.find("line 9 (in a function called at line 15)") != std::string::npos;
    });
    CHECK(named);
  }
}

TEST_CASE("checks off: the same buggy kernels run without check reports") {
  // Races, uninitialised reads and masks are only looked for with --check.
  for (const char* name : {"race_missing_sync.cu", "uninit_shared.cu", "invalid_mask_diverged.cu"}) {
    CorpusCase c = load(fs::path(GPULAB_SOURCE_DIR) / "tests/check" / name);
    c.req.options.check = false;
    CAPTURE(name);
    RunOutcome out = run_kernel(c.req);
    CHECK(out.result.errors.empty());
  }
}

TEST_CASE("the new detectors name what they found: both threads of a race, both arrays") {
  auto run = [](const char* name) {
    CorpusCase c = load(fs::path(GPULAB_SOURCE_DIR) / "tests/check" / name);
    return run_kernel(c.req).result.errors;
  };
  auto errs = run("race_global_counter.cu");
  REQUIRE_FALSE(errs.empty());
  CHECK(errs[0].message.find("global-memory") != std::string::npos);
  CHECK(errs[0].message.find("line 7") != std::string::npos);   // the other access's line
  CHECK(errs[0].message.find("block") != std::string::npos);
  errs = run("race_warp_sync_reduce.cu");
  REQUIRE_FALSE(errs.empty());
  CHECK(errs[0].message.find("__syncwarp()") != std::string::npos);
  errs = run("oob_shared_next_array.cu");
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].message.find("'a'") != std::string::npos);
  CHECK(errs[0].message.find("'b'") != std::string::npos);
}

TEST_CASE("a runaway kernel ends: step budget, wall-clock limit, cancel; --threads is clamped") {
  CorpusCase c = load(fs::path(GPULAB_SOURCE_DIR) / "tests/check/hang_spin.cu");
  c.req.options.max_steps = 0;  // not the file's budget: the limits below must stop it
  SUBCASE("a thread's LaunchLimitScope budget applies to launches deep inside other code") {
    LaunchLimits limits;
    limits.max_steps = 50'000;
    LaunchLimitScope scope(limits);
    RunOutcome out = run_kernel(c.req);
    REQUIRE(out.result.errors.size() == 1);
    CHECK(out.result.errors[0].kind == "hang");
    CHECK(out.result.errors[0].line == 6);
  }
  SUBCASE("the wall-clock limit reports a hang at the loop") {
    c.req.options.time_limit_s = 0.5;
    c.req.options.max_steps = ~uint64_t(0);
    auto t0 = std::chrono::steady_clock::now();
    RunOutcome out = run_kernel(c.req);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(s < 10);
    REQUIRE(out.result.errors.size() == 1);
    CHECK(out.result.errors[0].kind == "hang");
    CHECK(out.result.errors[0].line == 6);
    CHECK(out.result.errors[0].message.find("time limit") != std::string::npos);
  }
  SUBCASE("cancel stops the launch without a report, and the result is not ok") {
    std::atomic<bool> cancel{false};
    c.req.options.cancel = &cancel;
    c.req.options.max_steps = ~uint64_t(0);
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      cancel = true;
    });
    RunOutcome out = run_kernel(c.req);
    stopper.join();
    CHECK(out.result.cancelled);
    CHECK_FALSE(out.result.ok);
    CHECK(out.result.errors.empty());
  }
  SUBCASE("--threads 40000 runs (clamped to the cores) instead of terminating") {
    CorpusCase ok = load(fs::path(GPULAB_SOURCE_DIR) / "tests/check/ok_global_neighbour.cu");
    ok.req.options.threads = 40000;
    RunOutcome out = run_kernel(ok.req);
    CHECK(out.result.ok);
  }
}
