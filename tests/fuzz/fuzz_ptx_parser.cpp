// tests/fuzz/fuzz_ptx_parser.cpp: libFuzzer target for the PTX parser.
//
// Any byte string must either parse into a Module that keeps module.h's
// invariants (the interpreter indexes with these values unchecked) or throw
// lab::ptx::ParseError. Anything else (another exception, a sanitizer
// report, a broken invariant) is a finding.
//
// Built as a fuzzer with -DGPULAB_FUZZ=ON (clang); tests/test_fuzz_corpus.cpp
// includes this file with GPULAB_FUZZ_NO_MAIN to replay the corpus in CI.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "lab/ptx/parser.h"

namespace lab::fuzz {

// Aborts (a crash libFuzzer records with its input) when a decoded module
// breaks a promise module.h makes to the interpreter.
inline void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "module invariant broken: %s\n", what);
    std::abort();
  }
}

inline void check_operand(const ptx::Kernel& k, const ptx::Operand& o) {
  using ptx::OperandKind;
  switch (o.kind) {
    case OperandKind::Reg:
      require(o.reg < k.num_slots || o.reg == ptx::kSinkReg, "register operand slot < num_slots");
      break;
    case OperandKind::Addr:
      require(o.reg == ptx::kNoReg || o.reg < k.num_slots, "address base slot < num_slots");
      break;
    case OperandKind::Vec:
      require(uint64_t(o.reg) + o.vec_len <= k.vec_slots.size(), "vector operand inside vec_slots");
      for (uint32_t i = 0; i < o.vec_len && uint64_t(o.reg) + i < k.vec_slots.size(); ++i) {
        uint32_t s = k.vec_slots[o.reg + i];
        require(s < k.num_slots || s == ptx::kSinkReg, "vector element slot < num_slots");
      }
      break;
    case OperandKind::Special:
      require(o.reg < uint32_t(ptx::Special::Count_), "special register in range");
      break;
    default:
      break;
  }
}

inline void check_module(const ptx::Module& m) {
  for (const auto& k : m.kernels) {
    require(!k.locs.empty(), "locs[0] is the empty location");
    // A .loc may name a file the module never declares (nvcc puts .file
    // directives last, so the parser cannot refuse it early): consumers
    // bound-check SourceLoc::file (exec.cpp does), so it is not checked here.
    uint64_t param_end = 0;
    for (const auto& p : k.params) param_end = std::max<uint64_t>(param_end, uint64_t(p.offset) + p.size);
    require(param_end <= k.param_bytes, "params inside param_bytes");
    for (const auto& in : k.code) {
      require(in.num_ops <= ptx::kMaxOperands, "num_ops <= kMaxOperands");
      require(in.loc < k.locs.size(), "instr loc < locs.size()");
      require(in.guard == ptx::kNoReg || in.guard < k.num_slots, "guard slot < num_slots");
      if (in.op == ptx::Op::Bra)
        require(in.target >= 0 && uint64_t(in.target) <= k.code.size(), "branch target inside code");
      for (int i = 0; i < in.num_ops; ++i) check_operand(k, in.ops[i]);
    }
  }
}

// One input. Returns 0 like LLVMFuzzerTestOneInput.
inline int fuzz_ptx_parser_one(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    ptx::Module m = ptx::parse(text, "fuzz.ptx");
    check_module(m);
  } catch (const ptx::ParseError&) {
    // The documented way to refuse a text.
  }
  return 0;
}

}  // namespace lab::fuzz

#ifndef GPULAB_FUZZ_NO_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return lab::fuzz::fuzz_ptx_parser_one(data, size);
}
#endif
