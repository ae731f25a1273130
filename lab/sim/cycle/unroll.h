// lab/sim/cycle/unroll.h: the loops ptxas unrolls, timed as unrolled.
//
// NVRTC's PTX keeps some short loops with a constant trip count that ptxas
// then unrolls completely. 04_blocktile_1d's inner loop over k (BK = 8) is
// unrolled by 2 in the PTX, four iterations of 38 instructions; the sm_90
// SASS (docs/fidelity/h200/gemm-sm90.sass.xz) has no loop there: its A-tile
// reads, scalar ld.shared at [r + 0], [r + 4] in one PTX iteration and
// [r + 8], [r + 12] in the next, are one LDS.128 per four (16 LDS.128 and
// 8 LDS per tile, where the PTX issues 72 loads), and the loop's counter,
// compare, branch and pointer increments are gone (folded into the
// addresses). 05_blocktile_2d's k loop (8 iterations of 85 instructions)
// stays a loop in the same SASS.
//
// So a loop whose body is one basic block ending in its back edge, counted
// by a register that starts at a constant (an immediate, or a register the
// kernel sets once, to one), steps by a constant and is compared with a
// constant, is treated as ptxas would unroll it when its
// unrolled length is at most kUnrollMaxInstructions: the shared-load merges
// (decode.h) run over the body repeated trip times, and in every iteration
// but the last the counter's update, its compare, the back edge and the
// updates of registers used only as shared-memory addresses take no issue
// slot. The trace's instances get these flags per iteration (TraceInst).
#pragma once

#include <cstdint>
#include <vector>

#include "lab/ptx/module.h"
#include "lab/sim/cycle/decode.h"
#include "lab/sim/cycle/trace.h"

namespace lab::sim::cycle {

// Unrolled length (PTX instructions, body x trip count) up to which ptxas
// is taken to unroll a constant-trip loop. In the sm_90 SASS of NVRTC's
// PTX: 04's 152 (38 x 4) and lesson 13's fused P V loop, 300 (75 x 4),
// were unrolled; lesson 13's score loop, 364 (91 x 4), and 05's 680
// (85 x 8) were not (ptxas 13.0; nvdisasm of the cubins, docs/timing-model.md).
// Any bound from 300 to 363 fits the four; ptxas's own heuristic is not
// published.
constexpr uint32_t kUnrollMaxInstructions = 320;

// A loop with a run-time trip count is unrolled by ptxas too, by four, when
// NVRTC's PTX counts it down to zero (unroll.cpp counts_down: the main loop
// of the front end's own unrolling by four), unless a `.pragma "nounroll"`
// opens it (the front end's remainder loops) or its body calls a slow path
// (IEEE division). In the sm_90 SASS of ptxas 13.0 (nvdisasm of nvcc's
// cubins): lesson 10's column sum (16 PTX instructions, 4 loads) becomes a
// loop of 16 LDG then 16 FADD; lessons 3, 7, 9 (sum and scan), 8's softmax
// (two of its three loops), and the pointer chases of the mechanism suite
// likewise, four iterations a group; every loop stepped by a register (grid
// strides), compared with a bound, or marked nounroll stays one iteration.
// Inside a group the back edges and the counter's step and compare are gone,
// and ptxas gives each iteration its own registers, so a load of a later
// iteration issues ahead of the earlier iterations' arithmetic (hoist.h).
constexpr uint32_t kRuntimeUnroll = 4;


// The loops of `kernel` ptxas would unroll, with their flags (decode_kernel
// stores them in DecodedKernel::unrolled).
std::vector<UnrolledLoop> find_unrolled_loops(const ptx::Kernel& kernel, const DecodedKernel& dk);

// Sets every instance's merge / merged_away / folded in `w` (before the load
// scheduling of hoist.h reorders it): decode.h's static merges, and per
// iteration inside the loops of dk.unrolled.
void apply_sass_shape(const DecodedKernel& dk, WarpTrace& w);

}  // namespace lab::sim::cycle
