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

TEST_CASE("shared variables fold into addresses; extern shared starts after static shared") {
  std::string text = R"(
.version 9.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry k()
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  .shared .align 4 .b8 tileA[100];
  .shared .align 8 .b8 tileB[64];
  ld.shared.f32 %r1, [tileA+8];
  st.shared.u32 [tileB], %r1;
  mov.u32 %r2, tileB;
  mov.u32 %r3, dyn;
  ld.shared.u32 %r4, [dyn+4];
  mov.u64 %rd1, tileA;
  cvta.shared.u64 %rd2, %rd1;
  ld.u32 %r5, [tileB+4];
  ret;
}
)";
  Module m = parse(text, "s.ptx");
  const Kernel& k = only_kernel(m);
  REQUIRE(k.shared_vars.size() == 3);
  CHECK(k.shared_vars[0].name == "tileA");
  CHECK(k.shared_vars[0].offset == 0);
  CHECK(k.shared_vars[1].offset == 104);  // 100 rounded up to .align 8
  CHECK(k.static_shared_bytes == 168);
  CHECK(k.dynamic_shared_offset == 176);  // aligned to the extern's .align 16
  CHECK(k.shared_vars[2].is_extern);
  CHECK(k.shared_vars[2].offset == 176);
  CHECK(k.code[0].ops[1].kind == OperandKind::Addr);
  CHECK(k.code[0].ops[1].reg == kNoReg);
  CHECK(k.code[0].ops[1].imm == 8);
  CHECK(k.code[1].ops[0].imm == 104);
  CHECK(k.code[2].ops[1].kind == OperandKind::Symbol);
  CHECK(k.code[2].ops[1].space == Space::Shared);
  CHECK(k.code[2].ops[1].imm == 104);
  CHECK(k.code[3].ops[1].imm == 176);
  CHECK(k.code[4].ops[1].imm == 180);
  CHECK(k.code[5].ops[1].kind == OperandKind::Symbol);
  CHECK(k.code[5].ops[1].imm == 0);
  // A generic ld of a shared symbol addresses the shared window.
  CHECK(k.code[7].space == Space::Generic);
  CHECK(k.code[7].ops[1].imm == static_cast<int64_t>(kSharedWindow + 108));
}

TEST_CASE("module globals and .const live in the global segment; .local in the frame") {
  std::string text = R"(
.version 9.0
.target sm_80
.address_size 64
.const .align 4 .b8 cst[16] = {0, 0, 128, 63, 0, 0, 0, 64};
.global .align 4 .u32 gcount;
.global .align 8 .f64 gd[2] = {1.5, 0d4000000000000000};
.global .align 1 .b8 $str[4] = {37, 100, 10};
.visible .entry k()
{
  .local .align 4 .b8 __local_depot0[40];
  .reg .b64 %SP;
  .reg .b64 %SPL;
  .reg .b64 %rd<4>;
  .reg .b32 %r<3>;
  .reg .f32 %f<2>;
  mov.u64 %SPL, __local_depot0;
  cvta.local.u64 %SP, %SPL;
  mov.u64 %rd1, gcount;
  ld.const.f32 %f1, [cst+4];
  ld.global.u32 %r1, [gcount];
  mov.u64 %rd2, $str;
  ld.local.u32 %r2, [__local_depot0+8];
  st.local.u32 [%SPL+12], %r2;
  ret;
}
)";
  Module m = parse(text, "g.ptx");
  REQUIRE(m.globals.size() == 4);
  CHECK(m.globals[0].name == "cst");
  CHECK(m.globals[0].space == Space::Const);
  CHECK(m.globals[0].offset == 0);
  CHECK(m.globals[0].size == 16);
  REQUIRE(m.globals[0].init.size() == 8);
  CHECK(m.globals[0].init[2] == 128);
  CHECK(m.globals[1].offset == 16);
  CHECK(m.globals[2].offset == 24);
  REQUIRE(m.globals[2].init.size() == 16);
  double d0, d1;
  std::memcpy(&d0, m.globals[2].init.data(), 8);
  std::memcpy(&d1, m.globals[2].init.data() + 8, 8);
  CHECK(d0 == 1.5);
  CHECK(d1 == 2.0);
  CHECK(m.globals[3].offset == 40);
  CHECK(m.global_segment_bytes == 44);
  const Kernel& k = only_kernel(m);
  CHECK(k.local_bytes == 40);
  REQUIRE(k.local_vars.size() == 1);
  CHECK(k.code[0].ops[1].kind == OperandKind::Symbol);
  CHECK(k.code[0].ops[1].space == Space::Local);
  CHECK(k.code[0].ops[1].imm == 0);
  CHECK(k.code[1].op == Op::Cvta);
  CHECK(k.code[1].space == Space::Local);
  CHECK_FALSE(k.code[1].cvta_to);
  CHECK(k.code[2].ops[1].kind == OperandKind::Symbol);
  CHECK(k.code[2].ops[1].space == Space::Global);
  CHECK(k.code[2].ops[1].imm == static_cast<int64_t>(kGlobalBase + 16));
  CHECK(k.code[3].ops[1].imm == static_cast<int64_t>(kGlobalBase + 4));
  CHECK(k.code[4].ops[1].imm == static_cast<int64_t>(kGlobalBase + 16));
  CHECK(k.code[5].ops[1].imm == static_cast<int64_t>(kGlobalBase + 40));
  CHECK(k.code[6].ops[1].imm == 8);
  CHECK(k.code[7].ops[0].reg == slot_of(k, "%SPL", 0));
  CHECK(k.code[7].ops[0].imm == 12);
}

