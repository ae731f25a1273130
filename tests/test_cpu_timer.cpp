// tests/test_cpu_timer.cpp: how far CPU repeats disagree, and the warning a
// busy machine's figure carries (lab/cpu/timer.h).
#include <doctest/doctest.h>

#include "lab/cpu/timer.h"

using namespace lab::cpu;

TEST_CASE("relative spread is the middle half's width over the median") {
  CHECK(relative_spread({}) == 0);
  CHECK(relative_spread({5}) == 0);
  CHECK(relative_spread({2, 2, 2, 2}) == 0);
  // q1 = 2, median 3, q3 = 4 (linear interpolation): (4 - 2) / 3.
  CHECK(relative_spread({5, 1, 4, 2, 3}) == doctest::Approx(2.0 / 3.0));
  // One wild repeat among steady ones barely moves it; the median ignores it.
  CHECK(relative_spread({10, 10, 10, 10, 10, 10, 10, 500}) < 0.01);
}

TEST_CASE("a busy machine's timing carries a warning, a steady one none") {
  CHECK(spread_warning(0.05).empty());
  CHECK(spread_warning(kUnsteadySpread).empty());
  const std::string w = spread_warning(0.8);
  CHECK(w.find("80%") != std::string::npos);
  CHECK(w.find("busy") != std::string::npos);
}

TEST_CASE("time_median keeps repeating while the repeats disagree, within its budget") {
  // Alternating 0 and ~2 ms calls disagree by far more than 10%: more repeats
  // than the minimum, and no more than 4 x min_total_seconds of timing.
  TimingOptions o;
  o.warmup = 0;
  o.min_repeats = 3;
  o.max_repeats = 1000;
  o.min_total_seconds = 0.01;
  int calls = 0;
  Timing t = time_median([&] {
    if (calls++ % 2) {
      volatile double x = 0;
      for (int i = 0; i < 2'000'000; ++i) x = x + 1;
    }
  }, o);
  CHECK(t.spread > o.steady_spread);
  double total = 0;
  for (double s : t.samples_ms) total += s;
  CHECK(total < 1e3 * (4 * o.min_total_seconds) + 50);  // the last repeat may overrun the budget
  CHECK(t.repeats > 3);
}
