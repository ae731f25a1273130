// lab/sim/sanitize.h: the kernel checks behind check.h's hooks (`--check`).
//
// One Sanitizer per block watches every memory access, barrier and warp-sync
// instruction the interpreter reports and names the bugs a GPU would answer
// with garbage or a hang (compute-sanitizer's memcheck/racecheck/synccheck/
// initcheck, on the CPU):
//   race               shared memory: read-after-write, write-after-read and
//                      write-after-write between threads of different warps
//                      with no barrier between them; lanes of one warp
//                      storing different values to one address in one
//                      instruction. Atomics never race with atomics.
//   uninitialized-read shared memory nothing in the block wrote, or bytes of
//                      a buffer created uninitialised (`=uninit`) that no
//                      thread of the launch wrote.
//   barrier-divergence a barrier some live lanes of a warp skip, warps that
//                      wait at different barrier instructions, or warps that
//                      finish having passed fewer barriers than the others.
//   invalid-mask       shfl/vote/match/redux/bar.warp.sync whose member mask
//                      names exited or absent lanes, lanes not executing it,
//                      or omits a lane that executes it.
// The interpreter itself faults on out-of-bounds (exact buffer bounds when
// checks are on), misaligned accesses, deadlocks and hangs; hang messages get
// the loop's source lines from describe_loop below.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lab/sim/check.h"

namespace lab::sim {

// The block checker check.cpp's make_block_checker returns.
std::unique_ptr<BlockChecker> make_sanitizer(const CheckContext& ctx);

// "the loop at lines 12-14 (PTX lines 40-52)": the innermost backward branch
// around `pc`, for hang reports. "" when `pc` is in no loop.
std::string describe_loop(const ptx::Module& module, const ptx::Kernel& kernel, uint32_t pc);

}  // namespace lab::sim