TEST_CASE("labels resolve to instruction indices; guards and negated predicates") {
  Module m = parse(module_with("", R"(
  .reg .pred %p<4>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @!%p1 bra $L__BB0_2;
  add.s32 %r2, %r1, 1;
$L__BB0_2:
  setp.ne.and.s32 %p2, %r1, 3, !%p1;
  selp.b32 %r3, 1, 0, %p2;
  @%p2 bra.uni $L__BB0_4;
  bra.uni $L__BB0_2;
$L__BB0_4:
  ret;)"),
                   "l.ptx");
  const Kernel& k = only_kernel(m);
  REQUIRE(k.code.size() == 9);
  CHECK(k.code[0].ops[1].kind == OperandKind::Special);
  CHECK(k.code[0].ops[1].reg == static_cast<uint32_t>(Special::TidX));
  const Instr& b = k.code[2];
  CHECK(b.op == Op::Bra);
  CHECK(b.guard == slot_of(k, "%p", 1));
  CHECK(b.guard_negated);
  CHECK(b.target == 4);
  CHECK(b.ops[0].kind == OperandKind::Label);
  CHECK(b.ops[0].imm == 4);
  CHECK(k.labels[4] == "$L__BB0_2");
  const Instr& s = k.code[4];
  CHECK(s.op == Op::Setp);
  CHECK(s.cmp == Cmp::Ne);
  CHECK(s.bool_op == BoolOp::And);
  CHECK(s.type == Type::S32);
  CHECK(s.type2 == Type::S32);
  CHECK(s.ops[1].kind == OperandKind::None);
  CHECK(s.ops[3].kind == OperandKind::Imm);
  CHECK(s.ops[3].imm == 3);
  CHECK(s.ops[4].reg == slot_of(k, "%p", 1));
  CHECK(s.ops[4].negate);
  CHECK(k.code[5].op == Op::Selp);
  CHECK(k.code[5].ops[3].reg == slot_of(k, "%p", 2));
  CHECK(k.code[6].target == 8);
  CHECK((k.code[6].flags & kFlagUni));
  CHECK(k.code[7].target == 4);
  CHECK(k.code[7].guard == kNoReg);
}

TEST_CASE(".pragma \"nounroll\" marks the instruction it stands before; other pragmas are skipped") {
  // NVRTC opens the remainder loop of its own unrolling with it; ptxas keeps
  // that loop rolled (lab/sim/cycle/unroll.h reads Kernel::nounroll).
  Module m = parse(module_with("", R"(
  .reg .pred %p<4>;
  .reg .b32 %r<4>;
  mov.u32 %r1, 4;
$L__BB0_1:
  .pragma "nounroll";
  add.s32 %r1, %r1, -1;
  setp.ne.s32 %p1, %r1, 0;
  @%p1 bra $L__BB0_1;
  .pragma "used_bytes_mask 15";
  ret;)"),
                   "n.ptx");
  const Kernel& k = only_kernel(m);
  REQUIRE(k.code.size() == 5);
  REQUIRE(k.nounroll.size() == 1);
  CHECK(k.nounroll[0] == 1);  // the add, the loop's first instruction
}

