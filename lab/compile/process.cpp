// lab/compile/process.cpp: run_capture (process.h).
#include "lab/compile/process.h"

#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <stdexcept>

namespace lab::compile {

int run_capture(const std::vector<std::string>& argv, std::string& output, bool fixed_layout) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("cannot create a pipe to run " + argv.at(0));
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error("cannot start " + argv.at(0));
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    if (fixed_layout) {
      // Both only take effect at the exec. The stack limit sets where Linux
      // puts the mmap area (shared libraries, large allocations); 8 MiB is
      // the usual default, kept within the hard limit. Where personality()
      // is refused the program still runs, as it would have in-process.
      personality(ADDR_NO_RANDOMIZE);
      rlimit stack{};
      if (getrlimit(RLIMIT_STACK, &stack) == 0) {
        const rlim_t want = rlim_t(8) << 20;
        stack.rlim_cur = stack.rlim_max == RLIM_INFINITY || stack.rlim_max >= want ? want : stack.rlim_max;
        setrlimit(RLIMIT_STACK, &stack);
      }
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::perror(args[0]);
    _exit(127);
  }
  close(fds[1]);
  std::array<char, 4096> buf;
  ssize_t n;
  while ((n = read(fds[0], buf.data(), buf.size())) > 0) output.append(buf.data(), size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace lab::compile
