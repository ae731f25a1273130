// lab/lesson/workspace.cpp
#include "lab/lesson/workspace.h"

#include <filesystem>

namespace lab::lesson {

Workspace Workspace::open(const std::string& lessons_override) {
  Workspace w;
  w.root = find_lessons_root(lessons_override, "");
  w.lessons = load_lessons(w.root);
  std::string state = progress_path_for(w.root);
  w.progress = std::make_unique<Progress>(state);
  w.backup_root = (std::filesystem::path(state).parent_path() / "backups").string();
  return w;
}

}  // namespace lab::lesson

#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace lab::lesson {

CheckReport Workspace::check_and_record(const Lesson& l, const Exercise& e, const CheckOptions& o) {
  CheckReport r = check_exercise(l, e, o);
  if (!o.solution && o.source.empty()) {
    ExerciseProgress& p = progress->at(l.id, e.id);
    p.checks++;
    if (r.passed && !p.done) p.done = true, p.passed_at = now_iso();
    progress->save();
  }
  return r;
}

std::string Workspace::followup(const Lesson& l, const Exercise& e, const CheckReport& r) const {
  std::string key = exercise_key(l, e);
  if (r.passed) {
    if (r.file == l.path(e.solution)) return "";
    std::ifstream f(l.path(e.solution));
    std::stringstream ss;
    ss << f.rdbuf();
    return fmt::format("Solved. The reference solution ({}), to compare with yours:\n\n{}\n", l.path(e.solution), ss.str());
  }
  const ExerciseProgress* p = progress->find(l.id, e.id);
  int shown = p ? p->hints_shown : 0;
  if (shown < int(e.hints.size()))
    return fmt::format("Stuck? `gpulab hint {}` shows hint {} of {}.\n", key, shown + 1, e.hints.size());
  return fmt::format("All {} hints are shown (`gpulab hint {}` repeats them); README {} explains the idea.\n",
                     e.hints.size(), key, l.path(l.readme));
}

std::string Workspace::next_hint(const Lesson& l, const Exercise& e) {
  if (e.hints.empty()) return fmt::format("{} has no hints; read {}.\n", exercise_key(l, e), l.path(l.readme));
  ExerciseProgress& p = progress->at(l.id, e.id);
  std::string out;
  if (p.hints_shown < int(e.hints.size())) p.hints_shown++;
  for (int i = 0; i < p.hints_shown; ++i) out += fmt::format("Hint {} of {}: {}\n", i + 1, e.hints.size(), e.hints[i]);
  if (p.hints_shown < int(e.hints.size())) out += "(run it again for the next one)\n";
  progress->save();
  return out;
}

}  // namespace lab::lesson
