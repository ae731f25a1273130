// lab/cli/signal_scope.h: a handler for the signals that stop a command
// (SIGTERM, SIGHUP, SIGINT) while a child process runs, the previous
// handlers restored when the scope ends. `gpulab run` passes them on to the
// program; a program check removes its temporary file.
#pragma once

#include <csignal>

namespace lab::cli {

class SignalScope {
 public:
  explicit SignalScope(void (*handler)(int)) {
    struct sigaction sa {};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < kCount; ++i) sigaction(kSignals[i], &sa, &old_[i]);
  }
  ~SignalScope() {
    for (int i = 0; i < kCount; ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

 private:
  static constexpr int kCount = 3;
  static constexpr int kSignals[kCount] = {SIGTERM, SIGHUP, SIGINT};
  struct sigaction old_[kCount] {};
};

}  // namespace lab::cli
