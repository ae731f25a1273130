// visual/cycle_state.h: the cycle model's picture at one cycle, read from the
// timeline's data (CycleTimeline, copied from lab/sim/cycle's events). The
// one place that says what a warp slot is doing at cycle c, and the one
// cycle cursor the SM grid, the block view and the timeline share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "visual/view_model.h"

namespace lab::visual {

// What warp slot `w` is doing at cycle `c`: issuing (with the pc), waiting
// (with the Nsight stall reason and the pc it waits to issue, where Nsight's
// PC sampling attributes a stall), not yet resident, or done (its warp
// exited; the slot stays empty until the next block arrives).
WarpAtCycle warp_at_cycle(const TimelineWarp& w, uint64_t c);

// Counts over a side's warp slots at cycle c: by kind, and waits by reason.
struct SideAtCycle {
  uint32_t issuing = 0, waiting = 0, not_resident = 0, done = 0;
  std::vector<uint32_t> by_reason;  // waiting warps per reason (CycleTimeline::reasons)
};
SideAtCycle side_at_cycle(const CycleTimeline& T, const TimelineSide& s, uint64_t c);

// Issues of scheduler q in [from, to): a scheduler issues at most one warp
// instruction a cycle, so to - from - issues of its slots stayed idle.
uint64_t issues_between(const TimelineSide& s, uint32_t q, uint64_t from, uint64_t to);

// The colour a warp slot is drawn in: issuing and each stall reason as the
// timeline's legend has them (theme.h's stall_color), not resident, done.
uint32_t warp_at_cycle_color(const CycleTimeline& T, const WarpAtCycle& a);
std::string warp_at_cycle_text(const CycleTimeline& T, const WarpAtCycle& a);  // "long_scoreboard", "issuing", ...

// The shared cycle cursor: where it opens (--at's fraction, else the
// timeline's idle stretch) and the clock that plays it. Called once a frame.
void advance_cycle_clock(const ViewModel& vm, UiState& ui);
uint64_t cycle_span(const CycleTimeline& T);  // the longer side's drawn cycles

// The cursor's controls (play, slider "cycle N of M") and the stall legend,
// for every pane that draws cycles.
void cycle_controls(const CycleTimeline& T, UiState& ui);
// states: add "not resident" and "done"; `present` (by reason, when given):
// only the reasons it marks (a short pane's legend of what is on screen).
void stall_legend(const CycleTimeline& T, bool states, const std::vector<bool>* present = nullptr);

constexpr uint32_t kNoWarpColor = 0xFF28211Eu;  // IM_COL32(30, 33, 40, 255): no warp in the slot

}  // namespace lab::visual
