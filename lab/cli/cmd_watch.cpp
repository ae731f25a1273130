// gpulab watch [ID]: re-check the current exercise whenever its file is
// saved. Keys: h hint, n next exercise, l list, q quit. Plain terminal: the
// file's mtime is polled (no inotify dependency) and stdin is put in raw mode
// with termios so that a key acts without Enter.
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "lab/cli/command.h"
#include "lab/cli/gpu_option.h"
#include "lab/lesson/workspace.h"

namespace lab::cli {
namespace {

namespace fs = std::filesystem;

struct WatchArgs {
  std::string id, lessons_dir, gpu = "H100";
  bool once = false;  // check once and exit (scripts, tests)
};

// Raw keyboard input for the lifetime of the object; restores the terminal.
class RawTerminal {
 public:
  RawTerminal() {
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    termios raw = saved_;
    raw.c_lflag &= ~(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    active_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
  }
  ~RawTerminal() {
    if (active_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }

 private:
  termios saved_{};
  bool active_ = false;
};

// Waits up to `ms` for a key; returns 0 when none (or stdin closed).
char poll_key(int ms, bool& stdin_open) {
  if (!stdin_open) {
    usleep(useconds_t(ms) * 1000);
    return 0;
  }
  pollfd p{STDIN_FILENO, POLLIN, 0};
  if (poll(&p, 1, ms) <= 0) return 0;
  char c = 0;
  ssize_t n = read(STDIN_FILENO, &c, 1);
  if (n <= 0) stdin_open = false;
  return n == 1 ? c : 0;
}

// The check runs on a worker thread beside the key loop, so `q`, `h` and a
// new save act at once: a save or `q` cancels the running check through the
// simulator's cancel flag (a cancelled check records nothing).
class CheckRun {
 public:
  ~CheckRun() { stop(); }
  void start(lesson::Workspace& ws, const lesson::Lesson& L, const lesson::Exercise& E, const lesson::CheckOptions& o) {
    stop();
    cancel_ = false;
    finished_ = false;
    worker_ = std::thread([this, &ws, &L, &E, o] {
      bool cancelled = false;
      std::string text;
      bool passed = false;
      try {
        auto r = ws.check_and_record(L, E, o, &cancel_, &cancelled);
        passed = r.passed;
        text = lesson::format_report(r) + ws.followup(L, E, r);
      } catch (const std::exception& e) {
        text = fmt::format("gpulab watch: {}\n", e.what());
      }
      std::lock_guard lock(mutex_);
      if (!cancelled) {
        fmt::print("{}", text);
        if (!ws.note.empty()) fmt::print(stderr, "{}", ws.note), ws.note.clear();
        fmt::print("[save the file to re-check; h hint, n next, l list, q quit]\n");
        std::fflush(stdout);
      }
      passed_ = passed;
      finished_ = true;
    });
  }
  void stop() {
    if (!worker_.joinable()) return;
    cancel_ = true;
    worker_.join();
  }
  void wait() {
    if (worker_.joinable()) worker_.join();
  }
  bool finished() const { return finished_; }
  bool passed() const { return passed_; }
  std::mutex& output() { return mutex_; }

 private:
  std::thread worker_;
  std::atomic<bool> cancel_{false}, finished_{false}, passed_{false};
  std::mutex mutex_;
};

int run_watch(const WatchArgs& a) {
  auto ws = lesson::Workspace::open(a.lessons_dir);
  lesson::Selection s = a.id.empty() ? lesson::next_unfinished(ws.lessons, *ws.progress) : lesson::select(ws.lessons, a.id);
  if (!s.lesson) {
    fmt::print("Every exercise is done.\n");
    return kExitOk;
  }
  const lesson::Lesson* L = s.lesson;
  const lesson::Exercise* E = s.exercises.front();
  lesson::CheckOptions o;
  o.gpu = &resolved_gpu(a.gpu);
  auto mtime = [&] {
    std::error_code ec;
    auto t = fs::last_write_time(L->path(E->file), ec);
    return ec ? fs::file_time_type{} : t;
  };
  CheckRun run;
  auto check = [&] {
    {
      std::lock_guard lock(run.output());
      fmt::print("\n== {}/{}: checking {} ==\n", L->id, E->id, L->path(E->file));
      std::fflush(stdout);
    }
    run.start(ws, *L, *E, o);
  };
  check();
  if (a.once) {
    run.wait();
    return run.passed() ? kExitOk : kExitKernelFault;
  }
  RawTerminal raw;
  bool stdin_open = true;
  auto last = mtime();
  for (;;) {
    char c = poll_key(100, stdin_open);
    if (c == 'q') break;
    if (c == 'h') {
      std::lock_guard lock(run.output());
      fmt::print("{}", ws.next_hint(*L, *E)), std::fflush(stdout);
    }
    if (c == 'l') {
      std::lock_guard lock(run.output());
      ws.progress->reload();
      for (const auto& l : ws.lessons)
        for (const auto& e : l.exercises)
          fmt::print("  [{}] {}/{}{}\n", ws.progress->done(l.id, e.id) ? "x" : " ", l.id, e.id, (&e == E) ? "  <- watching" : "");
      std::fflush(stdout);
    }
    if (c == 'n') {
      run.stop();
      ws.progress->reload();
      auto nx = lesson::next_after(ws.lessons, *ws.progress, *L, *E);
      if (!nx.lesson) {
        fmt::print("Every exercise is done.\n");
      } else {
        L = nx.lesson, E = nx.exercises.front();
        last = mtime();
        check();
      }
    }
    auto now = mtime();
    if (now != last) {
      last = now;
      usleep(100 * 1000);  // let the editor finish writing
      last = mtime();
      check();             // cancels a check of the older version
    }
  }
  run.stop();
  return kExitOk;
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  auto* a = new WatchArgs;
  auto* cmd = app.add_subcommand("watch", "Re-check the current exercise every time you save it");
  cmd->add_option("id", a->id, "Lesson or lesson/exercise id (default: the next unfinished exercise)");
  cmd->add_option("--lessons", a->lessons_dir, "Lessons folder");
  add_gpu_option(cmd, a->gpu, "GPU model for the metrics (default H100)");
  cmd->add_flag("--once", a->once, "Check once and exit");
  cmd->callback([a, &rc] { rc = run_watch(*a); });
});

}  // namespace
}  // namespace lab::cli