TEST_CASE("immediates: hex, octal, negative, 0f/0d bits and decimal floats") {
  Module m = parse(module_with("", R"(
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<4>;
  .reg .b64 %rd<2>;
  mov.u32 %r1, 0xFF;
  mov.u32 %r2, 017;
  mov.u32 %r3, -5;
  mov.f32 %f1, 0f3F800000;
  mov.f64 %fd1, 0d4000000000000000;
  mov.f32 %f2, 1.5;
  mov.f64 %fd2, 0.25;
  add.f64 %fd3, %fd2, 0f3F800000;
  mov.u64 %rd1, 0xFFFFFFFFFFFFFFFF;
  mov.b32 %r4, -0x10;
  mov.u32 %r5, 4294967295U;
  ret;)"),
                   "i.ptx");
  const Kernel& k = only_kernel(m);
  CHECK(k.code[0].ops[1].imm == 255);
  CHECK(k.code[1].ops[1].imm == 15);
  CHECK(k.code[2].ops[1].imm == -5);
  CHECK(k.code[3].ops[1].imm == 0x3F800000);
  CHECK(k.code[4].ops[1].imm == 0x4000000000000000ll);
  CHECK(k.code[5].ops[1].imm == std::bit_cast<uint32_t>(1.5f));
  CHECK(static_cast<uint64_t>(k.code[6].ops[1].imm) == std::bit_cast<uint64_t>(0.25));
  // An f32 literal in an f64 instruction is widened to the f64 bit pattern.
  CHECK(static_cast<uint64_t>(k.code[7].ops[2].imm) == std::bit_cast<uint64_t>(1.0));
  CHECK(k.code[8].ops[1].imm == -1);
  CHECK(k.code[9].ops[1].imm == -16);
  CHECK(k.code[10].ops[1].imm == 4294967295ll);
}

TEST_CASE("vector operands, packing movs, sinks and dual destinations") {
  Module m = parse(module_with(".param .u64 k_param_0", R"(
  .reg .pred %p<3>;
  .reg .b16 %rs<3>;
  .reg .b32 %r<10>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [k_param_0];
  ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];
  st.global.v2.f32 [%rd1], {%f1, %f2};
  mov.b64 %rd2, {%r1, %r2};
  mov.b64 {%r3, %r4}, %rd2;
  mov.b32 {%rs1, _}, %r3;
  mov.b32 %f5, {0, %rs1};
  shfl.sync.bfly.b32 %r5|%p1, %r4, 1, 31, -1;
  shfl.sync.idx.b32 %r6, %r4, 0, 31, -1;
  setp.lt.f32 %p1|%p2, %f1, 0f00000000;
  ret;)"),
                   "v.ptx");
  const Kernel& k = only_kernel(m);
  const Instr& ld = k.code[1];
  CHECK(ld.op == Op::Ld);
  CHECK(ld.vec == 4);
  CHECK((ld.flags & kFlagNc));
  REQUIRE(ld.ops[0].kind == OperandKind::Vec);
  CHECK(ld.ops[0].vec_len == 4);
  for (int i = 0; i < 4; ++i) CHECK(k.vec_slots[ld.ops[0].reg + i] == slot_of(k, "%f", i + 1));
  CHECK(ld.ops[1].imm == 16);
  CHECK(k.code[2].vec == 2);
  CHECK(k.code[2].ops[1].kind == OperandKind::Vec);
  CHECK(k.code[3].ops[1].kind == OperandKind::Vec);
  CHECK(k.code[4].ops[0].kind == OperandKind::Vec);
  CHECK(k.vec_slots[k.code[5].ops[0].reg + 1] == kSinkReg);
  // The constant element of {0, %rs1} is materialised by a mov just before.
  const Instr& hidden = k.code[6];
  CHECK(hidden.op == Op::Mov);
  CHECK(hidden.type == Type::B16);
  CHECK(hidden.ops[1].kind == OperandKind::Imm);
  CHECK(hidden.ops[1].imm == 0);
  const Instr& pack = k.code[7];
  CHECK(k.vec_slots[pack.ops[1].reg] == hidden.ops[0].reg);
  CHECK(k.vec_slots[pack.ops[1].reg + 1] == slot_of(k, "%rs", 1));
  CHECK(hidden.ptx_line == pack.ptx_line);
  const Instr& sh = k.code[8];
  CHECK(sh.op == Op::ShflSync);
  CHECK(sh.shfl == ShflMode::Bfly);
  CHECK(sh.ops[0].reg == slot_of(k, "%r", 5));
  CHECK(sh.ops[1].reg == slot_of(k, "%p", 1));
  CHECK(sh.ops[2].reg == slot_of(k, "%r", 4));
  CHECK(sh.ops[3].imm == 1);
  CHECK(sh.ops[4].imm == 31);
  CHECK(sh.ops[5].imm == -1);
  CHECK(k.code[9].ops[1].kind == OperandKind::None);
  CHECK(k.code[9].ops[5].imm == -1);
  CHECK(k.code[10].ops[0].reg == slot_of(k, "%p", 1));
  CHECK(k.code[10].ops[1].reg == slot_of(k, "%p", 2));
}

