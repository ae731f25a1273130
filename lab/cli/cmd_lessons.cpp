// gpulab lessons [--json]: the lessons, their exercises, and what is done.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lab/cli/command.h"
#include "lab/lesson/manifest.h"
#include "lab/lesson/workspace.h"

namespace lab::cli {
namespace {

struct LessonsArgs {
  bool json = false;
  std::string lessons_dir;
};

int run_lessons(const LessonsArgs& a) {
  auto ws = lesson::Workspace::open(a.lessons_dir);
  if (a.json) {
    // Contract: {"lessons":[{"id","title","exercises":[{"id","file","done","reference_copy"}]}]}
    nlohmann::json j;
    j["lessons"] = nlohmann::json::array();
    j["progress_file"] = ws.progress->path();
    for (const auto& L : ws.lessons) {
      nlohmann::json lj = {{"id", L.id}, {"title", L.title}, {"exercises", nlohmann::json::array()}};
      for (const auto& e : L.exercises)
        lj["exercises"].push_back({{"id", e.id}, {"file", L.path(e.file)}, {"done", ws.progress->done(L.id, e.id)},
                                  {"reference_copy", [&] {
                                     const auto p = ws.progress->find(L.id, e.id);
                                     return p && p->reference_copy;
                                   }()}});
      j["lessons"].push_back(lj);
    }
    fmt::print("{}\n", j.dump());
    return kExitOk;
  }
  size_t total = 0, done = 0;
  for (const auto& L : ws.lessons) {
    fmt::print("{}  {}\n", L.id, L.title);
    for (const auto& e : L.exercises) {
      bool d = ws.progress->done(L.id, e.id);
      total++, done += d;
      const auto p = ws.progress->find(L.id, e.id);
      fmt::print("    [{}] {}/{}  {}  ({}){}\n", d ? "x" : " ", L.id, e.id, e.title, L.path(e.file),
                 d && p && p->reference_copy ? "  passed with the reference's code" : "");
    }
  }
  fmt::print("\n{} of {} exercises done. `{}` to read one, `{}` for the next exercise.\n", done, total,
             ws.command("lesson ID"), ws.command("check"));
  fmt::print("Progress is kept in {} (inside this lessons folder; a copy of the folder keeps its own).\n"
             "`{}` forgets it; `{}` restores one exercise's file (yours is backed up to {}).\n",
             ws.progress->path(), ws.command("reset --progress"), ws.command("reset LESSON/EXERCISE"), ws.backup_root);
  if (!ws.note.empty()) fmt::print(stderr, "{}", ws.note);
  return kExitOk;
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  auto* a = new LessonsArgs;
  auto* cmd = app.add_subcommand("lessons", "List the lessons and exercises with your progress");
  cmd->add_flag("--json", a->json, "Machine-readable output");
  cmd->add_option("--lessons", a->lessons_dir, "Lessons folder (default: ./lessons, then beside the binary)");
  cmd->callback([a, &rc] { rc = run_lessons(*a); });
});

}  // namespace
}  // namespace lab::cli
