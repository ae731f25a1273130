// tests/test_lesson_attempts.cpp: the wrong-reason corpus (tests/lesson_attempts/).
//
// Each attempt is a kernel that computes the right answer for the wrong
// reason (one warp does everything, lanes serialised to flatter a per-request
// average, a token tensor-core call, ...). `gpulab check` must find it correct
// on every size and then reject it on the criterion named in its header: the
// criterion that measures the idea it dodges. Every reference solution passes
// (test_lesson.cpp), so the criteria separate the two for the right reason.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <fstream>
#include <set>
#include <sstream>

#include "lab/lesson/check.h"
#include "lab/lesson/manifest.h"

namespace fs = std::filesystem;
using namespace lab::lesson;

namespace {

std::string header_field(const fs::path& p, const std::string& key) {
  std::ifstream f(p);
  const std::string tag = "// " + key + ":";
  for (std::string l; std::getline(f, l);)
    if (l.rfind(tag, 0) == 0) return l.substr(tag.size());
  return "";
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

TEST_CASE("every wrong-reason attempt is correct and rejected by the criterion it dodges; better methods pass") {
  int attempts = 0;
  std::map<std::string, int> per_exercise;
  for (const auto& dir : fs::directory_iterator("tests/lesson_attempts")) {
    if (!dir.is_directory()) continue;
    Lesson L = load_lesson(("lessons/" + dir.path().filename().string()));
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(dir.path()))
      if (f.path().extension() == ".cu") files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      CAPTURE(file.string());
      auto ex_id = words(header_field(file, "exercise"));
      auto expect = words(header_field(file, "expect"));
      REQUIRE(ex_id.size() == 1);
      REQUIRE(!expect.empty());
      const bool better = expect[0] == "pass";
      REQUIRE(!header_field(file, better ? "better" : "dodge").empty());
      const Exercise* e = L.find_exercise(ex_id[0]);
      REQUIRE(e);
      CheckOptions o;
      o.source = file.string();
      if (better) {
        // A genuinely better method than the reference (fewer bytes, a different tiling) passes,
        // at every size a check may draw: the criteria judge the lesson's idea, not the reference's code.
        for (size_t j = 0; j < std::max<size_t>(1, e->judge_sizes.size()); ++j) {
          o.judge_size = int(j);
          CheckReport r = check_exercise(L, *e, o);
          CAPTURE(format_report(r));
          CHECK(r.passed);
        }
        continue;
      }
      // A wrong-reason attempt is rejected whichever size is drawn: the
      // attempts take the judge sizes in turn.
      o.judge_size = int(attempts % 3);
      CheckReport r = check_exercise(L, *e, o);
      CAPTURE(format_report(r));
      CHECK_FALSE(r.passed);
      if (expect[0] == "stage:launch") {
        // A block the GPU would refuse: refused before any size runs, naming the limit.
        CHECK(r.stage == "launch");
        CHECK(r.message.find("cudaErrorLaunchOutOfResources") != std::string::npos);
        CHECK(r.message.find("registers") != std::string::npos);
        CHECK(r.registers > 64);
        ++attempts;
        continue;
      }
      CHECK(r.stage == "criteria");  // correct on every size: rejected for its reason, not its answer
      for (const auto& want : expect) {
        CAPTURE(want);
        REQUIRE(metric_from_name(want));
        const CriterionResult* c = nullptr;
        for (const auto& cr : r.criteria)
          if (cr.name == want) c = &cr;
        REQUIRE(c);
        CHECK_FALSE(c->ok);
        CHECK(c->evaluated);
        // The rejection says what was measured against what was allowed ...
        CHECK((c->message.find("limit") != std::string::npos || c->message.find("at least") != std::string::npos));
        // ... and where, for criteria measured on instructions.
        Metric m = *metric_from_name(want);
        if (m == Metric::MaxSectorsPerGlobalLoad || m == Metric::MaxSectorsPerGlobalStore || is_total_metric(m))
          CHECK(c->line > 0);
      }
      ++attempts;
      ++per_exercise[L.id + "/" + e->id];
    }
  }
  // At least two attempts for every exercise of every lesson. A program
  // exercise (lessons 10 and 11) runs through `gpulab run`, which this test does not
  // link: their attempts are checked by tests/cli/many_gpus.sh (lesson 11) and
  // tests/cli/train.sh (lesson 10).
  for (const auto& L : load_lessons("lessons"))
    for (const auto& e : L.exercises) {
      if (!e.program.empty()) continue;
      CAPTURE(L.id + "/" + e.id);
      CHECK(per_exercise[L.id + "/" + e.id] >= 2);
    }
  CHECK(attempts >= 20);
}
