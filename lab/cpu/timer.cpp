#include "lab/cpu/timer.h"

#include <algorithm>
#include <cassert>
#include <chrono>

#include <fmt/format.h>

namespace lab::cpu {

Timing time_median(const std::function<void()>& fn, const TimingOptions& options,
                   const std::function<void()>& before_each) {
  assert(options.min_repeats >= 1 && options.max_repeats >= options.min_repeats);
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < options.warmup; ++i) {
    if (before_each) before_each();
    fn();
  }
  Timing t;
  double total = 0;
  auto unsteady = [&] {
    return total < 4 * options.min_total_seconds && relative_spread(t.samples_ms) > options.steady_spread;
  };
  while (t.repeats < options.max_repeats &&
         (t.repeats < options.min_repeats || total < options.min_total_seconds || unsteady())) {
    if (before_each) before_each();
    auto start = clock::now();
    fn();
    double s = std::chrono::duration<double>(clock::now() - start).count();
    total += s;
    t.samples_ms.push_back(s * 1e3);
    ++t.repeats;
  }
  std::vector<double> sorted = t.samples_ms;
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  t.median_ms = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  t.min_ms = sorted.front();
  t.max_ms = sorted.back();
  t.spread = relative_spread(t.samples_ms);
  return t;
}

double relative_spread(std::vector<double> s) {
  if (s.size() < 2) return 0;
  std::sort(s.begin(), s.end());
  auto at = [&](double q) {  // linear interpolation between order statistics
    double pos = q * double(s.size() - 1);
    size_t i = size_t(pos);
    double f = pos - double(i);
    return i + 1 < s.size() ? s[i] * (1 - f) + s[i + 1] * f : s[i];
  };
  double median = at(0.5);
  return median > 0 ? (at(0.75) - at(0.25)) / median : 0;
}

std::string spread_warning(double spread) {
  if (spread <= kUnsteadySpread) return "";
  return fmt::format("(timings spread {:.0f}% between repeats: the machine was busy, so this figure may be off; "
                     "run again on a quiet machine)",
                     100 * spread);
}

}  // namespace lab::cpu
