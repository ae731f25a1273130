// lab/cpu/timer.h: how the lab times CPU code: warm-up runs (caches, page
// faults, thread start-up), then repeats, reporting the median so one
// descheduling on a shared machine does not move the figure.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace lab::cpu {

struct TimingOptions {
  int warmup = 1;
  int min_repeats = 3;
  int max_repeats = 50;
  double min_total_seconds = 0.3;  // keep repeating (up to max_repeats) until this much was timed
  // Then go on while the repeats disagree by more than this (relative_spread),
  // up to 4 x min_total_seconds: a busy machine gets more repeats, not a
  // figure from two of them.
  double steady_spread = 0.10;
};

// How far repeats disagree: the middle half's width over the median,
// (q3 - q1) / median. 0 for fewer than 2 samples.
double relative_spread(std::vector<double> samples);
// Above this spread a timing is shown with a warning that the machine was busy.
constexpr double kUnsteadySpread = 0.25;
// "" or a sentence for the reader: "(timings spread 40% between repeats: ...)".
std::string spread_warning(double spread);

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double spread = 0;  // relative_spread of the samples
  int repeats = 0;
  std::vector<double> samples_ms;
};

// `before_each` runs untimed before every call (e.g. restore C so that
// beta * C does not grow across repeats); may be empty.
Timing time_median(const std::function<void()>& fn, const TimingOptions& options = {},
                   const std::function<void()>& before_each = {});

}  // namespace lab::cpu
