// lab/lesson/check.h: the self-check behind `gpulab check`.
//
// An exercise passes when (1) it compiles, (2) on every size in its manifest
// (some deliberately not multiples of the tile) the simulator runs it with
// the kernel checks on and finds no fault, (3) every output element matches a
// float64 CPU reference within the tolerance for its precision (outputs are
// poisoned first, so an element no thread writes is caught, and NaN never
// passes), and (4) at the manifest's metric size it meets each efficiency
// criterion, measured by the simulator. A failure says which step failed,
// by how much, and on which source line.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lab/lesson/manifest.h"
#include "lab/sim/device.h"

namespace lab::lesson {

struct CheckOptions {
  bool solution = false;       // check the reference solution instead of the student's file
  std::string source;          // if set: check this file instead (tests submit other kernels)
  const sim::GpuModel* gpu = &sim::default_gpu();  // resolved by the caller (CLI --gpu)
  uint64_t seed = 20240611;    // inputs are random but reproducible
  unsigned threads = 0;        // simulator worker threads; 0 = all cores
  bool kernel_checks = true;   // races, uninitialised reads, barrier divergence (sim::SimOptions::check)
  // Run only the blocks the cycle model times (sim::TimingOptions::sample_only):
  // for measurements at sizes that fill the GPU; outputs and counters then
  // cover those blocks only.
  bool sample_only = false;
  uint32_t max_blocks_per_sm = 0;  // > 0: cap resident blocks per SM (sim::TimingOptions)
  // The sampled slice's work budget and least SMs (sim::TimingOptions
  // timed_warp_insts, min_slice_sms); 0 and 1: `gpulab sim`'s.
  double timed_warp_insts = 0;
  uint32_t min_slice_sms = 1;
  // The cycle model times the launch. Off for the sizes a check only
  // compares with the reference: nothing reads their predicted time.
  bool predict = true;
  // The run's inputs and outputs are kept as doubles for compare(). Off for
  // the runs only measured (baselines, before/after, the time size).
  bool keep_values = true;
  // A compare step also times each launch on this machine's GPU (CUDA
  // events, the launch as the model runs it): `gpulab lesson --backend cuda`.
  bool measure_on_gpu = false;
  // Which of the exercise's judge_sizes to judge at: -1 draws one (the
  // check's verdict must not depend on it); tests pick each in turn.
  int judge_size = -1;
  // Set: the check's runs stop early (a run started ahead that the check no
  // longer needs). sim::SimOptions::cancel.
  const std::atomic<bool>* cancel = nullptr;
};

// One size's correctness run.
struct SizeResult {
  SizeVars sizes;
  bool ok = false;
  std::string message;         // empty when ok; otherwise what went wrong, with file:line
  double max_error = 0;        // largest |got - ref| / max(1, |ref|)
  double sim_seconds = 0;
  bool drawn = false;          // the size drawn from judge_sizes for this check
};

// One efficiency criterion.
struct CriterionResult {
  std::string name;            // e.g. "max_sectors_per_global_load" (manifest.h lists them)
  bool ok = false;
  bool evaluated = false;      // false: not measured (an earlier step failed)
  double measured = 0, limit = 0;
  std::string file;            // worst source line, when the metric is per line
  uint32_t line = 0;
  std::string source_line;     // that line's text
  std::string message;         // one or two sentences for the student
};

struct CheckReport {
  std::string lesson_id, exercise_id, file;  // file: the source that was checked
  bool passed = false;
  std::string stage;           // where it stopped: "file", "compile", "launch", "correctness", "criteria", "passed"
  std::string message;         // the headline
  std::vector<SizeResult> sizes;
  std::vector<CriterionResult> criteria;
  int registers = 0;           // per thread, from ptxas, when known
  int shared_bytes = 0;        // per block (static + dynamic), when known
  double occupancy = -1;       // theoretical, when known
  double predicted_seconds = -1;  // the machine model's time at the metric size, when known
  // The checked file is the reference solution's code (the same text, blank
  // space aside): a pass is then recorded as the reference's, not the student's.
  bool reference_copy = false;
  // Set when the lessons folder's lesson.toml defines this exercise
  // differently from the lab's own copy, which was used (shipped.h).
  std::string manifest_note;
};

// Runs the whole check. Never throws for the student's mistakes (they become
// the report); throws ManifestError for a lesson file that cannot be used.
CheckReport check_exercise(const Lesson& lesson, const Exercise& ex, const CheckOptions& opts = {});

// Runs `source` (a file relative to the lesson folder) as exercise `ex` at
// its metric size and returns a table of what the simulator counted, per
// source line and in total: what `gpulab lesson` shows for a `measure` step.
// `kernel` overrides the exercise's kernel name (same parameters).
std::string measure_table(const Lesson& lesson, const Exercise& ex, const std::string& source,
                          const std::string& kernel = "", const CheckOptions& opts = {});

// A program exercise (manifest.h: Exercise::program) is checked by running
// the lesson's program with the student's file on simulated GPUs
// (check_program.cpp). The runs go through `gpulab run --json`, which the
// lesson layer does not link: the CLI installs the runner at start-up. It
// returns what `gpulab run --json` printed.
using ProgramRunner = std::function<std::string(const std::vector<std::string>& sources,
                                                const std::vector<std::string>& defines, const ProgramRun& run,
                                                const sim::GpuModel& gpu)>;
bool set_program_runner(ProgramRunner runner);
// Called by check_exercise for a program exercise, with the report it has
// started (ids, file, the file found): one place for that start.
CheckReport check_program_exercise(const Lesson& lesson, const Exercise& ex, const CheckOptions& opts,
                                   CheckReport rep);

// Human-readable report (what `gpulab check` prints) and JSON.
std::string format_report(const CheckReport& r);
std::string report_json(const CheckReport& r);  // one JSON object

}  // namespace lab::lesson
