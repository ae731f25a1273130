// lab/lesson/progress.cpp: progress state, lesson discovery, selection, reset.
#include "lab/lesson/progress.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <cstdlib>
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

namespace {

// The lock file beside the state file. flock() on a separate file, because
// the state file itself is replaced by rename() on every write.
struct StateLock {
  int fd = -1;
  explicit StateLock(const std::string& state_path) {
    fs::path p(state_path);
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    std::string lock = (p.parent_path() / "progress.lock").string();
    fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      throw std::runtime_error(fmt::format("{}: cannot open the progress lock ({}); is the lessons folder writable?", lock,
                                           std::strerror(errno)));
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      fd = -1;
      throw std::runtime_error(fmt::format("{}: cannot lock the progress state ({})", lock, std::strerror(err)));
    }
  }
  ~StateLock() {
    if (fd >= 0) ::flock(fd, LOCK_UN), ::close(fd);
  }
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;
};

std::map<std::string, ExerciseProgress> read_entries(const std::string& path) {
  std::map<std::string, ExerciseProgress> entries;
  std::error_code ec;
  if (!fs::exists(path, ec)) return entries;
  std::ifstream f(path);
  nlohmann::json j;
  try {
    f >> j;
    for (auto& [key, v] : j.at("exercises").items()) {
      ExerciseProgress e;
      e.done = v.value("done", false);
      e.hints_shown = std::max(0, v.value("hints_shown", 0));
      e.checks = std::max(0, v.value("checks", 0));
      e.passed_at = v.value("passed_at", "");
      e.solution_seen = v.value("solution_seen", false);
      e.reference_copy = v.value("reference_copy", false);
      entries[key] = e;
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: progress file is corrupt ({}); move it away to start afresh", path, e.what()));
  }
  return entries;
}

void fsync_path(const fs::path& p, int flags) {
  int fd = ::open(p.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Temp file in the same folder (so rename() is atomic), fsync'd before the
// rename, and the folder fsync'd after it, so the new name is durable too.
void write_entries(const std::string& path, const std::map<std::string, ExerciseProgress>& entries) {
  nlohmann::json j;
  j["version"] = 1;
  j["exercises"] = nlohmann::json::object();
  for (auto& [k, e] : entries) {
    nlohmann::json v = {{"done", e.done}, {"hints_shown", e.hints_shown}, {"checks", e.checks}, {"passed_at", e.passed_at}};
    if (e.solution_seen) v["solution_seen"] = true;
    if (e.reference_copy) v["reference_copy"] = true;
    j["exercises"][k] = v;
  }
  fs::path p(path);
  std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << j.dump(2) << "\n";
    f.flush();
    if (!f) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw std::runtime_error(fmt::format("{}: cannot write the progress state (is the folder writable?)", tmp));
    }
  }
  fsync_path(tmp, O_RDONLY);
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error(fmt::format("{}: cannot save the progress state: {}", path, ec.message()));
  }
  fsync_path(p.parent_path(), O_RDONLY | O_DIRECTORY);
}

}  // namespace

Progress::Progress(std::string path) : path_(std::move(path)) { entries_ = read_entries(path_); }

void Progress::reload() {
  auto fresh = read_entries(path_);
  std::lock_guard guard(mutex_);
  entries_ = std::move(fresh);
}

