// lab/sim/cycle/stall.h: warp states in Nsight Compute's vocabulary
// (smsp__pcsamp_warps_issue_stalled_* / "Warp State Statistics"). Every
// cycle a resident warp spends is attributed to exactly one state, at the
// pc of the instruction it is waiting to issue, as Nsight's PC sampling does.
#pragma once

#include <cstdint>

namespace lab::sim::cycle {

enum class Stall : uint8_t {
  Selected,          // issued an instruction this cycle
  NotSelected,       // eligible, but the scheduler picked another warp
  Wait,              // fixed-latency dependency (ALU, FMA, tensor result)
  ShortScoreboard,   // waiting for an MIO result: shared memory, special math (MUFU)
  LongScoreboard,    // waiting for an L1TEX result: global, local memory
  Barrier,           // waiting at bar.sync for the block's other warps
  MioThrottle,       // MIO queue full (shared memory / special math backlog)
  LgThrottle,        // LSU queue for global/local memory full
  MathPipeThrottle,  // the instruction's execution pipe is busy
  Count_
};
constexpr int kStallCount = int(Stall::Count_);

const char* stall_name(Stall s);         // Nsight's name: "long_scoreboard", "selected", ...
const char* stall_explanation(Stall s);  // one line for the text report

}  // namespace lab::sim::cycle
