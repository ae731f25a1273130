// lab/cpu/timer.h: how the lab times CPU code: warm-up runs (caches, page
// faults, thread start-up), then repeats, reporting the median so one
// descheduling on a shared machine does not move the figure.
#pragma once

#include <functional>
#include <vector>

namespace lab::cpu {

struct TimingOptions {
  int warmup = 1;
  int min_repeats = 3;
  int max_repeats = 50;
  double min_total_seconds = 0.3;  // keep repeating (up to max_repeats) until this much was timed
};

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int repeats = 0;
  std::vector<double> samples_ms;
};

// `before_each` runs untimed before every call (e.g. restore C so that
// beta * C does not grow across repeats); may be empty.
Timing time_median(const std::function<void()>& fn, const TimingOptions& options = {},
                   const std::function<void()>& before_each = {});

}  // namespace lab::cpu
