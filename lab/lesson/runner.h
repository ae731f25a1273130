// lab/lesson/runner.h: `gpulab lesson ID` steps through a lesson in the
// terminal: each step's text, then its command (a gpulab command line the
// student could type) run with its output, then Enter to go on.
#pragma once

#include <cstdio>
#include <string>

#include "lab/lesson/manifest.h"

namespace lab::lesson {

struct RunnerOptions {
  bool pause = true;          // wait for Enter between steps
  std::string gpulab_path;    // this executable, to run "gpulab ..." commands
  std::string lessons_root;   // the lessons folder: "lessons/..." paths in commands point into it
  bool carry_lessons = false; // --lessons was given: add it to printed `gpulab` lesson commands
  bool before_after_only = false;  // only the steps' before/after measurements, without text or pauses
  bool measure_on_gpu = false;     // before/after steps also timed on this machine's GPU (--backend cuda)
  FILE* out = stdout;
};

// Returns the number of step commands that exited non-zero.
int run_lesson(const Lesson& lesson, const RunnerOptions& opts);

// "gpulab sim x.cu ..." -> "'/path/to/gpulab' sim x.cu ..."; other commands unchanged.
std::string resolve_command(const std::string& command, const std::string& gpulab_path);

// A step's command as the student can type it from any folder: a
// "lessons/NN-topic/file" argument points into `lessons_root` (absolute), and
// the lesson subcommands (check, hint, lesson, lessons, reset, solution,
// watch) get `--lessons ROOT` when `carry` is set.
std::string localize_command(const std::string& command, const std::string& lessons_root, bool carry);

}  // namespace lab::lesson