TEST_CASE(".loc lines, inlined_at call sites and line 0") {
  std::string text = R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<6>;
  .loc 1 5 3
  mov.u32 %r1, %tid.x;
  .loc 1 0 3
  add.s32 %r2, %r1, 1;
  .loc 1 19 3
  .loc 1 17 31, function_name $L__info_string0, inlined_at 1 19 3
  .loc 2 440 9, function_name $L__info_string1, inlined_at 1 17 31
  shfl.sync.down.b32 %r3, %r2, 16, 31, -1;
  .loc 1 17 31, function_name $L__info_string0, inlined_at 1 19 3
  add.s32 %r4, %r3, %r2;
  .loc 1 22 1
  ret;
}
  .file 1 "/src/k.cu"
  .file 2 "/usr/local/cuda/include/sm_30_intrinsics.hpp", 1700000000, 1234
  .section .debug_str
  {
$L__info_string0:
.b8 95,90,0
  }
)";
  Module m = parse(text, "loc.ptx");
  const Kernel& k = only_kernel(m);
  REQUIRE(m.files.size() == 3);
  CHECK(m.files[1] == "/src/k.cu");
  CHECK(m.files[2] == "/usr/local/cuda/include/sm_30_intrinsics.hpp");
  auto loc = [&](size_t i) { return k.locs[k.code[i].loc]; };
  CHECK(loc(0).file == 1);
  CHECK(loc(0).line == 5);
  CHECK(loc(1).line == 0);
  CHECK(loc(2).file == 1);
  CHECK(loc(2).line == 19);  // sm_30_intrinsics.hpp:440 inlined through 1:17 into 1:19
  CHECK(loc(3).line == 19);
  CHECK(loc(4).line == 22);
  // The statement's own line inside the inlined code is kept beside the call
  // site: the header's 440 for the shuffle, the helper's 17 for the add.
  CHECK(loc(2).inner_file == 2);
  CHECK(loc(2).inner_line == 440);
  CHECK(loc(3).inner_file == 1);
  CHECK(loc(3).inner_line == 17);
  CHECK(loc(0).inner_line == 0);
  CHECK(loc(4).inner_line == 0);
  CHECK(k.locs[0].line == 0);
}

TEST_CASE("scoped blocks give inner registers fresh slots and shadow outer names") {
  Module m = parse(module_with("", R"(
  .reg .b32 %r<3>;
  .reg .b32 tmp;
  mov.u32 %r1, 1;
  {
    .reg .b32 %r<2>;
    .reg .b32 tmp;
    mov.u32 %r1, 2;
    mov.u32 %r2, 3;
    mov.u32 tmp, 4;
  }
  mov.u32 %r1, 5;
  mov.u32 tmp, 6;
  ret;)"),
                   "sc.ptx");
  const Kernel& k = only_kernel(m);
  CHECK(k.num_slots == 3 + 1 + 2 + 1);
  uint32_t outer_r1 = k.code[0].ops[0].reg;
  uint32_t inner_r1 = k.code[1].ops[0].reg;
  CHECK(outer_r1 == 1);
  CHECK(inner_r1 == 5);                      // inner %r<2> starts after outer decls
  CHECK(k.code[2].ops[0].reg == 2);          // %r2 is not declared inside: the outer one
  CHECK(k.code[3].ops[0].reg == 6);          // inner tmp
  CHECK(k.code[4].ops[0].reg == outer_r1);   // after '}', the outer %r1 again
  CHECK(k.code[5].ops[0].reg == 3);          // outer tmp
}

