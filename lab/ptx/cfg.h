// lab/ptx/cfg.h: a kernel's control-flow graph and the reconvergence point of
// every branch, for the interpreter's SIMT stack.
//
// When a warp diverges at a branch, its lanes run the two paths one after the
// other and meet again at the branch block's immediate post-dominator: the
// first block every path from the branch must pass through on the way to the
// kernel's exit (the classic "stack-based reconvergence" scheme).
#pragma once

#include <cstdint>
#include <vector>

#include "lab/ptx/module.h"

namespace lab::ptx {

struct BasicBlock {
  uint32_t first = 0, end = 0;   // instruction range [first, end)
  std::vector<uint32_t> succ;    // successor block indices; `exit` block = blocks.size()
};

// Splits `k.code` into basic blocks. Leaders: instruction 0, branch targets,
// the instruction after a bra/ret/exit.
std::vector<BasicBlock> basic_blocks(const Kernel& k);

// For each instruction index i: if code[i] is a bra, the index where paths
// that diverge there reconverge (the first instruction of the immediate
// post-dominator block of i's block; k.code.size() when that is the kernel's
// exit); -1 for every other instruction.
std::vector<int32_t> ipdom_targets(const Kernel& k);

}  // namespace lab::ptx
