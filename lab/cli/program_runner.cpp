// lab/cli/program_runner.cpp: how `gpulab check` runs a program exercise
// (lab/lesson/check_program.cpp): through `gpulab run --json`, the same path
// a student's own `gpulab run` takes, so the check sees what they see.
// Installed at start-up, as commands register themselves.
#include <cstdio>

#include <fmt/format.h>

#include "lab/cli/run_build.h"
#include "lab/lesson/check.h"

namespace lab::cli {
namespace {

// One shell word: '...' with any ' inside closed, escaped and reopened.
std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string run_for_check(const std::vector<std::string>& sources, const std::vector<std::string>& defines,
                          const lesson::ProgramRun& run, const sim::GpuModel& gpu) {
  std::string cmd = quoted(gpulab_dir() + "/gpulab") + " run";
  for (const auto& s : sources) cmd += " " + quoted(s);
  cmd += fmt::format(" --json --gpu {} --gpus {} --link {}", quoted(std::string(gpu.name)), run.gpus, quoted(run.link));
  // Lesson 10's task header by absolute path: the lessons folder may be a copy away from the lab's sources.
  cmd += " -D " + quoted(fmt::format("MLP_TASK_HEADER=\"{}\"", GPULAB_SOURCE_DIR "/lab/cpu/mlp_task.h"));
  for (const auto& d : defines) cmd += " -D " + quoted(d);
  cmd += " -- " + run.args + " 2>/dev/null";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

const bool installed = lesson::set_program_runner(run_for_check);

}  // namespace
}  // namespace lab::cli
