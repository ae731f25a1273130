// lab/sim/launch_progress.h: what a person waiting on a long simulated
// launch sees (`gpulab sim`, and each launch of a `gpulab run` program): on
// a terminal, a progress line redrawn at most twice a second with the time
// left extrapolated from the blocks done; otherwise one estimate line once
// more than 5 s are left. Plug into SimOptions::progress.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <fmt/format.h>

namespace lab::sim {

struct LaunchProgress {
  std::string who = "gpulab";  // how the lines begin: "gpulab sim", "gpulab: launch #3 matmul"
  bool tty = false, shown = false, estimated = false;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now(), last{};

  void operator()(uint64_t done, uint64_t total) {
    auto now = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(now - t0).count();
    if (done == 0 || s < 1.0 || done >= total) {
      if (done >= total && shown && tty) std::fprintf(stderr, "\r%-78s\r", "");
      return;
    }
    double left = s * double(total - done) / double(done);
    if (!tty) {
      if (!estimated && left > 5)
        std::fprintf(stderr, "%s: about %s left at this machine's speed (%llu of %llu blocks after %.0f s)\n",
                     who.c_str(), human_seconds(left).c_str(), (unsigned long long)done, (unsigned long long)total, s);
      estimated = true;
      return;
    }
    if (now - last < std::chrono::milliseconds(500)) return;
    last = now;
    shown = true;
    std::fprintf(stderr, "\r  %s: %llu / %llu blocks (%.1f%%), about %s left; Ctrl-C stops   ", who.c_str(),
                 (unsigned long long)done, (unsigned long long)total, 100.0 * double(done) / double(total),
                 human_seconds(left).c_str());
  }
  static std::string human_seconds(double s) {
    if (s < 90) return fmt::format("{:.0f} s", s);
    if (s < 5400) return fmt::format("{:.0f} min", s / 60);
    if (s < 172800) return fmt::format("{:.1f} h", s / 3600);
    return fmt::format("{:.1f} days", s / 86400);
  }
};

}  // namespace lab::sim
