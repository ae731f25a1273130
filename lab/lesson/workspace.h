// lab/lesson/workspace.h: what every lesson subcommand starts from: the
// lessons root (found or given), the loaded lessons, and the progress state.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lab/lesson/check.h"
#include "lab/lesson/manifest.h"
#include "lab/lesson/progress.h"

namespace lab::lesson {

struct Workspace {
  std::string root;                   // the lessons folder
  std::vector<Lesson> lessons;
  std::unique_ptr<Progress> progress;
  std::string backup_root;            // .gpulab/backups beside the progress file

  // Throws ManifestError for a bad lesson file and std::runtime_error when no
  // lessons folder is found.
  static Workspace open(const std::string& lessons_override);

  // "gpulab hint 03-coalescing/coalesced-gemm" style id of an exercise.
  static std::string exercise_key(const Lesson& l, const Exercise& e) { return l.id + "/" + e.id; }

  // Checks one exercise and, for the student's own file, records the outcome
  // in the progress state (checks count, done on the first pass).
  CheckReport check_and_record(const Lesson& l, const Exercise& e, const CheckOptions& o);

  // What to print after a report: on a pass, the reference solution to
  // compare with; on a failure, how to get the next hint.
  std::string followup(const Lesson& l, const Exercise& e, const CheckReport& r) const;

  // Reveals the next hint (remembered in the state); returns the text to print.
  std::string next_hint(const Lesson& l, const Exercise& e);
};

}  // namespace lab::lesson
