// lab/lesson/compare.h: a lesson's before/after, measured.
//
// A `compare` step (manifest.h: Compare) runs two kernels (or chains of
// launches) on one problem at a size that fills the GPU and shows their
// predicted times beside the counters that explain the difference, with the
// speed-up the lesson states. Only the blocks the cycle model times are run
// (sampled), so a size of thousands of blocks answers in seconds; counts
// are scaled from those blocks to the grid.
#pragma once

#include <string>
#include <vector>

#include "lab/lesson/check.h"
#include "lab/lesson/criteria.h"
#include "lab/lesson/manifest.h"

namespace lab::lesson {

// One side's figures: its launches' predicted times and whole-grid counts
// added up (registers and occupancy: the worst launch's).
struct CompareFigures {
  std::string label;
  double seconds = 0;
  std::vector<MeasuredKernel> launches;
  // Whole-grid counts (scaled when sampled), by the row names format_compare prints.
  double warp_insts = 0, active_lanes = 0, fma_warp_insts = 0, tensor_macs = 0;
  double global_load_requests = 0, global_load_sectors = 0, global_store_sectors = 0, local_sectors = 0;
  double shared_requests = 0, shared_wavefronts = 0, bank_conflicts = 0, dram_bytes = 0;
  int registers = 0;
  double occupancy = -1;
  bool sampled = false;  // some launch ran only the blocks the cycle model timed
  // CheckOptions::measure_on_gpu: the launches' times on the GPU, summed; 0
  // when not measured, with the reason in measured_note.
  double measured_seconds = 0;
  std::string measured_note;
};

struct CompareResult {
  std::string sizes_text, gpu;
  CompareFigures before, after;
  double speedup = 0;       // before's predicted time / after's
  std::string measured_on;  // the GPU's name when both sides were measured
  double measured_speedup = 0;  // before's measured time / after's
  double expect_min = 0, expect_max = 0;
  bool within() const { return speedup >= expect_min && speedup <= expect_max; }
};

// Throws ManifestError for a step that cannot be run as written, and
// std::runtime_error when a kernel cannot be launched or timed.
CompareResult run_compare(const Lesson& lesson, const Compare& c, const CheckOptions& opts = {});

// The counters of a before/after, in the table's order: the figure's name,
// both sides, and whether it is a whole-grid count (else a per-kernel figure).
struct CompareRow {
  std::string name;
  double before = 0, after = 0;
  bool count = true;
};
std::vector<CompareRow> compare_rows(const CompareResult& r);

// The table `gpulab lesson` prints: one row per counter either side has,
// both values, their ratio, then the verdict against the lesson's range.
std::string format_compare(const CompareResult& r);

// The ratio as a step's text must cite it ("1.49x"): a lesson's figures are
// the lab's own, so a text that does not cite what the lab measures is out
// of date (`gpulab lesson` counts the step as failed).
std::string cited_ratio(const CompareResult& r);
bool text_cites(const std::string& step_text, const CompareResult& r);

// "a.cu vs b.cu" (chains joined with " + "), for the step's header line.
std::string compare_files(const Lesson& lesson, const Compare& c);

}  // namespace lab::lesson
