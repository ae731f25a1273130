// gpulab check [ID] [--solution] [--json]: is the exercise right, and fast
// for the reason the lesson teaches? Exit 0 only when everything passes.
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lab/cli/command.h"
#include "lab/cli/gpu_option.h"
#include "lab/lesson/check.h"
#include "lab/lesson/workspace.h"

namespace lab::cli {
namespace {

struct CheckArgs {
  std::string id, lessons_dir, gpu = "H100", file;
  bool solution = false, json = false;
  uint64_t seed = 20240611;
  int judge_size = -1;  // lesson::CheckOptions::judge_size
};

int run_check(const CheckArgs& a) {
  auto ws = lesson::Workspace::open(a.lessons_dir);
  lesson::Selection s;
  // Run inside a lesson's folder with no ID: that lesson's exercises.
  std::string here_lesson;
  if (a.id.empty()) {
    std::error_code ec;
    const auto here = std::filesystem::weakly_canonical(std::filesystem::current_path(ec), ec);
    for (const auto& L : ws.lessons) {
      const auto dir = std::filesystem::weakly_canonical(L.dir, ec);
      auto [d, h] = std::mismatch(dir.begin(), dir.end(), here.begin(), here.end());
      if (!ec && d == dir.end()) here_lesson = L.id;
    }
  }
  if (!here_lesson.empty()) {
    s = lesson::select(ws.lessons, here_lesson);
  } else if (a.id.empty()) {
    s = lesson::next_unfinished(ws.lessons, *ws.progress);
    if (!s.lesson) {
      fmt::print("Every exercise is done. `{}` lists them; `{}` re-checks one.\n", ws.command("lessons"), ws.command("check ID"));
      return kExitOk;
    }
  } else {
    s = lesson::select(ws.lessons, a.id);
  }
  if (!a.file.empty() && s.exercises.size() != 1) {
    fmt::print(stderr, "gpulab check: --file needs one exercise (LESSON/EXERCISE), not all of lesson {}\n", s.lesson->id);
    return kExitUsage;
  }
  if (s.exercises.empty()) {
    fmt::print(stderr, "gpulab check: lesson {} has no exercises\n", s.lesson->id);
    return kExitUsage;
  }
  lesson::CheckOptions o;
  o.solution = a.solution;
  o.source = a.file;
  o.gpu = &resolved_gpu(a.gpu);
  o.seed = a.seed;
  o.judge_size = a.judge_size;
  bool all = true;
  nlohmann::json results = nlohmann::json::array();
  for (const auto* e : s.exercises) {
    if (!a.json) fmt::print("checking {}/{} ...\n", s.lesson->id, e->id), std::fflush(stdout);
    // Another file checked as this exercise (--file) leaves the progress alone.
    lesson::CheckReport r = a.file.empty() ? ws.check_and_record(*s.lesson, *e, o) : lesson::check_exercise(*s.lesson, *e, o);
    all = all && r.passed;
    if (a.json) {
      results.push_back(nlohmann::json::parse(lesson::report_json(r)));
    } else {
      fmt::print("{}", lesson::format_report(r));
      if (a.file.empty()) fmt::print("{}", ws.followup(*s.lesson, *e, r));
    }
  }
  if (a.json) fmt::print("{}\n", nlohmann::json{{"passed", all}, {"results", results}}.dump());
  if (!ws.note.empty()) fmt::print(stderr, "{}", ws.note);
  return all ? kExitOk : kExitKernelFault;
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  auto* a = new CheckArgs;
  auto* cmd = app.add_subcommand("check", "Check an exercise: correct on several sizes, then the lesson's efficiency criteria");
  cmd->add_option("id", a->id, "Lesson or lesson/exercise id (default: the next unfinished exercise)");
  cmd->add_flag("--solution", a->solution, "Check the reference solution instead of your file");
  cmd->add_flag("--json", a->json, "Machine-readable output");
  cmd->add_option("--file", a->file, "Check this .cu file as the exercise (progress is not recorded)");
  cmd->add_option("--lessons", a->lessons_dir, "Lessons folder");
  add_gpu_option(cmd, a->gpu, "GPU model for the metrics (default H100)");
  cmd->add_option("--seed", a->seed, "Seed for the random inputs");
  cmd->add_option("--judge-size", a->judge_size,
                  "Judge the criteria at this one of the exercise's judge_sizes (0, 1, ...) instead of one drawn "
                  "at random; an honest kernel passes at every one")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([a, &rc] { rc = run_check(*a); });
});

}  // namespace
}  // namespace lab::cli
