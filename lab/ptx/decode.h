// lab/ptx/decode.h: one instruction's opcode text + parsed operands -> Instr
// (internal to the parser). The parser resolves names; the decoder knows the
// instruction families: modifiers, operand counts and operand layout.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lab/ptx/module.h"

namespace lab::ptx::detail {

enum : uint8_t { kLitInt, kLitF32Bits, kLitF64Bits, kLitDecimal };

struct RawOperand {
  Operand op;
  bool pipe = false;         // written after '|' (second destination)
  uint8_t literal = kLitInt; // how an Imm was written
  double decimal = 0;        // value of a decimal float literal
};

// Operand::reg of an Addr/Symbol that names a variable whose address the
// decoder must not see as a register: kSharedSymbolBase + index into
// Kernel::shared_vars (offset known only once the kernel's shared layout is
// complete; patched at kernel end), kLocalSymbolBase + index into
// Kernel::local_vars (patched right after decoding).
constexpr uint32_t kSharedSymbolBase = 0xC000'0000u;
constexpr uint32_t kLocalSymbolBase = 0xD000'0000u;
constexpr bool is_pending_shared(uint32_t reg) { return reg >= kSharedSymbolBase && reg < kLocalSymbolBase; }
constexpr bool is_pending_local(uint32_t reg) { return reg >= kLocalSymbolBase && reg < 0xE000'0000u; }

// A reason the instruction cannot be decoded; the parser adds line and kernel.
struct DecodeError {
  std::string message;
};

// Why a known instruction family is not modelled ("the lab's simulator does
// not model texture fetches"), or nullptr if the decoder may handle it. Checked
// before operands are parsed, since such operands may not parse either.
const char* unsupported_family(std::string_view opcode);

// Fills `in` from the opcode text ("ld.global.nc.v4.f32") and operands.
// Throws DecodeError.
void decode_instruction(std::string_view opcode, std::vector<RawOperand>& raw, Instr& in);

}  // namespace lab::ptx::detail
