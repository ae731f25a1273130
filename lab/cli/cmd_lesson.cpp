// gpulab lesson ID [--no-pause] [--before-after]: step through a lesson in the terminal.
#include <filesystem>

#include <fmt/format.h>

#include "lab/cli/command.h"
#include "lab/lesson/runner.h"
#include "lab/lesson/workspace.h"
#include "lab/sim/launch.h"

namespace lab::cli {
namespace {

struct LessonArgs {
  std::string id, lessons_dir;
  bool no_pause = false, before_after = false;
  std::string backend = "sim";
};

int run_lesson_cmd(const LessonArgs& a) {
  auto ws = lesson::Workspace::open(a.lessons_dir);
  lesson::Selection s = lesson::select(ws.lessons, a.id);
  lesson::RunnerOptions o;
  o.pause = !a.no_pause && !a.before_after;
  o.before_after_only = a.before_after;
  o.measure_on_gpu = a.backend == "cuda";
  std::error_code ec;
  o.gpulab_path = std::filesystem::canonical("/proc/self/exe", ec).string();
  o.lessons_root = ws.root;
  o.carry_lessons = !ws.lessons_arg.empty();
  // A student's kernel measured by a step ends in seconds if it runs away.
  sim::LaunchLimits limits;
  limits.seconds = lesson::kCheckLaunchSeconds;
  limits.max_steps = 10'000'000;
  sim::LaunchLimitScope scope(limits);
  int failed = lesson::run_lesson(*s.lesson, o);
  if (failed) fmt::print(stderr, "gpulab lesson: {} step command(s) failed\n", failed);
  return failed ? kExitKernelFault : kExitOk;
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  auto* a = new LessonArgs;
  auto* cmd = app.add_subcommand("lesson", "Step through a lesson: text, then its kernels run, step by step");
  cmd->add_option("id", a->id, "Lesson id, e.g. 03-coalescing or 3")->required();
  cmd->add_flag("--no-pause", a->no_pause, "Do not wait for Enter between steps (for scripts)");
  cmd->add_flag("--before-after", a->before_after,
                "Run only the lesson's before/after measurements (predicted times and counters), without text");
  cmd->add_option("--backend", a->backend,
                  "sim (default) | cuda: before/after steps are also timed on this machine's GPU, beside the model")
      ->check(CLI::IsMember({"sim", "cuda"}));
  cmd->add_option("--lessons", a->lessons_dir, "Lessons folder");
  cmd->callback([a, &rc] { rc = run_lesson_cmd(*a); });
});

}  // namespace
}  // namespace lab::cli
