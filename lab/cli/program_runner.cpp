// lab/cli/program_runner.cpp: how `gpulab check` runs a program exercise
// (lab/lesson/check_program.cpp): through `gpulab run --json`, the same path
// a student's own `gpulab run` takes, so the check sees what they see.
// Installed at start-up, as commands register themselves.
#include <csignal>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lab/program/build.h"
#include "lab/cli/signal_scope.h"
#include "lab/lesson/check.h"

namespace lab::cli {
using namespace lab::program;  // building a program (lab/program/build.h)
namespace {

// One shell word: '...' with any ' inside closed, escaped and reopened.
std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The temporary files of the runs in progress (a program check runs several
// side by side, lab/lesson/check_program.cpp): removed if the check is
// stopped by a signal while they run (a killed check leaves nothing behind).
// A fixed table, since the handler may only touch what is async-signal-safe.
constexpr int kMaxRuns = 16;
char g_err_paths[kMaxRuns][64] = {};
extern "C" void remove_and_reraise(int sig) {
  for (auto& p : g_err_paths)
    if (p[0]) unlink(p);
  signal(sig, SIG_DFL);
  raise(sig);
}
// A run in progress: its file in the table, and the handler installed while
// any run is in progress (by the first to start; the previous one restored by
// the last to end).
std::mutex g_runs_m;
int g_runs = 0;
std::optional<SignalScope> g_cleanup;
class RunInProgress {
 public:
  explicit RunInProgress(const char* err_path) {
    std::lock_guard<std::mutex> lock(g_runs_m);
    if (g_runs++ == 0) g_cleanup.emplace(remove_and_reraise);
    for (int i = 0; err_path[0] && i < kMaxRuns && slot_ < 0; ++i)
      if (!g_err_paths[i][0]) {
        std::snprintf(g_err_paths[i], sizeof g_err_paths[i], "%s", err_path);
        slot_ = i;
      }
    // More runs than slots: this one's file is not removed on a signal.
  }
  ~RunInProgress() {
    std::lock_guard<std::mutex> lock(g_runs_m);
    if (slot_ >= 0) g_err_paths[slot_][0] = 0;
    if (--g_runs == 0) g_cleanup.reset();
  }
  RunInProgress(const RunInProgress&) = delete;
  RunInProgress& operator=(const RunInProgress&) = delete;

 private:
  int slot_ = -1;
};

std::string run_for_check(const std::vector<std::string>& sources, const std::vector<std::string>& defines,
                          const lesson::ProgramRun& run, const sim::GpuModel& gpu) {
  std::string cmd = quoted(gpulab_dir() + "/gpulab") + " run";
  for (const auto& s : sources) cmd += " " + quoted(s);
  // --check: the kernel checks, and the order between GPUs (lab/runtime/stream_order.h).
  cmd += fmt::format(" --json --check --gpu {} --gpus {} --link {}", quoted(std::string(gpu.name)), run.gpus,
                     quoted(run.link));
  // Lesson 10's task header by absolute path: the lessons folder may be a copy away from the lab's sources.
  cmd += " -D " + quoted(fmt::format("MLP_TASK_HEADER=\"{}\"", GPULAB_SOURCE_DIR "/lab/cpu/mlp_task.h"));
  for (const auto& d : defines) cmd += " -D " + quoted(d);
  // The program's stderr (the runtime's refusals, CUDA_CHECK's messages) is
  // kept apart and added to the JSON as "stderr", for the check to quote.
  char err_path[] = "/tmp/gpulab-check-XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd >= 0) close(fd);
  cmd += " -- " + run.args + " 2>" + (fd >= 0 ? quoted(err_path) : std::string("/dev/null"));
  std::string out;
  {
    RunInProgress in_progress(fd >= 0 ? err_path : "");
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[65536];
      size_t n;
      while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
      pclose(p);
    }
  }
  if (fd < 0) return out;
  std::ifstream in(err_path);
  std::stringstream err;
  err << in.rdbuf();
  std::remove(err_path);
  nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return out;
  j["stderr"] = err.str();
  return j.dump();
}

const bool installed = lesson::set_program_runner(run_for_check);

}  // namespace
}  // namespace lab::cli
