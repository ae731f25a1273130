// lab/lesson/compare.h: a lesson's before/after, measured.
//
// A `compare` step (manifest.h: Compare) runs two kernels on one problem at a
// size that fills the GPU and shows their predicted times beside the counters
// that explain the difference, with the speed-up the lesson states. Only the
// blocks the cycle model times are run (sampled), so a size of thousands of
// blocks answers in seconds; counters are scaled from those blocks to the grid.
#pragma once

#include <string>

#include "lab/lesson/check.h"
#include "lab/lesson/criteria.h"
#include "lab/lesson/manifest.h"

namespace lab::lesson {

struct CompareResult {
  std::string before_label, after_label, sizes_text, gpu;
  MeasuredKernel before, after;
  double speedup = 0;       // before's predicted time / after's
  double expect_min = 0, expect_max = 0;
  bool within() const { return speedup >= expect_min && speedup <= expect_max; }
};

// Throws ManifestError for a step that cannot be run as written, and
// std::runtime_error when a kernel cannot be launched or timed.
CompareResult run_compare(const Lesson& lesson, const Compare& c, const CheckOptions& opts = {});

// The table `gpulab lesson` prints: one row per counter either kernel has,
// both values, their ratio, then the verdict against the lesson's range.
std::string format_compare(const CompareResult& r);

}  // namespace lab::lesson