TEST_CASE("instruction families: modifiers land in the right fields") {
  Module m = parse(module_with("", R"(
  .reg .pred %p<4>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<20>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  .reg .f64 %fd<4>;
  mul.wide.s32 %rd1, %r1, 4;
  mad.hi.u32 %r2, %r1, %r3, %r4;
  mad.rn.f32 %f1, %f2, %f3, %f4;
  cvt.rn.f32.s32 %f1, %r1;
  cvt.rzi.sat.u8.f32 %rs1, %f1;
  cvt.rn.relu.bf16.f32 %rs2, %f2;
  cvt.rn.f16x2.f32 %r5, %f1, %f2;
  shf.l.wrap.b32 %r6, %r1, %r2, %r3;
  lop3.b32 %r7, %r1, %r2, %r3, 0x96;
  prmt.b32.f4e %r8, %r1, %r2, %r3;
  bfi.b32 %r9, %r1, %r2, 8, 4;
  atom.shared.cas.b32 %r10, [%r1+4], %r2, %r3;
  atom.global.add.f32 %f5, [%rd1], 0f3F800000;
  red.release.gpu.global.add.u64 [%rd1], %rd2;
  ld.global.L1::no_allocate.L2::128B.v2.u32 {%r11, %r12}, [%rd1];
  ld.relaxed.gpu.global.u32 %r13, [%rd1];
  ld.volatile.shared.u32 %r13, [%r1];
  testp.notanumber.f32 %p1, %f1;
  min.NaN.f32 %f6, %f1, %f2;
  div.full.f32 %f7, %f1, %f2;
  ex2.approx.ftz.f32 %f7, %f1;
  sqrt.rn.f64 %fd1, %fd2;
  set.gt.u32.f32 %r14, %f1, %f2;
  slct.s32.f32 %r15, %r1, %r2, %f1;
  bar.sync 1, 64;
  barrier.sync.aligned 0;
  bar.warp.sync -1;
  membar.gl;
  fence.acq_rel.gpu;
  vote.sync.ballot.b32 %r16, !%p1, -1;
  match.any.sync.b32 %r17, %r1, -1;
  redux.sync.add.s32 %r18, %r1, -1;
  activemask.b32 %r19;
  add.cc.u32 %r1, %r2, %r3;
  addc.u32 %r4, %r5, %r6;
  ret;)"),
                   "f.ptx");
  const Kernel& k = only_kernel(m);
  size_t i = 0;
  auto next = [&]() -> const Instr& { return k.code.at(i++); };
  { const Instr& in = next(); CHECK(in.op == Op::Mul); CHECK(in.mul == MulMode::Wide); CHECK(in.type == Type::S32); }
  { const Instr& in = next(); CHECK(in.op == Op::Mad); CHECK(in.mul == MulMode::Hi); CHECK(in.type == Type::U32); }
  { const Instr& in = next(); CHECK(in.op == Op::Mad); CHECK(in.round == Round::Rn); CHECK(in.type == Type::F32); }
  { const Instr& in = next(); CHECK(in.op == Op::Cvt); CHECK(in.type == Type::F32); CHECK(in.type2 == Type::S32); CHECK(in.round == Round::Rn); }
  { const Instr& in = next(); CHECK(in.round == Round::Rzi); CHECK((in.flags & kFlagSat)); CHECK(in.type == Type::U8); }
  { const Instr& in = next(); CHECK((in.flags & kFlagRelu)); CHECK(in.type == Type::BF16); }
  { const Instr& in = next(); CHECK(in.type == Type::F16x2); CHECK(in.num_ops == 3); }
  { const Instr& in = next(); CHECK(in.op == Op::Shf); CHECK((in.flags & kFlagShiftLeft)); CHECK_FALSE((in.flags & kFlagShiftClamp)); }
  { const Instr& in = next(); CHECK(in.op == Op::Lop3); CHECK(in.ops[4].imm == 0x96); }
  { const Instr& in = next(); CHECK(in.op == Op::Prmt); CHECK(in.mode == static_cast<uint8_t>(PrmtMode::F4e)); }
  { const Instr& in = next(); CHECK(in.op == Op::Bfi); CHECK(in.num_ops == 5); }
  { const Instr& in = next(); CHECK(in.op == Op::Atom); CHECK(in.atom == AtomOp::Cas); CHECK(in.space == Space::Shared); CHECK(in.num_ops == 4); CHECK(in.ops[1].imm == 4); }
  { const Instr& in = next(); CHECK(in.atom == AtomOp::Add); CHECK(in.type == Type::F32); CHECK(in.ops[2].imm == 0x3F800000); }
  { const Instr& in = next(); CHECK(in.op == Op::Red); CHECK(in.type == Type::U64); CHECK(in.ops[0].kind == OperandKind::Addr); }
  { const Instr& in = next(); CHECK(in.op == Op::Ld); CHECK(in.vec == 2); CHECK(in.space == Space::Global); }
  { const Instr& in = next(); CHECK(in.op == Op::Ld); CHECK(in.space == Space::Global); }
  { const Instr& in = next(); CHECK((in.flags & kFlagVolatile)); CHECK(in.space == Space::Shared); }
  { const Instr& in = next(); CHECK(in.op == Op::Testp); CHECK(in.mode == static_cast<uint8_t>(TestpMode::NotANumber)); }
  { const Instr& in = next(); CHECK(in.op == Op::Min); CHECK((in.flags & kFlagNaN)); }
  { const Instr& in = next(); CHECK(in.op == Op::Div); CHECK((in.flags & kFlagFull)); }
  { const Instr& in = next(); CHECK(in.op == Op::Ex2); CHECK((in.flags & kFlagApprox)); CHECK((in.flags & kFlagFtz)); }
  { const Instr& in = next(); CHECK(in.op == Op::Sqrt); CHECK(in.type == Type::F64); CHECK(in.round == Round::Rn); }
  { const Instr& in = next(); CHECK(in.op == Op::Set); CHECK(in.cmp == Cmp::Gt); CHECK(in.type == Type::U32); CHECK(in.type2 == Type::F32); CHECK(in.ops[2].kind == OperandKind::Reg); }
  { const Instr& in = next(); CHECK(in.op == Op::Slct); CHECK(in.type == Type::S32); CHECK(in.type2 == Type::F32); }
  { const Instr& in = next(); CHECK(in.op == Op::BarSync); CHECK(in.ops[0].imm == 1); CHECK(in.ops[1].imm == 64); }
  { const Instr& in = next(); CHECK(in.op == Op::BarSync); CHECK(in.ops[1].kind == OperandKind::None); CHECK((in.flags & kFlagAligned)); }
  { const Instr& in = next(); CHECK(in.op == Op::BarWarpSync); CHECK(in.ops[0].imm == -1); }
  { const Instr& in = next(); CHECK(in.op == Op::Membar); }
  { const Instr& in = next(); CHECK(in.op == Op::Fence); }
  { const Instr& in = next(); CHECK(in.op == Op::VoteSync); CHECK(in.vote == VoteMode::Ballot); CHECK(in.ops[1].negate); }
  { const Instr& in = next(); CHECK(in.op == Op::MatchSync); CHECK(in.vote == VoteMode::Any); CHECK(in.ops[3].imm == -1); }
  { const Instr& in = next(); CHECK(in.op == Op::ReduxSync); CHECK(in.redux == ReduxOp::Add); CHECK(in.type == Type::S32); }
  { const Instr& in = next(); CHECK(in.op == Op::Activemask); }
  { const Instr& in = next(); CHECK(in.op == Op::AddCC); }
  { const Instr& in = next(); CHECK(in.op == Op::AddC); }
}

