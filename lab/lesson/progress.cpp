// lab/lesson/progress.cpp: progress state, lesson discovery, selection, reset.
#include "lab/lesson/progress.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace lab::lesson {

std::string now_iso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

Progress::Progress(std::string path) : path_(std::move(path)) {
  if (!fs::exists(path_)) return;
  std::ifstream f(path_);
  nlohmann::json j;
  try {
    f >> j;
    for (auto& [key, v] : j.at("exercises").items()) {
      ExerciseProgress e;
      e.done = v.value("done", false);
      e.hints_shown = v.value("hints_shown", 0);
      e.checks = v.value("checks", 0);
      e.passed_at = v.value("passed_at", "");
      entries_[key] = e;
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: progress file is corrupt ({}); move it away to start afresh", path_, e.what()));
  }
}

ExerciseProgress& Progress::at(const std::string& l, const std::string& e) { return entries_[l + "/" + e]; }

const ExerciseProgress* Progress::find(const std::string& l, const std::string& e) const {
  auto it = entries_.find(l + "/" + e);
  return it == entries_.end() ? nullptr : &it->second;
}

bool Progress::done(const std::string& l, const std::string& e) const {
  auto* p = find(l, e);
  return p && p->done;
}

void Progress::save() const {
  nlohmann::json j;
  j["version"] = 1;
  j["exercises"] = nlohmann::json::object();
  for (auto& [k, e] : entries_)
    j["exercises"][k] = {{"done", e.done}, {"hints_shown", e.hints_shown}, {"checks", e.checks}, {"passed_at", e.passed_at}};
  fs::path p(path_);
  fs::create_directories(p.parent_path());
  // Same folder as the target, so rename() is atomic (same file system).
  std::string tmp = fmt::format("{}.tmp.{}", path_, ::getpid());
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << j.dump(2) << "\n";
    f.flush();
    if (!f) throw std::runtime_error(fmt::format("{}: cannot write progress state", tmp));
  }
  std::error_code ec;
  fs::rename(tmp, path_, ec);
  if (ec) {
    fs::remove(tmp);
    throw std::runtime_error(fmt::format("{}: cannot save progress state: {}", path_, ec.message()));
  }
}

std::string find_lessons_root(const std::string& override_dir, const std::string& argv0) {
  if (!override_dir.empty()) {
    if (!fs::is_directory(override_dir)) throw std::runtime_error(fmt::format("--lessons {}: no such folder", override_dir));
    return override_dir;
  }
  std::vector<fs::path> tried = {"lessons"};
  std::error_code ec;
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (ec && !argv0.empty()) exe = fs::absolute(argv0);
  if (!exe.empty()) {
    fs::path bin = exe.parent_path();
    tried.push_back(bin / ".." / "share" / "gpulab" / "lessons");
    tried.push_back(bin / "lessons");
    tried.push_back(bin / ".." / "lessons");  // a build folder inside the source tree
  }
  std::string looked;
  for (auto& t : tried) {
    if (fs::is_directory(t)) return fs::path(t).lexically_normal().string();
    looked += "\n  " + t.lexically_normal().string();
  }
  throw std::runtime_error("no lessons found; looked in:" + looked + "\nrun from the repository or pass --lessons DIR");
}

std::string progress_path_for(const std::string& root) {
  fs::path work = fs::absolute(root).parent_path();
  if (access(work.c_str(), W_OK) == 0) return (work / ".gpulab" / "progress.json").string();
  return (fs::current_path() / ".gpulab" / "progress.json").string();
}

Selection select(const std::vector<Lesson>& lessons, const std::string& id_in) {
  std::string id = id_in, ex_id;
  if (auto slash = id.find('/'); slash != std::string::npos) ex_id = id.substr(slash + 1), id = id.substr(0, slash);
  auto number = [](const std::string& s) {
    size_t i = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i ? std::stoi(s.substr(0, i)) : -1;
  };
  const Lesson* found = nullptr;
  for (const auto& L : lessons) {
    bool match = L.id == id;
    if (!match && !id.empty() && id.find_first_not_of("0123456789") == std::string::npos)
      match = number(L.id) == std::stoi(id);
    if (!match) {
      auto dash = L.id.find('-');
      match = dash != std::string::npos && L.id.substr(dash + 1) == id;
    }
    if (match) {
      found = &L;
      break;
    }
  }
  // An exercise id alone, if unique across lessons.
  if (!found && ex_id.empty()) {
    for (const auto& L : lessons)
      if (auto* e = L.find_exercise(id)) return {&L, {e}};
  }
  if (!found) {
    std::string ids;
    for (auto& L : lessons) ids += "\n  " + L.id;
    throw std::invalid_argument(fmt::format("no lesson '{}'; the lessons are:{}", id_in, ids));
  }
  Selection s{found, {}};
  if (ex_id.empty()) {
    for (auto& e : found->exercises) s.exercises.push_back(&e);
  } else {
    auto* e = found->find_exercise(ex_id);
    if (!e) {
      std::string ids;
      for (auto& x : found->exercises) ids += "\n  " + found->id + "/" + x.id;
      throw std::invalid_argument(fmt::format("lesson {} has no exercise '{}'; it has:{}", found->id, ex_id, ids));
    }
    s.exercises.push_back(e);
  }
  return s;
}

Selection next_unfinished(const std::vector<Lesson>& lessons, const Progress& p) {
  for (const auto& L : lessons)
    for (const auto& e : L.exercises)
      if (!p.done(L.id, e.id)) return {&L, {&e}};
  return {};
}

std::string reset_exercise(const Lesson& lesson, const Exercise& ex, const std::string& backup_root) {
  fs::path file = lesson.path(ex.file);
  fs::path tmpl = lesson.path(ex.template_file);
  if (!fs::exists(tmpl))
    throw std::runtime_error(fmt::format("{}: the template is missing, so {} cannot be restored", tmpl.string(), file.string()));
  std::string backup;
  if (fs::exists(file)) {
    char stamp[32];
    std::time_t t = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&t));
    fs::path dir = fs::path(backup_root) / lesson.id;
    fs::create_directories(dir);
    fs::path b = dir / fmt::format("{}.{}", file.filename().string(), stamp);
    for (int n = 1; fs::exists(b); ++n) b = dir / fmt::format("{}.{}-{}", file.filename().string(), stamp, n);
    fs::copy_file(file, b);
    backup = b.string();
  }
  // Copy to a temporary beside the file, then rename: the student's file is
  // either the old one or the template, never half-written.
  fs::path tmp = file.string() + ".reset-tmp";
  fs::copy_file(tmpl, tmp, fs::copy_options::overwrite_existing);
  fs::rename(tmp, file);
  return backup;
}

}  // namespace lab::lesson
