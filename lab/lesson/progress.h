// lab/lesson/progress.h: the student's progress, kept inside the lessons
// folder it belongs to (LESSONS/.gpulab/progress.json), so two copies of the
// lessons never share one record.
//
// Nothing is ever lost to a concurrent command: every change is a
// read-merge-write of one exercise's entry under an exclusive flock() on
// LESSONS/.gpulab/progress.lock. The change is applied to the entry as it is
// on disk at that moment (a `check` that started before a `watch` recorded a
// pass cannot erase it; two checks of one exercise both count), the new
// state goes to a temporary file that is fsync'd and renamed over the old
// one, and the folder is fsync'd, so a crash leaves the old or the new file,
// never a torn one.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lab/lesson/manifest.h"

namespace lab::lesson {

struct ExerciseProgress {
  bool done = false;
  int hints_shown = 0;       // hints revealed so far (clamp to the lesson's count at use: lessons change)
  int checks = 0;            // how many times it was checked
  std::string passed_at;     // ISO time of the first pass
  bool solution_seen = false;  // `gpulab solution ID --reveal` before a pass
  bool reference_copy = false;  // the last pass was of the reference solution's own code (check.h: CheckReport)
};

class Progress {
 public:
  // Reads `path` if it exists; a missing file is an empty state. A corrupt
  // file throws std::runtime_error naming it (the student can delete it).
  explicit Progress(std::string path);
  const std::string& path() const { return path_; }
  // A copy (commands like `watch` record from a worker thread while the UI reads).
  std::optional<ExerciseProgress> find(const std::string& lesson_id, const std::string& exercise_id) const;
  bool done(const std::string& lesson_id, const std::string& exercise_id) const;
  // Re-reads the file under the lock, applies `change` to the exercise's
  // entry as it is on disk, writes the result durably and returns the new
  // entry. Throws std::runtime_error naming the file when it cannot be written
  // (a read-only folder); the in-memory state is updated either way.
  ExerciseProgress update(const std::string& lesson_id, const std::string& exercise_id,
                          const std::function<void(ExerciseProgress&)>& change);
  // Removes every record (`gpulab reset --progress`), under the lock.
  void clear();
  // Reads the file again (other commands may have written it).
  void reload();

 private:
  std::string path_;
  mutable std::mutex mutex_;                         // guards entries_ (threads of one command)
  std::map<std::string, ExerciseProgress> entries_;  // key "lesson/exercise"
};

// Where lessons live: --lessons DIR if given, else ./lessons, else beside the
// installed binary (../share/gpulab/lessons, then lessons/ next to it).
// Throws std::runtime_error listing where it looked.
// `*found_above` (when given) is set when the folder was found by walking up
// from the current folder (a copy of the lessons the command runs inside).
std::string find_lessons_root(const std::string& override_dir, const std::string& argv0, bool* found_above = nullptr);

// The state folder of a lessons root: <root>/.gpulab when the root is
// writable; else a per-root folder under $XDG_STATE_HOME (or
// ~/.local/state)/gpulab/, named after the root's absolute path.
std::string state_dir_for(const std::string& lessons_root);
std::string progress_path_for(const std::string& lessons_root);  // state_dir_for(root)/progress.json

// Progress kept by older versions beside the lessons folder's parent
// (<root>/../.gpulab/progress.json) is folded into the new file once and the
// old file renamed to progress.json.migrated. Returns a note for the student
// ("" when there was nothing to move).
std::string migrate_old_progress(const std::string& lessons_root, Progress& into);

// A lesson or exercise named on the command line: "03-coalescing",
// "03", "3", "coalescing", with "/exercise-id" to pick one exercise.
struct Selection {
  const Lesson* lesson = nullptr;
  std::vector<const Exercise*> exercises;
};
// Throws std::invalid_argument listing the lesson ids when nothing matches
// (also for numbers too large to be a lesson number).
Selection select(const std::vector<Lesson>& lessons, const std::string& id);
// The first exercise not yet done, in lesson order (nullptr when all are done).
Selection next_unfinished(const std::vector<Lesson>& lessons, const Progress& p);
// The exercise after `ex` in lesson order that is not done (nullptr: none).
Selection next_after(const std::vector<Lesson>& lessons, const Progress& p, const Lesson& l, const Exercise& ex);

// `gpulab reset`: copies the student's file to a timestamped backup
// (backup_root/<lesson>/exercise.cu.<YYYYmmdd-HHMMSS>) and restores the
// template. Returns the backup path ("" when there was no file).
std::string reset_exercise(const Lesson& lesson, const Exercise& ex, const std::string& backup_root);

std::string now_iso();

}  // namespace lab::lesson
