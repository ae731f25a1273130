// visual/session_program.cpp: the program pane's run. A lesson step that
// shows the "program" pane names a CUDA program by its `gpulab run` command
// (the step's `run`, else the first `gpulab run ...` quoted in its text);
// the view runs it with the lab's own binary (`gpulab run ... --json`) on a
// thread of its own, so the view never reaches into the interpreter, and
// reads the runtime's device summary (lab/runtime/devices.h): each device's
// events with their predicted start and end, and its memory.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "visual/session_impl.h"

namespace lab::visual {

namespace {

// The words after "gpulab run" of the step's command; empty when it has none.
std::vector<std::string> run_words(const lesson::Step& st) {
  std::string line;
  for (const std::string* from : {&st.command, &st.text}) {
    const size_t at = from->find("gpulab run ");
    if (at == std::string::npos) continue;
    const size_t end = from->find_first_of("`\n", at);
    line = from->substr(at + 11, end == std::string::npos ? std::string::npos : end - at - 11);
    break;
  }
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;)
    if (w != "--report" && w != "--json") words.push_back(w);
  return words;
}

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

ProgramRun parse_run(const std::string& text, const std::string& errors) {
  ProgramRun r;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    r.status = "error: `gpulab run` printed no JSON" + (errors.empty() ? std::string() : ": " + errors);
    return r;
  }
  r.gpu = j.value("gpu", "");
  r.output = j.value("output", "");
  if (!j.value("ok", false)) {
    std::string why = errors;
    for (const auto& e : j.value("errors", nlohmann::json::array())) why += e.value("message", "") + " ";
    r.status = "error: the program failed (exit " + std::to_string(j.value("exit_code", -1)) + ")" +
               (why.empty() ? std::string() : ": " + why.substr(0, 400));
  }
  if (!j.contains("devices")) {
    if (r.status.empty()) r.status = "error: the run reported no devices";
    return r;
  }
  const auto& s = j["devices"];
  r.link = s.value("link", "");
  for (const auto& d : s.value("devices", nlohmann::json::array())) {
    ProgramRun::Device dev;
    dev.predicted_s = d.value("predicted_seconds", 0.0);
    dev.copy_s = d.value("copy_seconds", 0.0);
    dev.wait_s = d.value("wait_seconds", 0.0);
    dev.live_bytes = d.value("live_bytes", uint64_t(0));
    dev.peak_bytes = d.value("peak_bytes", uint64_t(0));
    dev.launches = d.value("launches", uint64_t(0));
    for (const auto& e : d.value("events", nlohmann::json::array()))
      dev.events.push_back({e.value("kind", ""), e.value("name", ""), e.value("start_s", 0.0), e.value("end_s", 0.0),
                            e.value("bytes", uint64_t(0))});
    r.timeline_s = std::max(r.timeline_s, dev.predicted_s);
    r.devices.push_back(std::move(dev));
  }
  return r;
}

}  // namespace

bool Session::Impl::program_step(int step) const {
  if (!lesson || step < 0 || step >= int(lesson->steps.size())) return false;
  const lesson::Step& st = lesson->steps[size_t(step)];
  return st.view.find("program") != std::string::npos && !run_words(st).empty();
}

void Session::Impl::program_join() {
  if (program_thread.joinable()) program_thread.join();
}

void Session::Impl::start_program(int step) {
  program_join();  // one run at a time; a step changed mid-run waits for the last
  const lesson::Step& st = lesson->steps[size_t(step)];
  std::vector<std::string> words = run_words(st);
  // --json goes with the lab's options, before the program's own (after "--").
  auto dashes = std::find(words.begin(), words.end(), "--");
  words.insert(dashes, "--json");
  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  // The lesson's paths are from the repository root: lessons/NN-topic/...
  std::filesystem::path root = std::filesystem::absolute(lesson->dir, ec).lexically_normal();
  root = root.has_filename() ? root.parent_path().parent_path() : root.parent_path().parent_path().parent_path();
  std::string cmd = "cd " + quoted(root.string()) + " && " + quoted(exe) + " run";
  std::string shown = "gpulab run";
  for (const auto& w : words) cmd += " " + quoted(w), shown += " " + w;
  base.program = ProgramRun{};
  base.program.command = shown;
  base.program.status = "running (the simulator runs every kernel of the program; a few seconds)";
  base.launch.lesson_step = step;
  program_thread = std::thread([this, cmd, shown] {
    char tmpl[] = "/tmp/gpulab-view-run-XXXXXX";
    const int fd = mkstemp(tmpl);
    if (fd >= 0) close(fd);
    const std::string err_path = fd >= 0 ? tmpl : "/dev/null";
    std::string out;
    if (FILE* p = popen((cmd + " 2>" + quoted(err_path)).c_str(), "r")) {
      char buf[65536];
      for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
      pclose(p);
    }
    std::string errors;
    if (fd >= 0) {
      std::ifstream in(err_path);
      std::stringstream ss;
      ss << in.rdbuf();
      errors = ss.str();
      std::remove(err_path.c_str());
      // The runtime's notice that its times are predictions is not an error.
      std::string kept;
      std::istringstream lines(errors);
      for (std::string l; std::getline(lines, l);)
        if (l.find("PREDICTED") == std::string::npos) kept += l + "\n";
      errors = kept.substr(0, 600);
    }
    ProgramRun r = parse_run(out, errors);
    r.command = shown;
    std::lock_guard lock(program_mu);
    program_result = std::move(r);
  });
}

void Session::Impl::program_tick(bool& dirty) {
  std::lock_guard lock(program_mu);
  if (!program_result) return;
  base.program = std::move(*program_result);
  program_result.reset();
  dirty = true;
}

}  // namespace lab::visual
