// lab/lesson/workspace.cpp
#include "lab/lesson/workspace.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "lab/sim/launch.h"

namespace fs = std::filesystem;

namespace lab::lesson {

Workspace Workspace::open(const std::string& lessons_override) {
  Workspace w;
  bool found_above = false;
  w.root = find_lessons_root(lessons_override, "", &found_above);
  if (found_above) w.note += fmt::format("gpulab: using the lessons in {} (the folder this command runs in)\n", w.root);
  if (!lessons_override.empty()) w.lessons_arg = fs::absolute(lessons_override).lexically_normal().string();
  while (w.lessons_arg.size() > 1 && w.lessons_arg.back() == '/') w.lessons_arg.pop_back();
  w.lessons = load_lessons(w.root);
  std::string state = progress_path_for(w.root);
  w.progress = std::make_unique<Progress>(state);
  try {
    w.note += migrate_old_progress(w.root, *w.progress);
  } catch (const std::exception& e) {
    w.note += fmt::format("gpulab: older progress was found but not moved: {}\n", e.what());
  }
  w.backup_root = (fs::path(state).parent_path() / "backups").string();
  return w;
}

std::string Workspace::command(const std::string& args) const {
  if (lessons_arg.empty()) return "gpulab " + args;
  bool plain = lessons_arg.find_first_of(" \t'\"$`\\;&|()<>*?") == std::string::npos;
  return fmt::format("gpulab {} --lessons {}", args, plain ? lessons_arg : "'" + lessons_arg + "'");
}

uint64_t Workspace::step_budget(const Exercise& e) {
  uint64_t most = 0;
  for (const SizeVars& sizes : e.sizes) {
    uint64_t elements = 0;
    for (const ArgSpec& a : e.args) {
      if (a.role == ArgSpec::Role::Scalar) continue;
      uint64_t n = 1;
      try {
        for (const auto& d : a.dims) n *= uint64_t(std::max<int64_t>(1, eval_size(d, sizes)));
      } catch (const std::exception&) {
        n = 0;
      }
      elements += n;
    }
    most = std::max(most, elements);
  }
  return std::clamp<uint64_t>(8 * most, 200'000, 100'000'000);
}

CheckReport Workspace::check_and_record(const Lesson& l, const Exercise& e, const CheckOptions& o,
                                        const std::atomic<bool>* cancel, bool* cancelled) {
  sim::LaunchLimits limits;
  limits.max_steps = step_budget(e);
  limits.seconds = kCheckLaunchSeconds;
  limits.cancel = cancel;
  CheckReport r;
  {
    sim::LaunchLimitScope scope(limits);
    r = check_exercise(l, e, o);
  }
  const bool stopped = cancel && cancel->load();
  if (cancelled) *cancelled = stopped;
  if (stopped || o.solution || !o.source.empty()) return r;
  try {
    progress->update(l.id, e.id, [&](ExerciseProgress& p) {
      p.checks++;
      // A re-check that fails clears "done": the list shows what passes now.
      if (r.passed && !p.done) p.passed_at = now_iso();
      p.done = r.passed;
      p.reference_copy = r.passed && r.reference_copy;
    });
  } catch (const std::exception& ex) {
    note += fmt::format("gpulab: this result was not recorded: {}\n", ex.what());
  }
  return r;
}

std::string Workspace::followup(const Lesson& l, const Exercise& e, const CheckReport& r) const {
  std::string key = exercise_key(l, e);
  if (r.passed) {
    if (r.file == l.path(e.solution)) return "";
    std::string out =
        r.reference_copy
            ? fmt::format("This file is the reference solution's code: the pass is recorded as the reference's "
                          "(`{}` lists it so). `{}` restores the exercise to try it yourself.\n",
                          command("lessons"), command("reset " + key))
            : fmt::format("Solved. Compare with the reference solution: `{}`\n", command("solution " + key));
    Selection nx = next_after(lessons, *progress, l, e);
    if (nx.lesson && !nx.exercises.empty() && !(nx.lesson->id == l.id && nx.exercises.front()->id == e.id))
      out += fmt::format("Next: {}/{}: {} - edit {}, then `{}`\n", nx.lesson->id, nx.exercises.front()->id,
                         nx.exercises.front()->title, nx.lesson->path(nx.exercises.front()->file),
                         command("check " + exercise_key(*nx.lesson, *nx.exercises.front())));
    else
      out += "That was the last exercise left: every exercise is done.\n";
    return out;
  }
  auto p = progress->find(l.id, e.id);
  int total = int(e.hints.size());
  int shown = std::clamp(p ? p->hints_shown : 0, 0, total);
  if (shown < total)
    return fmt::format("Stuck? `{}` shows hint {} of {}.\n", command("hint " + key), shown + 1, total);
  return fmt::format("All {} hints are shown (`{}` lists them again); README {} explains the idea.\n", total,
                     command("hint " + key), l.path(l.readme));
}

std::string Workspace::next_hint(const Lesson& l, const Exercise& e) {
  const int total = int(e.hints.size());
  if (total == 0) return fmt::format("{} has no hints; read {}.\n", exercise_key(l, e), l.path(l.readme));
  int before = 0;
  ExerciseProgress now;
  auto reveal = [&](ExerciseProgress& p) {
    // Clamped both ways: a lesson update may have removed hints since they were shown.
    before = std::clamp(p.hints_shown, 0, total);
    p.hints_shown = std::min(before + 1, total);
  };
  try {
    now = progress->update(l.id, e.id, reveal);
  } catch (const std::exception& ex) {
    now = progress->find(l.id, e.id).value_or(ExerciseProgress{});
    note += fmt::format("gpulab: the hint count was not recorded: {}\n", ex.what());
  }
  const int shown = std::clamp(now.hints_shown, 0, total);
  std::string out;
  for (int i = 0; i < shown; ++i) out += fmt::format("Hint {} of {}: {}\n", i + 1, total, e.hints[size_t(i)]);
  if (before >= total)
    out += fmt::format("No more hints ({} of {} shown). README {} explains the idea; `{}` shows the reference.\n", total,
                       total, l.path(l.readme), command("solution " + exercise_key(l, e) + " --reveal"));
  else if (shown < total)
    out += fmt::format("(`{}` again for hint {} of {})\n", command("hint " + exercise_key(l, e)), shown + 1, total);
  return out;
}

}  // namespace lab::lesson
