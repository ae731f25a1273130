// lab/sim/cycle/stall.cpp: names and one-line explanations of the warp
// states, following the Nsight Compute Kernel Profiling Guide's "Warp
// Scheduler States" list.
#include "lab/sim/cycle/stall.h"

namespace lab::sim::cycle {

const char* stall_name(Stall s) {
  switch (s) {
    case Stall::Selected: return "selected";
    case Stall::NotSelected: return "not_selected";
    case Stall::Wait: return "wait";
    case Stall::ShortScoreboard: return "short_scoreboard";
    case Stall::LongScoreboard: return "long_scoreboard";
    case Stall::Barrier: return "barrier";
    case Stall::MioThrottle: return "mio_throttle";
    case Stall::LgThrottle: return "lg_throttle";
    case Stall::MathPipeThrottle: return "math_pipe_throttle";
    default: return "?";
  }
}

const char* stall_explanation(Stall s) {
  switch (s) {
    case Stall::Selected: return "the warp issued an instruction (useful cycles)";
    case Stall::NotSelected: return "the warp was ready but another warp issued: there is more ready work than issue slots";
    case Stall::Wait: return "fixed-latency dependency: the next instruction needs an arithmetic result still in the pipe";
    case Stall::ShortScoreboard: return "waiting for shared memory or a special-math (MUFU) result; bank conflicts lengthen it";
    case Stall::LongScoreboard: return "waiting for global/local memory (L1, L2 or DRAM); more warps or more loads in flight hide it";
    case Stall::Barrier: return "waiting at __syncthreads() for the block's slower warps";
    case Stall::MioThrottle: return "the shared-memory/MIO queue is full: too many shared or special-math instructions at once";
    case Stall::LgThrottle: return "the global-memory (LSU) queue is full: too many uncoalesced or small requests; widen or coalesce them";
    case Stall::MathPipeThrottle: return "the execution pipe (FP32/FP64/INT/tensor) is busy: the kernel is close to that pipe's peak";
    default: return "";
  }
}

}  // namespace lab::sim::cycle
