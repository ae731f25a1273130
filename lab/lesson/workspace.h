// lab/lesson/workspace.h: what every lesson subcommand starts from: the
// lessons root (found or given), the loaded lessons, and the progress state
// kept inside that root.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "lab/lesson/check.h"
#include "lab/lesson/manifest.h"
#include "lab/lesson/progress.h"

namespace lab::lesson {

struct Workspace {
  std::string root;                   // the lessons folder
  std::string lessons_arg;            // --lessons as given (absolute), carried into printed commands; "" if not given
  std::vector<Lesson> lessons;
  std::unique_ptr<Progress> progress;
  std::string backup_root;            // <state>/backups
  std::string note;                   // said once after the command's output (a migration, an unsaved record)

  // Throws ManifestError for a bad lesson file and std::runtime_error when no
  // lessons folder is found.
  static Workspace open(const std::string& lessons_override);

  // "gpulab hint 03-coalescing/coalesced-gemm" style id of an exercise.
  static std::string exercise_key(const Lesson& l, const Exercise& e) { return l.id + "/" + e.id; }

  // A gpulab command line for the student to type: "gpulab ARGS", with
  // `--lessons DIR` when this workspace was opened with one.
  std::string command(const std::string& args) const;

  // Checks one exercise under a step budget scaled from the exercise's work
  // and a wall-clock limit (a runaway kernel becomes a `hang` report), and,
  // for the student's own file, records the outcome: checks count, done on a
  // pass, done cleared on a failure. `cancel` (watch) stops it early; a
  // cancelled check records nothing. A progress file that cannot be written
  // leaves the verdict intact and says why in `note`.
  CheckReport check_and_record(const Lesson& l, const Exercise& e, const CheckOptions& o,
                               const std::atomic<bool>* cancel = nullptr, bool* cancelled = nullptr);

  // What to print after a report: on a pass, the solution to compare with and
  // the next exercise with its command; on a failure, how to get a hint.
  std::string followup(const Lesson& l, const Exercise& e, const CheckReport& r) const;

  // Reveals the next hint (remembered in the state); returns the text to print.
  std::string next_hint(const Lesson& l, const Exercise& e);

  // The per-warp instruction budget for checking `e`: 8 instructions per
  // element of its arrays at its largest size, at least 2e5 and at most 1e8
  // (the reference solutions' busiest warps issue under 1e5).
  static uint64_t step_budget(const Exercise& e);
};

// Seconds one launch of a check may run before it is reported as a hang.
constexpr double kCheckLaunchSeconds = 30;

}  // namespace lab::lesson