std::optional<ExerciseProgress> Progress::find(const std::string& l, const std::string& e) const {
  std::lock_guard guard(mutex_);
  auto it = entries_.find(l + "/" + e);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

bool Progress::done(const std::string& l, const std::string& e) const {
  auto p = find(l, e);
  return p && p->done;
}

ExerciseProgress Progress::update(const std::string& l, const std::string& e,
                                  const std::function<void(ExerciseProgress&)>& change) {
  const std::string key = l + "/" + e;
  std::lock_guard guard(mutex_);
  std::unique_ptr<StateLock> lock;
  try {
    lock = std::make_unique<StateLock>(path_);
    entries_ = read_entries(path_);  // what other commands recorded meanwhile
  } catch (...) {
    change(entries_[key]);  // keep this command's view consistent, then say why nothing was saved
    throw;
  }
  change(entries_[key]);
  ExerciseProgress now = entries_[key];
  write_entries(path_, entries_);
  return now;
}

void Progress::clear() {
  std::lock_guard guard(mutex_);
  StateLock lock(path_);
  entries_.clear();
  write_entries(path_, entries_);
}

std::string find_lessons_root(const std::string& override_dir, const std::string& argv0, bool* found_above) {
  if (found_above) *found_above = false;
  if (!override_dir.empty()) {
    if (!fs::is_directory(override_dir)) throw std::runtime_error(fmt::format("--lessons {}: no such folder", override_dir));
    return override_dir;
  }
  std::error_code ec;
  if (fs::is_directory("lessons", ec)) return "lessons";  // the repository (or a folder holding a copy)
  // Inside a lessons folder or one of its lessons (a student's copy): the
  // nearest folder above the current one that holds lessons, never the
  // build tree's (issue 25: `cd COPY/03-coalescing && gpulab check`).
  auto holds_lessons = [&](const fs::path& d) {
    if (!fs::is_directory(d, ec)) return false;
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_directory(ec) && fs::exists(it->path() / "lesson.toml", ec)) return true;
    return false;
  };
  const fs::path here = fs::current_path(ec);
  for (fs::path p = here; !ec && !p.empty(); p = p.parent_path()) {
    if (holds_lessons(p)) {
      if (found_above) *found_above = true;
      return p.string();
    }
    if (p == p.root_path()) break;
  }
  ec.clear();
  std::vector<fs::path> tried = {"lessons"};
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

std::string state_dir_for(const std::string& root) {
  fs::path abs = fs::absolute(root).lexically_normal();
  if (::access(abs.c_str(), W_OK) == 0) return (abs / ".gpulab").string();
  // A read-only lessons folder (an installed copy): a per-root state folder
  // in the user's state directory, named after the root's absolute path.
  std::string base;
  if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x) base = x;
  else if (const char* h = std::getenv("HOME"); h && *h) base = std::string(h) + "/.local/state";
  else base = fs::temp_directory_path().string();
  std::string name = abs.string();
  for (char& c : name)
    if (c == '/') c = '_';
  return (fs::path(base) / "gpulab" / name).string();
}

std::string progress_path_for(const std::string& root) { return (fs::path(state_dir_for(root)) / "progress.json").string(); }

std::string migrate_old_progress(const std::string& root, Progress& into) {
  fs::path old = fs::absolute(root).lexically_normal().parent_path() / ".gpulab" / "progress.json";
  std::error_code ec;
  if (!fs::exists(old, ec) || fs::equivalent(old, into.path(), ec)) return "";
  std::map<std::string, ExerciseProgress> entries;
  try {
    entries = read_entries(old.string());
  } catch (const std::exception&) {
    return "";  // leave a corrupt old file alone
  }
  for (auto& [key, e] : entries) {
    auto slash = key.find('/');
    if (slash == std::string::npos) continue;
    into.update(key.substr(0, slash), key.substr(slash + 1), [&](ExerciseProgress& p) {
      p.done = p.done || e.done;
      p.hints_shown = std::max(p.hints_shown, e.hints_shown);
      p.checks += e.checks;
      if (p.passed_at.empty()) p.passed_at = e.passed_at;
    });
  }
  fs::rename(old, old.string() + ".migrated", ec);
  return fmt::format("gpulab: progress moved from {} into the lessons folder ({})\n", old.string(), into.path());
}

Selection select(const std::vector<Lesson>& lessons, const std::string& id_in) {
  std::string id = id_in, ex_id;
  if (auto slash = id.find('/'); slash != std::string::npos) ex_id = id.substr(slash + 1), id = id.substr(0, slash);
  auto number = [](const std::string& s) {
    size_t i = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (!i || i > 6) return -1;  // no lesson number has more than 6 digits (and std::stoi would overflow)
    return std::stoi(s.substr(0, i));
  };
  const Lesson* found = nullptr;
  for (const auto& L : lessons) {
    bool match = L.id == id;
    if (!match && !id.empty() && id.find_first_not_of("0123456789") == std::string::npos)
      match = id.size() <= 6 && number(L.id) == number(id);
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

Selection next_after(const std::vector<Lesson>& lessons, const Progress& p, const Lesson& l, const Exercise& ex) {
  bool after = false;
  for (const auto& L : lessons)
    for (const auto& e : L.exercises) {
      if (after && !p.done(L.id, e.id)) return {&L, {&e}};
      if (L.id == l.id && e.id == ex.id) after = true;
    }
  return next_unfinished(lessons, p);  // wrap around to an earlier one left undone
}

std::string reset_exercise(const Lesson& lesson, const Exercise& ex, const std::string& backup_root) {
  fs::path file = lesson.path(ex.file);
  fs::path tmpl = lesson.path(ex.template_file);
  // The manifest refuses paths leading out of the lesson folder; check the
  // resolved path too (a symlinked folder), since this overwrites a file.
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(lesson.dir, ec);
  fs::path real = fs::weakly_canonical(file, ec);
  auto rel = real.lexically_relative(dir);
  if (rel.empty() || *rel.begin() == "..")
    throw std::runtime_error(fmt::format("{}: outside the lesson folder {}; reset refuses to overwrite it", file.string(), dir.string()));
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
