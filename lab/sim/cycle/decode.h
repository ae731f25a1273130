// lab/sim/cycle/decode.h: what the cycle model needs to know about each
// instruction of a kernel, decided once per launch: which unit executes it,
// its result latency and which register slots it reads and writes (the
// scoreboard's inputs), from the decoded ptx::Instr.
#pragma once

#include <cstdint>
#include <vector>

#include "lab/ptx/module.h"
#include "lab/sim/cycle/params.h"
#include "lab/sim/cycle/stall.h"

namespace lab::sim::cycle {

enum class Unit : uint8_t { Fp32, Int, Fp64, Sfu, Tensor, Memory, Control, Barrier, AsyncWait };

struct DecodedInstr {
  Unit unit = Unit::Int;
  Stall dep = Stall::Wait;   // what a consumer of its result waits on (Wait / ShortScoreboard / LongScoreboard)
  uint32_t latency = 4;      // result latency when it is not a memory access
  double hold = 1;           // cycles it holds its pipe in the sub-partition
  uint32_t first = 0;        // slots in DecodedKernel::slots: [first, first + reads) read, then `writes` written
  uint16_t reads = 0, writes = 0;
  bool async_copy = false;   // cp.async: completion tracked per warp, awaited by cp.async.wait_*
  // For the load scheduling of hoist.h: a plain (non-volatile) ld/ldu, which
  // may move up if its trace request is global; an instruction no memory
  // access may be moved above (barrier, fence, atomic, call, exit, a branch
  // to an earlier instruction: a loop's back edge).
  bool plain_load = false;
  bool fence = false;
  bool block_start = false;   // leads a basic block (ptx/cfg.h: a branch target, or after bra/ret/exit)
};

struct DecodedKernel {
  std::vector<DecodedInstr> code;
  std::vector<uint32_t> slots;  // dense scoreboard indices, not PTX slots
  uint32_t num_slots = 0;       // scoreboard entries per warp
};

DecodedKernel decode_kernel(const ptx::Kernel& kernel, const CycleParams& p);

}  // namespace lab::sim::cycle
