// lab/sim/simt.h: a warp's SIMT paths under independent thread scheduling.
//
// exec.cpp runs a warp as one current path (pc, mask, rpc) over a stack of
// suspended ones (post-dominator reconvergence, as GPGPU-Sim). Since Volta a
// warp's threads are scheduled independently (CUDA Programming Guide,
// "Independent Thread Scheduling"): lanes on one side of a branch cannot
// starve the other side. The lab keeps the stack, which reconverges exactly
// where a pre-Volta GPU would and so keeps the counts the lessons measure,
// and adds the two moves that ITS makes necessary, used only where the stack
// alone would stop:
//   park_lanes / rejoin_lanes  lanes at a block-wide barrier wait off the
//                              stack while the rest of the warp runs on
//                              (to the same barrier, or to exit);
//   yield_path                 a diverged path that spins hands the warp to
//                              lanes suspended elsewhere (the lock holder).
#pragma once

#include <cstdint>

#include "lab/sim/warp.h"

namespace lab::sim {

// Backward branches a diverged path takes, without reconverging, before it
// yields to the warp's other lanes. Any bound makes a spin lock finish; a
// long one leaves ordinary divergent loops reconverging where they did.
constexpr uint32_t kSpinYield = 4096;

// Removes lanes `m` from the warp for good (exit / ret from the kernel).
void retire_lanes(WarpState& w, uint32_t m);

// Takes the current path's lanes `m` off the warp's paths and parks them at
// barrier `pc`; the warp goes on with its next suspended path.
void park_lanes(WarpState& w, uint32_t m, uint32_t pc);

// Parked lanes rejoin the current path at the barrier it reached: they go
// where it goes and reconverge wherever it reconverges.
void rejoin_lanes(WarpState& w, uint32_t m);

// Suspends the current path (resuming at w.pc) and makes lanes suspended
// elsewhere in the warp current. Returns false when no other lanes wait.
bool yield_path(WarpState& w);

}  // namespace lab::sim
