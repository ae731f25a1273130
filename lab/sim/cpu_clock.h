// lab/sim/cpu_clock.h: CPU time of the calling thread, which other jobs on
// the machine do not inflate (wall time does, up to 10x under load): the
// simulator's own speed figures are rates per CPU second.
#pragma once

#include <ctime>

namespace lab::sim {

inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

}  // namespace lab::sim
