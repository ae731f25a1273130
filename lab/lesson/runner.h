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
  std::string lessons_root;   // passed on as --lessons where the command takes it
  FILE* out = stdout;
};

// Returns the number of step commands that exited non-zero.
int run_lesson(const Lesson& lesson, const RunnerOptions& opts);

// "gpulab sim x.cu ..." -> "'/path/to/gpulab' sim x.cu ..."; other commands unchanged.
std::string resolve_command(const std::string& command, const std::string& gpulab_path);

}  // namespace lab::lesson
