// lab/lesson/progress.h: the student's progress, kept in the working copy at
// .gpulab/progress.json (git ignores .gpulab/). Written atomically: the new
// state goes to a temporary file in the same folder which is then renamed
// over the old one, so a crash mid-write never leaves a torn file.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lab/lesson/manifest.h"

namespace lab::lesson {

struct ExerciseProgress {
  bool done = false;
  int hints_shown = 0;       // hints revealed so far
  int checks = 0;            // how many times it was checked
  std::string passed_at;     // ISO time of the first pass
};

class Progress {
 public:
  // Reads `path` if it exists; a missing file is an empty state. A corrupt
  // file throws std::runtime_error naming it (the student can delete it).
  explicit Progress(std::string path);
  const std::string& path() const { return path_; }
  ExerciseProgress& at(const std::string& lesson_id, const std::string& exercise_id);
  const ExerciseProgress* find(const std::string& lesson_id, const std::string& exercise_id) const;
  bool done(const std::string& lesson_id, const std::string& exercise_id) const;
  void save() const;  // atomic: write temp + rename

 private:
  std::string path_;
  std::map<std::string, ExerciseProgress> entries_;  // key "lesson/exercise"
};

// Where lessons live: --lessons DIR if given, else ./lessons, else beside the
// installed binary (../share/gpulab/lessons, then lessons/ next to it).
// Throws std::runtime_error listing where it looked.
std::string find_lessons_root(const std::string& override_dir, const std::string& argv0);

// The state file for a lessons root: <root>/../.gpulab/progress.json when the
// root is in a writable working copy, else ./.gpulab/progress.json.
std::string progress_path_for(const std::string& lessons_root);

// A lesson or exercise named on the command line: "03-coalescing",
// "03", "3", "coalescing", with "/exercise-id" to pick one exercise.
struct Selection {
  const Lesson* lesson = nullptr;
  std::vector<const Exercise*> exercises;
};
// Throws std::invalid_argument listing the lesson ids when nothing matches.
Selection select(const std::vector<Lesson>& lessons, const std::string& id);
// The first exercise not yet done, in lesson order (nullptr when all are done).
Selection next_unfinished(const std::vector<Lesson>& lessons, const Progress& p);

// `gpulab reset`: copies the student's file to a timestamped backup beside it
// (exercise.cu -> .gpulab/backups/<lesson>/exercise.cu.<YYYYmmdd-HHMMSS>) and
// restores the template. Returns the backup path ("" when there was no file).
std::string reset_exercise(const Lesson& lesson, const Exercise& ex, const std::string& backup_root);

std::string now_iso();

}  // namespace lab::lesson