TEST_CASE("matrix instructions: shapes, layouts, types, fragments") {
  Module m = parse(module_with("", R"(
  .reg .b32 %r<20>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<3>;
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], %r9;
  wmma.load.c.sync.aligned.col.m16n16k16.shared.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%r10];
  wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd2], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, 16;
  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r11, %r12, %r13, %r14}, [%r10];
  stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r10], {%r11};
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};
  ret;)"),
                   "mx.ptx");
  const Kernel& k = only_kernel(m);
  const Instr& la = k.code[0];
  CHECK(la.op == Op::WmmaLoadA);
  CHECK(la.shape_m == 16);
  CHECK(la.shape_n == 16);
  CHECK(la.shape_k == 16);
  CHECK(la.layout_a == 0);
  CHECK(la.space == Space::Global);
  CHECK(la.type == Type::F16);
  CHECK(la.ops[0].vec_len == 8);
  CHECK(la.ops[2].reg == slot_of(k, "%r", 9));
  const Instr& lc = k.code[1];
  CHECK(lc.op == Op::WmmaLoadC);
  CHECK(lc.layout_a == 1);
  CHECK(lc.space == Space::Shared);
  CHECK(lc.ops[2].kind == OperandKind::None);
  const Instr& mm = k.code[2];
  CHECK(mm.op == Op::WmmaMma);
  CHECK(mm.type == Type::F32);
  CHECK(mm.type2 == Type::BF16);
  CHECK(mm.type3 == Type::F32);
  CHECK(mm.layout_a == 0);
  CHECK(mm.layout_b == 1);
  const Instr& st = k.code[3];
  CHECK(st.op == Op::WmmaStoreD);
  CHECK(st.ops[0].kind == OperandKind::Addr);
  CHECK(st.ops[1].kind == OperandKind::Vec);
  CHECK(st.ops[2].imm == 16);
  const Instr& ldm = k.code[4];
  CHECK(ldm.op == Op::Ldmatrix);
  CHECK(ldm.vec == 4);
  CHECK((ldm.flags & kFlagTrans));
  CHECK(ldm.shape_m == 8);
  CHECK(ldm.shape_n == 8);
  CHECK(ldm.type == Type::B16);
  CHECK(k.code[5].op == Op::Stmatrix);
  CHECK(k.code[5].vec == 1);
  const Instr& mma = k.code[6];
  CHECK(mma.op == Op::Mma);
  CHECK(mma.shape_n == 8);
  CHECK(mma.type2 == Type::F16);
  CHECK(mma.ops[2].vec_len == 2);
}

