// gpulab solution ID [--reveal]: the reference solution of an exercise, shown
// once the exercise passes, or earlier when the student asks explicitly
// (--reveal, remembered in the progress record) - like rustlings' solutions.
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "lab/cli/command.h"
#include "lab/lesson/workspace.h"

namespace lab::cli {
namespace {

struct SolutionArgs {
  std::string id, lessons_dir;
  bool reveal = false;
};

int run_solution(const SolutionArgs& a) {
  auto ws = lesson::Workspace::open(a.lessons_dir);
  lesson::Selection s = lesson::select(ws.lessons, a.id);
  if (s.exercises.size() != 1) {
    std::string ids;
    for (const auto* e : s.exercises) ids += "\n  " + ws.command("solution " + lesson::Workspace::exercise_key(*s.lesson, *e));
    fmt::print(stderr, "gpulab solution: lesson {} has {} exercises; name one:{}\n", s.lesson->id, s.exercises.size(), ids);
    return kExitUsage;
  }
  const lesson::Lesson& L = *s.lesson;
  const lesson::Exercise& e = *s.exercises.front();
  const std::string key = lesson::Workspace::exercise_key(L, e);
  const bool done = ws.progress->done(L.id, e.id);
  if (!done && !a.reveal) {
    fmt::print("{} is not solved yet, so its solution stays hidden.\n"
               "Try `{}` first; `{}` shows it anyway.\n",
               key, ws.command("hint " + key), ws.command("solution " + key + " --reveal"));
    return kExitKernelFault;
  }
  std::ifstream f(L.path(e.solution));
  if (!f) {
    fmt::print(stderr, "gpulab solution: {}: cannot read the solution file\n", L.path(e.solution));
    return kExitUsage;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  if (!done) {
    try {
      ws.progress->update(L.id, e.id, [](lesson::ExerciseProgress& p) { p.solution_seen = true; });
    } catch (const std::exception& ex) {
      ws.note += fmt::format("gpulab: not recorded: {}\n", ex.what());
    }
  }
  fmt::print("Reference solution of {} ({}):\n\n{}", key, L.path(e.solution), ss.str());
  if (!ws.note.empty()) fmt::print(stderr, "{}", ws.note);
  return kExitOk;
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  auto* a = new SolutionArgs;
  auto* cmd = app.add_subcommand("solution", "Show an exercise's reference solution (after it passes, or with --reveal)");
  cmd->add_option("id", a->id, "LESSON/EXERCISE")->required();
  cmd->add_flag("--reveal", a->reveal, "Show it before the exercise passes");
  cmd->add_option("--lessons", a->lessons_dir, "Lessons folder");
  cmd->callback([a, &rc] { rc = run_solution(*a); });
});

}  // namespace
}  // namespace lab::cli
