// lab/sim/cycle/hoist.h: global loads issued as early as their operands
// allow, as the machine code would have them.
//
// The interpreter runs PTX, and the cycle model issues a warp's instructions
// in the PTX's order. The GPU runs SASS, and ptxas, which makes the SASS,
// "schedules loads early" (NVIDIA's njuffa on the NVIDIA developer forums,
// "PTX instructions are reordered", 2021: ptxas moved three ld.global ahead of
// the wmma.mma that separated them in the PTX, so that their latencies
// overlap). NVRTC's PTX often places each global load right before the
// instructions that use it: a tile loader's `ld.global.v4` is followed by its
// four `st.shared`, then the next `ld.global.v4` (siboehm's kernels 4-10,
// the lab's 03-07). Issued in that order, each load's latency is waited out
// before the next load leaves, eight latencies a tile instead of one.
//
// So before a warp's trace is timed, each global load moves up in it to just
// after the last instruction it must follow: one that produces its address or
// guard, reads or writes what it writes, stores to global or local memory
// (it may alias), an earlier global load (requests keep their order), or one
// no memory access crosses (bar.sync, fences, atomics, calls, exit, a loop's
// back edge: decode.h `fence`). Shared-memory accesses and forward branches
// are crossed, the branches as the predication ptxas turns short ones into.
// An instruction that only writes registers the load overwrites before
// anything reads them (the `v = 0` before `if (...) v = load`, which NVRTC's
// PTX writes into the register the next load reuses) is crossed too: its
// result is dead, so it issues without waiting for its operands and without
// writing (TraceInst::dead), as the predicated-off copy ptxas leaves of it.
#pragma once

#include "lab/sim/cycle/decode.h"
#include "lab/sim/cycle/trace.h"

namespace lab::sim::cycle {

// Reorders `w` in place (instructions and their requests); returns the loads moved.
uint32_t hoist_global_loads(const DecodedKernel& dk, WarpTrace& w);

}  // namespace lab::sim::cycle