TEST_CASE("calls to .func bodies are inlined; arguments go through the local frame") {
  std::string text = R"(
.version 9.0
.target sm_80
.address_size 64
.func (.param .b32 func_retval0) twice(.param .b32 twice_param_0);
.visible .entry k()
{
  .reg .b32 %r<4>;
  mov.u32 %r1, 7;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r1;
  .param .b32 retval0;
  call.uni (retval0), twice, (param0);
  ld.param.b32 %r2, [retval0+0];
  }
  ret;
}
.func (.param .b32 func_retval0) twice(.param .b32 twice_param_0)
{
  .reg .b32 %r<3>;
  .reg .pred %p<2>;
  ld.param.b32 %r1, [twice_param_0];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $L__BB1_2;
  add.s32 %r2, %r1, %r1;
  st.param.b32 [func_retval0+0], %r2;
  ret;
$L__BB1_2:
  st.param.b32 [func_retval0+0], %r1;
  ret;
}
)";
  Module m = parse(text, "call.ptx");
  const Kernel& k = only_kernel(m);
  REQUIRE(k.code.size() == 12);
  // mov, st arg, [ld param, setp, bra, add, st ret, bra end, st ret, bra end], ld ret, ret
  CHECK(k.code[1].op == Op::St);
  CHECK(k.code[1].space == Space::Local);
  int64_t arg_off = k.code[1].ops[0].imm;
  CHECK(k.code[2].op == Op::Ld);
  CHECK(k.code[2].space == Space::Local);
  CHECK(k.code[2].ops[1].imm == arg_off);
  CHECK(k.code[2].ops[0].reg != k.code[0].ops[0].reg);  // callee registers get fresh slots
  CHECK(k.code[4].op == Op::Bra);
  CHECK(k.code[4].target == 8);
  CHECK(k.code[7].op == Op::Bra);
  CHECK(k.code[7].target == 10);  // `ret` jumps past the inlined body
  CHECK(k.code[9].op == Op::Bra);
  CHECK(k.code[9].target == 10);
  CHECK(k.code[10].op == Op::Ld);
  CHECK(k.code[10].ops[1].imm == k.code[6].ops[0].imm);  // result read where the callee wrote it
  CHECK(k.code[11].op == Op::Ret);
  CHECK(k.local_bytes == 8);
}

namespace {
ParseError parse_error_of(const std::string& text) {
  try {
    parse(text, "bad.ptx");
  } catch (const ParseError& e) {
    return e;
  }
  FAIL("expected a ParseError");
  return ParseError("", "", 0, "", "");
}
}  // namespace

