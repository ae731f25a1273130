// gpulab hint ID: reveal an exercise's hints one at a time (remembered).
#include <fmt/format.h>

#include "lab/cli/command.h"
#include "lab/lesson/workspace.h"

namespace lab::cli {
namespace {

struct HintArgs {
  std::string id, lessons_dir;
};

int run_hint(const HintArgs& a) {
  auto ws = lesson::Workspace::open(a.lessons_dir);
  lesson::Selection s = a.id.empty() ? lesson::next_unfinished(ws.lessons, *ws.progress) : lesson::select(ws.lessons, a.id);
  if (!s.lesson || s.exercises.empty()) {
    fmt::print("Nothing to hint at: every exercise is done.\n");
    return kExitOk;
  }
  // A lesson id alone means its first unfinished exercise.
  const lesson::Exercise* e = s.exercises.front();
  for (auto* x : s.exercises)
    if (!ws.progress->done(s.lesson->id, x->id)) {
      e = x;
      break;
    }
  fmt::print("{}/{}:\n{}", s.lesson->id, e->id, ws.next_hint(*s.lesson, *e));
  if (!ws.note.empty()) fmt::print(stderr, "{}", ws.note);
  return kExitOk;
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  auto* a = new HintArgs;
  auto* cmd = app.add_subcommand("hint", "Show the next hint for an exercise");
  cmd->add_option("id", a->id, "Lesson or lesson/exercise id (default: the next unfinished exercise)");
  cmd->add_option("--lessons", a->lessons_dir, "Lessons folder");
  cmd->callback([a, &rc] { rc = run_hint(*a); });
});

}  // namespace
}  // namespace lab::cli
