// tests/test_ptx.cpp: the PTX parser on hand-written snippets (decoded
// fields, symbols, labels, .loc) and on real NVRTC output.
#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <string>

#include "lab/ptx/cfg.h"
#include "lab/ptx/parser.h"

using namespace lab::ptx;

namespace {

// Wraps a kernel body in a minimal module.
std::string module_with(const std::string& params, const std::string& body) {
  return ".version 9.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(" + params + ")\n{\n" + body +
         "\n}\n";
}

const Kernel& only_kernel(const Module& m) {
  REQUIRE(m.kernels.size() == 1);
  return m.kernels[0];
}

uint32_t slot_of(const Kernel& k, const std::string& prefix, uint32_t n) {
  for (const RegDecl& d : k.regs)
    if (d.prefix == prefix && n < d.count) return d.first_slot + n;
  FAIL("no register " << prefix << n);
  return kNoReg;
}

}  // namespace

TEST_CASE("registers get dense slots, params fold into ld.param addresses") {
  Module m = parse(module_with(".param .u32 k_param_0, .param .u64 k_param_1, .param .align 4 .b8 k_param_2[12], .param .u8 k_param_3",
                               R"(
  .reg .pred %p<3>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r1, [k_param_0];
  ld.param.u64 %rd1, [k_param_1];
  ld.param.u32 %r2, [k_param_2+8];
  ld.param.u8 %r3, [k_param_3];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2+-4], %r1;
  ret;)"),
                   "t.ptx");
  const Kernel& k = only_kernel(m);
  CHECK(k.num_slots == 3 + 5 + 4);
  REQUIRE(k.params.size() == 4);
  CHECK(k.params[0].offset == 0);
  CHECK(k.params[1].offset == 8);   // u64 aligned to 8
  CHECK(k.params[2].offset == 16);  // .align 4 array
  CHECK(k.params[2].size == 12);
  CHECK(k.params[3].offset == 28);
  CHECK(k.param_bytes == 29);
  CHECK(k.params[1].is_pointer_hint);
  CHECK_FALSE(k.params[0].is_pointer_hint);
  REQUIRE(k.code.size() == 7);
  const Instr& ld = k.code[2];
  CHECK(ld.op == Op::Ld);
  CHECK(ld.space == Space::Param);
  CHECK(ld.type == Type::U32);
  CHECK(ld.ops[0].kind == OperandKind::Reg);
  CHECK(ld.ops[0].reg == slot_of(k, "%r", 2));
  CHECK(ld.ops[1].kind == OperandKind::Addr);
  CHECK(ld.ops[1].reg == kNoReg);
  CHECK(ld.ops[1].imm == 24);
  const Instr& st = k.code[5];
  CHECK(st.op == Op::St);
  CHECK(st.space == Space::Global);
  CHECK(st.ops[0].reg == slot_of(k, "%rd", 2));
  CHECK(st.ops[0].imm == -4);
  CHECK(st.ops[1].reg == slot_of(k, "%r", 1));
  CHECK(k.code[4].op == Op::Cvta);
  CHECK(k.code[4].cvta_to);
  CHECK(k.code[4].space == Space::Global);
  CHECK(k.code[6].op == Op::Ret);
}
