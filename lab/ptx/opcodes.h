// lab/ptx/opcodes.h: the Op enum and what is known about each opcode, both
// generated from the one table in lab/ptx/opcodes.def.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lab::ptx {

// One value per instruction family (PTX ISA 9.x chapter 9). Variants
// (.lo/.hi/.wide, .approx, vector width, ...) are modifiers on the Instr.
enum class Op : uint16_t {
#define OP(e, name, family, pipe, mem, flags, min_ops, max_ops, cuda) e,
#include "lab/ptx/opcodes.def"
#undef OP
  Count_
};

// Which lab/sim/exec_<family>.cpp runs an opcode. Num: Int or Float by the
// instruction's type; lab::sim::family_of resolves it per instruction.
enum class OpFamily : uint8_t { Int, Float, Num, Compare, Cvt, Memory, Warp, Matrix, Control, Nop, Unsupported };

// The SM pipe an opcode occupies, before its type is known (see opcodes.def).
enum class OpPipe : uint8_t { Alu, Move, Sfu, Div, Memory, Tensor, Control };

enum class MemDir : uint8_t { None, Load, Store, Atomic };

// OpInfo::flags
enum : uint8_t {
  kOpNone = 0,
  kOpBarrier = 1 << 0,  // the warp waits here for its CTA (bar.sync, bar.red)
  kOpExit = 1 << 1,     // retires the executing lanes (exit, ret)
  kOpBranch = 1 << 2,   // bra
  kOpAsync = 1 << 3,    // the warp does not wait for the access (cp.async, red)
};

struct OpInfo {
  const char* name;     // PTX spelling, "shfl.sync"
  OpFamily family;
  OpPipe pipe;
  MemDir mem;
  uint8_t flags;        // kOp* bits
  uint8_t min_ops, max_ops;  // plain-order operand counts; 0, 0 = own decoder
  const char* cuda;     // CUDA intrinsic, "" if none worth naming
};

inline constexpr OpInfo kOpTable[] = {
#define OP(e, name, family, pipe, mem, flags, min_ops, max_ops, cuda) \
  {name, OpFamily::family, OpPipe::pipe, MemDir::mem, kOp##flags, min_ops, max_ops, cuda},
#include "lab/ptx/opcodes.def"
#undef OP
};
static_assert(sizeof(kOpTable) / sizeof(kOpTable[0]) == size_t(Op::Count_), "one opcodes.def row per Op");

constexpr const OpInfo& op_info(Op op) { return kOpTable[size_t(op)]; }
constexpr const char* op_name(Op op) { return op < Op::Count_ ? op_info(op).name : "?"; }

}  // namespace lab::ptx
