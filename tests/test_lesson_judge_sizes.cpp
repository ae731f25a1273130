// tests/test_lesson_judge_sizes.cpp: every kernel exercise is judged at two
// sizes, its metric size and one drawn from its judge_sizes at check time
// (check.cpp). The draw must never decide an honest kernel's verdict: the
// reference solution passes at every size the manifest lists.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/lesson/check.h"
#include "lab/lesson/manifest.h"

using namespace lab::lesson;

TEST_CASE("every kernel exercise lists sizes to draw from, and its reference passes at each") {
  int judged = 0;
  for (const Lesson& L : load_lessons("lessons"))
    for (const Exercise& e : L.exercises) {
      if (!e.program.empty()) continue;  // program exercises run several argument sets instead
      CAPTURE(L.id + "/" + e.id);
      REQUIRE(e.judge_sizes.size() >= 3);
      for (size_t i = 0; i < e.judge_sizes.size(); ++i) {
        CAPTURE(i);
        CHECK(e.judge_sizes[i] != e.sizes[e.metric_size]);  // a second size, not the metric size again
        CheckOptions o;
        o.solution = true;
        o.judge_size = int(i);
        CheckReport r = check_exercise(L, e, o);
        CAPTURE(format_report(r));
        CHECK(r.passed);
        REQUIRE(!r.sizes.empty());
        CHECK(r.sizes.back().drawn);
        CHECK(r.sizes.back().sizes == e.judge_sizes[i]);
        ++judged;
      }
    }
  CHECK(judged >= 45);
}

TEST_CASE("a check without a chosen size draws one of the listed sizes and says which") {
  Lesson L = load_lesson("lessons/01-latency-vs-throughput");
  const Exercise* e = L.find_exercise("vector-add");
  REQUIRE(e);
  CheckOptions o;
  o.solution = true;
  CheckReport r = check_exercise(L, *e, o);
  REQUIRE(r.passed);
  const SizeVars& drawn = r.sizes.back().sizes;
  CHECK(r.sizes.back().drawn);
  CHECK(std::find(e->judge_sizes.begin(), e->judge_sizes.end(), drawn) != e->judge_sizes.end());
  CHECK(format_report(r).find("drawn for this check") != std::string::npos);
  CHECK(r.message.find("met at sizes") != std::string::npos);
}

// The drawn size runs while the time-size prediction is still going
// (check.cpp); its verdict is still read after the criteria, so a kernel
// wrong only there fails on correctness with every criterion judged.
TEST_CASE("a kernel wrong only at a drawn size fails there, its criteria judged at the metric size") {
  Lesson L = load_lesson("lessons/04-shared-memory-tiling");
  const Exercise* e = L.find_exercise("transpose");
  REQUIRE(e);
  REQUIRE(e->judge_sizes.size() >= 2);
  REQUIRE(e->judge_sizes[1].at("M") == 128);  // wrong from M = 128 on, which no checked size has
  std::ifstream in("lessons/.solutions/04-shared-memory-tiling/solution_transpose.cu");
  std::stringstream src;
  src << in.rdbuf();
  std::string broken = src.str();
  const std::string store = "out[y * M + x] = tile[threadIdx.x][threadIdx.y];";
  REQUIRE(broken.find(store) != std::string::npos);
  broken.replace(broken.find(store), store.size(),
                 "out[y * M + x] = M >= 128 ? 0.0f : tile[threadIdx.x][threadIdx.y];");
  const std::filesystem::path f =
      std::filesystem::temp_directory_path() / ("gpulab_judge_" + std::to_string(::getpid()) + ".cu");
  std::ofstream(f) << broken;
  CheckOptions o;
  o.source = f.string();
  o.judge_size = 0;  // M = 96: right there
  CheckReport right = check_exercise(L, *e, o);
  CAPTURE(format_report(right));
  CHECK(right.passed);
  o.judge_size = 1;  // M = 128
  CheckReport r = check_exercise(L, *e, o);
  std::filesystem::remove(f);
  CAPTURE(format_report(r));
  CHECK_FALSE(r.passed);
  CHECK(r.stage == "correctness");
  CHECK(r.message.find("drawn for this check") != std::string::npos);
  CHECK(r.criteria.size() == e->criteria.size());  // judged at the metric size first, the time size's included
  for (const CriterionResult& c : r.criteria) CHECK(c.ok);
}
