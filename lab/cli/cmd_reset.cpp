// gpulab reset ID: restore an exercise from its template, after saving the
// student's version to a timestamped backup. The only command that ever
// overwrites a student's file.
#include <fmt/format.h>

#include "lab/cli/command.h"
#include "lab/lesson/workspace.h"

namespace lab::cli {
namespace {

struct ResetArgs {
  std::string id, lessons_dir;
};

int run_reset(const ResetArgs& a) {
  auto ws = lesson::Workspace::open(a.lessons_dir);
  lesson::Selection s = lesson::select(ws.lessons, a.id);
  for (const auto* e : s.exercises) {
    std::string backup = lesson::reset_exercise(*s.lesson, *e, ws.backup_root);
    if (backup.empty())
      fmt::print("{}: restored from {}\n", s.lesson->path(e->file), e->template_file);
    else
      fmt::print("{}: restored from {}; your version is saved as {}\n", s.lesson->path(e->file), e->template_file, backup);
    auto& p = ws.progress->at(s.lesson->id, e->id);
    p.done = false;
  }
  ws.progress->save();
  return kExitOk;
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  auto* a = new ResetArgs;
  auto* cmd = app.add_subcommand("reset", "Restore an exercise from its template (your version is backed up first)");
  cmd->add_option("id", a->id, "Lesson or lesson/exercise id")->required();
  cmd->add_option("--lessons", a->lessons_dir, "Lessons folder");
  cmd->callback([a, &rc] { rc = run_reset(*a); });
});

}  // namespace
}  // namespace lab::cli
