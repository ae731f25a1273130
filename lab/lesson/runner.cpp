// lab/lesson/runner.cpp: show a lesson step by step and run its commands.
#include "lab/lesson/runner.h"

#include <sys/wait.h>

#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

namespace lab::lesson {

std::string resolve_command(const std::string& command, const std::string& gpulab_path) {
  if (command.rfind("gpulab ", 0) == 0 && !gpulab_path.empty()) return "'" + gpulab_path + "'" + command.substr(6);
  return command;
}

int run_lesson(const Lesson& L, const RunnerOptions& o) {
  int failed = 0;
  fmt::print(o.out, "# {}\n\n", L.title);
  for (size_t i = 0; i < L.steps.size(); ++i) {
    const Step& s = L.steps[i];
    fmt::print(o.out, "---- step {}/{}{} ----\n\n", i + 1, L.steps.size(), s.title.empty() ? "" : ": " + s.title);
    if (!s.text.empty()) fmt::print(o.out, "{}\n\n", s.text);
    if (!s.command.empty()) {
      fmt::print(o.out, "$ {}\n", s.command);
      std::fflush(o.out);
      int rc = std::system(resolve_command(s.command, o.gpulab_path).c_str());
      int code = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
      if (code != 0) {
        ++failed;
        fmt::print(o.out, "(the command exited with status {})\n", code);
      }
      fmt::print(o.out, "\n");
    }
    if (o.pause && i + 1 < L.steps.size()) {
      fmt::print(o.out, "[Enter: next step, q: quit] ");
      std::fflush(o.out);
      std::string line;
      if (!std::getline(std::cin, line) || line == "q") break;
    }
  }
  if (!L.exercises.empty()) {
    fmt::print(o.out, "Exercises:\n");
    for (auto& e : L.exercises)
      fmt::print(o.out, "  {}/{}: {} - edit {}, then `gpulab check {}/{}`\n", L.id, e.id, e.title, L.path(e.file), L.id, e.id);
  }
  return failed;
}

}  // namespace lab::lesson
