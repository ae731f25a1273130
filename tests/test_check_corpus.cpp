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
  CHECK(clean >= 8);
  CHECK(buggy >= 12);
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
