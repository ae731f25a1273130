// tests/test_lesson_compare.cpp: every lesson's measured before/after holds.
//
// A lesson's `compare` step states the speed-up its claim predicts (manifest.h:
// Compare). `gpulab lesson` fails the step when the lab's ratio leaves the
// stated range (a model change that erases a lesson's effect, or a text that
// overstates it) or when the step's text does not cite the ratio the lab
// measures; tests/cli/lessons_copy.sh runs every step of every lesson.
#include <doctest/doctest.h>

#include <cmath>

#include <fmt/format.h>

#include "lab/lesson/compare.h"
#include "lab/lesson/check.h"
#include "lab/lesson/manifest.h"
#include "lab/lesson/runner.h"

#include <cstdio>
#include <cstdlib>

using namespace lab::lesson;

// Every compare step of every lesson runs in tests/cli/lessons_copy.sh
// (`gpulab lesson NN` from a copy of the lessons), which fails on a ratio
// outside its range or one the step's text does not cite (runner.cpp); here,
// that there are such steps and that the runner's two verdicts can fail.
TEST_CASE("the lessons prove their claims with before/after steps") {
  int compares = 0;
  for (const Lesson& L : load_lessons("lessons"))
    for (const Step& s : L.steps) compares += bool(s.compare);
  // Lessons 2-10, 12 and 13 prove their claims this way.
  CHECK(compares >= 17);
}

TEST_CASE("gpulab lesson fails a before/after whose text does not cite the ratio the lab gives") {
  for (Lesson L : load_lessons("lessons")) {
    if (L.id != "02-simt") continue;
    std::vector<Step> steps;
    for (const Step& s : L.steps)
      if (s.compare) steps.push_back(s);
    REQUIRE(!steps.empty());
    L.steps = {steps[0]};
    char* buf = nullptr;
    size_t len = 0;
    FILE* out = open_memstream(&buf, &len);
    RunnerOptions o;
    o.out = out;
    o.pause = false;
    o.before_after_only = true;
    CHECK(run_lesson(L, o) == 0);  // as shipped: inside its range and cited
    L.steps[0].text = "A text that cites no figure.";
    CHECK(run_lesson(L, o) != 0);
    std::fclose(out);
    const std::string printed(buf, len);
    std::free(buf);
    CHECK(printed.find("the step's text does not cite") != std::string::npos);
    return;
  }
  FAIL("lesson 02 is missing");
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

TEST_CASE("every shipped exercise that is correct as shipped is at least 1.40x slower than its reference, in time") {
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
          // The margin as the lab prints it (two decimals, the figure a
          // lesson's text cites), well clear of the checks' 1.25x limit:
          // lesson 4's transpose sat at 1.4993x since DRAM loads wait longer
          // under load, and at 1.49x since a launch costs the 3.2 us the
          // lab measured on an H100 (both kernels pay it; measured on an
          // H100, the pair is 1.63x); 1.54x since a long launch's middle
          // waves are counted at their steady rate (cycle/sample.h); 1.45x
          // since blocks are placed at the block scheduler's measured rate
          // and a retired block's slot waits its measured turnaround (both
          // kernels slower, 79 -> 85 us and 51 -> 59 us, toward the H100's
          // 141 and 86).
          CHECK(std::round(c.measured * 100) / 100 >= 1.40);
        }
    }
  }
  CHECK(judged >= 6);
}
