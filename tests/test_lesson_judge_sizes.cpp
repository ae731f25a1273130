// tests/test_lesson_judge_sizes.cpp: every kernel exercise is judged at two
// sizes, its metric size and one drawn from its judge_sizes at check time
// (check.cpp). The draw must never decide an honest kernel's verdict: the
// reference solution passes at every size the manifest lists.
#include <doctest/doctest.h>

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
