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
  // Lessons 2-9 each prove at least one claim this way.
  CHECK(compares >= 2);
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
