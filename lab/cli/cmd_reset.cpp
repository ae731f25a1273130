// gpulab reset ID: restore an exercise from its template, after saving the
// student's version to a timestamped backup. The only command that ever
// overwrites a student's file. A lesson with several exercises needs the
// exercise named (LESSON/EXERCISE) or --all; --progress forgets the progress
// record instead (files untouched).
#include <fmt/format.h>

#include "lab/cli/command.h"
#include "lab/lesson/workspace.h"

namespace lab::cli {
namespace {

struct ResetArgs {
  std::string id, lessons_dir;
  bool all = false, progress = false;
};

int run_reset(const ResetArgs& a) {
  auto ws = lesson::Workspace::open(a.lessons_dir);
  if (a.progress && a.id.empty()) {
    ws.progress->clear();
    fmt::print("Progress forgotten ({}); your files are untouched.\n", ws.progress->path());
    return kExitOk;
  }
  if (a.id.empty()) {
    fmt::print(stderr, "gpulab reset: name an exercise (`{}`), or --progress to forget the progress record\n",
               ws.command("reset LESSON/EXERCISE"));
    return kExitUsage;
  }
  lesson::Selection s = lesson::select(ws.lessons, a.id);
  if (s.exercises.size() > 1 && !a.all) {
    std::string ids;
    for (const auto* e : s.exercises) ids += fmt::format("\n  {}", ws.command("reset " + lesson::Workspace::exercise_key(*s.lesson, *e)));
    fmt::print(stderr, "gpulab reset: lesson {} has {} exercises; reset one of them:{}\nor all of them with --all\n",
               s.lesson->id, s.exercises.size(), ids);
    return kExitUsage;
  }
  for (const auto* e : s.exercises) {
    if (a.progress) {
      ws.progress->update(s.lesson->id, e->id, [](lesson::ExerciseProgress& p) { p = {}; });
      fmt::print("{}/{}: progress forgotten; {} is untouched\n", s.lesson->id, e->id, s.lesson->path(e->file));
      continue;
    }
    std::string backup = lesson::reset_exercise(*s.lesson, *e, ws.backup_root);
    if (backup.empty())
      fmt::print("{}: restored from {}\n", s.lesson->path(e->file), e->template_file);
    else
      fmt::print("{}: restored from {}; your version is saved as {}\n", s.lesson->path(e->file), e->template_file, backup);
    ws.progress->update(s.lesson->id, e->id, [](lesson::ExerciseProgress& p) { p.done = false; });
  }
  if (!ws.note.empty()) fmt::print(stderr, "{}", ws.note);
  return kExitOk;
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  auto* a = new ResetArgs;
  auto* cmd = app.add_subcommand("reset", "Restore an exercise from its template (your version is backed up first)");
  cmd->add_option("id", a->id, "LESSON/EXERCISE (or a lesson with one exercise)");
  cmd->add_flag("--all", a->all, "Reset every exercise of the lesson named");
  cmd->add_flag("--progress", a->progress, "Forget the progress record (of ID, or of everything) instead; files untouched");
  cmd->add_option("--lessons", a->lessons_dir, "Lessons folder");
  cmd->callback([a, &rc] { rc = run_reset(*a); });
});

}  // namespace
}  // namespace lab::cli
