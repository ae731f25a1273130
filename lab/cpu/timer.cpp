#include "lab/cpu/timer.h"

#include <algorithm>
#include <cassert>
#include <chrono>

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
  while (t.repeats < options.max_repeats &&
         (t.repeats < options.min_repeats || total < options.min_total_seconds)) {
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
  return t;
}

}  // namespace lab::cpu
