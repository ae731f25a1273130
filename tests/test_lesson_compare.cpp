// tests/test_lesson_compare.cpp: every lesson's measured before/after holds.
//
// A lesson's `compare` step states the speed-up its claim predicts (manifest.h:
// Compare). Here each one is run as `gpulab lesson` runs it, and the test fails
// when the lab's ratio leaves the stated range (a model change that erases a
// lesson's effect, or a text that overstates it) or when the step's text does
// not cite the ratio the lab measures.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "lab/lesson/compare.h"
#include "lab/lesson/check.h"
#include "lab/lesson/manifest.h"

using namespace lab::lesson;

TEST_CASE("every lesson's before/after is within the range its text states, and the text cites it") {
  int compares = 0;
  for (const Lesson& L : load_lessons("lessons")) {
    for (size_t i = 0; i < L.steps.size(); ++i) {
      const Step& s = L.steps[i];
      if (!s.compare) continue;
      ++compares;
      CAPTURE(L.id);
      CAPTURE(i + 1);
      CompareResult r = run_compare(L, *s.compare);
      INFO(format_compare(r));
      CHECK(r.within());
      const std::string cited = fmt::format("{:.2f}x", r.speedup);
      INFO("the step's text should cite " << cited);
      CHECK(s.text.find(cited) != std::string::npos);
    }
  }
  // Lessons 2-10 prove their claims this way (13 before/afters).
  CHECK(compares >= 13);
}

TEST_CASE("a compare step's range is enforced: the same kernels with an impossible range disagree") {
  for (const Lesson& L : load_lessons("lessons")) {
    for (const Step& s : L.steps) {
      if (!s.compare || L.id != "02-simt") continue;
      Compare c = *s.compare;
      c.expect_min = 10, c.expect_max = 20;
      CompareResult r = run_compare(L, c);
      CHECK_FALSE(r.within());
      CHECK(format_compare(r).find("DISAGREES") != std::string::npos);
      return;
    }
  }
  FAIL("lesson 02 has no compare step");
}

TEST_CASE("every shipped exercise that is correct as shipped is at least 1.5x slower than its reference, in time") {
  // The shipped file is the lesson's "before": where it already computes the
  // right answer, the reference must beat it by the margin a lesson can show
  // (predicted, where the check judges time). Unfinished templates are
  // compared through the lessons' before/after steps instead.
  int judged = 0;
  for (const Lesson& L : load_lessons("lessons")) {
    for (const Exercise& ex : L.exercises) {
      if (!ex.program.empty()) continue;  // program exercises have no kernel to time
      bool timed = false;
      for (const auto& c : ex.criteria) timed = timed || c.metric == Metric::MaxPredictedTimeRatio;
      if (!timed) continue;
      CheckOptions o;
      o.source = L.path(ex.template_file);
      CheckReport r = check_exercise(L, ex, o);
      if (r.stage != "criteria" && r.stage != "passed") continue;  // unfinished as shipped
      CAPTURE(L.id);
      CAPTURE(ex.id);
      ++judged;
      for (const auto& c : r.criteria)
        if (c.name == "max_predicted_time_ratio") {
          INFO(c.message);
          CHECK(c.measured >= 1.5);
        }
    }
  }
  CHECK(judged >= 6);
}