TEST_CASE("errors name the PTX line, the kernel and the opcode") {
  {
    // Line numbers: 1 .version, 2 .target, 3 .address_size, 4 blank, 5 .entry, 6 {, 7 .reg, 8 .reg, 9 tex
    ParseError e = parse_error_of(module_with("", R"(  .reg .b32 %r<5>;
  .reg .b64 %rd<2>;
  tex.2d.v4.f32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%r1, %r2}];
  ret;)"));
    CHECK(e.ptx_line == 9);
    CHECK(e.kernel == "k");
    CHECK(e.opcode == "tex.2d.v4.f32.f32");
    CHECK(std::string(e.what()).find("bad.ptx:9: in kernel 'k': unsupported instruction 'tex.2d.v4.f32.f32'") == 0);
    CHECK(std::string(e.what()).find("texture") != std::string::npos);
  }
  {
    ParseError e = parse_error_of(module_with("", R"(  .reg .b32 %r<5>;
  mov.u32 %r1, %r9;
  ret;)"));
    CHECK(e.ptx_line == 8);
    CHECK(std::string(e.what()).find("undeclared register '%r9'") != std::string::npos);
  }
  {
    ParseError e = parse_error_of(module_with("", R"(  .reg .b32 %r<5>;
  mov.u32 %r1, %r2;
  bra.uni $L__nowhere;
  ret;)"));
    CHECK(e.ptx_line == 9);
    CHECK(std::string(e.what()).find("unknown label '$L__nowhere'") != std::string::npos);
  }
  {
    ParseError e = parse_error_of(module_with("", R"(  .reg .b32 %r<5>;
  add.s32 %r1, %r2;
  ret;)"));
    CHECK(e.ptx_line == 8);
    CHECK(e.opcode == "add.s32");
    CHECK(std::string(e.what()).find("takes 3 operands, found 2") != std::string::npos);
  }
  {
    ParseError e = parse_error_of(module_with("", R"(  .reg .b32 %r<5>;
  add.s32.bogus %r1, %r2, %r3;
  ret;)"));
    CHECK(std::string(e.what()).find("unsupported modifier '.bogus'") != std::string::npos);
  }
  {
    ParseError e = parse_error_of(module_with("", R"(  .reg .b32 %r<5>;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %r1;
  call.uni (retval0), vprintf, (param0, param1);
  }
  ret;)"));
    CHECK(std::string(e.what()).find("vprintf") != std::string::npos);
    CHECK(std::string(e.what()).find("printf") != std::string::npos);
  }
  {
    ParseError e = parse_error_of(".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  ret;\n");
    CHECK(std::string(e.what()).find("not closed") != std::string::npos);
  }
}

TEST_CASE("IPDOM: if/else diamond, loop, nested branches, early return") {
  SUBCASE("diamond") {
    Module m = parse(module_with("", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra $ELSE;
  add.s32 %r2, %r1, 1;
  bra.uni $JOIN;
$ELSE:
  add.s32 %r2, %r1, 2;
$JOIN:
  add.s32 %r3, %r2, %r2;
  ret;)"),
                     "d.ptx");
    std::vector<int32_t> ip = ipdom_targets(m.kernels[0]);
    CHECK(ip[1] == 5);  // the conditional branch reconverges at $JOIN
    CHECK(ip[3] == 5);  // the unconditional jump's block is post-dominated by $JOIN
    CHECK(ip[0] == -1);
  }
  SUBCASE("loop") {
    Module m = parse(module_with("", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, 0;
$LOOP:
  add.s32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, %r2;
  @%p1 bra $LOOP;
  st.global.u32 [%r3], %r1;
  ret;)"),
                     "loop.ptx");
    std::vector<int32_t> ip = ipdom_targets(m.kernels[0]);
    CHECK(ip[3] == 4);  // the back edge reconverges at the loop exit
  }
  SUBCASE("nested") {
    Module m = parse(module_with("", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  @%p1 bra $OUTER_END;
  add.s32 %r1, %r1, 1;
  @%p2 bra $INNER_END;
  add.s32 %r1, %r1, 2;
$INNER_END:
  add.s32 %r1, %r1, 3;
$OUTER_END:
  add.s32 %r1, %r1, 4;
  ret;)"),
                     "n.ptx");
    std::vector<int32_t> ip = ipdom_targets(m.kernels[0]);
    CHECK(ip[0] == 5);
    CHECK(ip[2] == 4);
  }
  SUBCASE("early return reconverges at the exit") {
    Module m = parse(module_with("", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  @%p1 bra $WORK;
  ret;
$WORK:
  add.s32 %r1, %r1, 3;
  @%p2 bra $SKIP;
  add.s32 %r1, %r1, 4;
$SKIP:
  ret;)"),
                     "r.ptx");
    const Kernel& k = m.kernels[0];
    std::vector<int32_t> ip = ipdom_targets(k);
    CHECK(ip[0] == static_cast<int32_t>(k.code.size()));  // one path returns: only the exit joins them
    CHECK(ip[3] == 5);
  }
  SUBCASE("guarded return") {
    Module m = parse(module_with("", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  @%p2 bra $A;
  @%p1 ret;
  add.s32 %r1, %r1, 4;
$A:
  add.s32 %r1, %r1, 5;
  ret;)"),
                     "gr.ptx");
    const Kernel& k = m.kernels[0];
    std::vector<int32_t> ip = ipdom_targets(k);
    CHECK(ip[0] == static_cast<int32_t>(k.code.size()));
  }
}
