// tests/test_exec_opcodes.cpp: the opcode table (lab/ptx/opcodes.def) and
// what is generated from it: names, the decoder's plain families, the
// interpreter's family and handler, the timing model's pipe.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "lab/ptx/parser.h"
#include "lab/sim/exec.h"
#include "lab/sim/timing.h"

using namespace lab;
using ptx::Op;
using ptx::Type;

namespace {

ptx::Instr instr(Op op, Type t = Type::None) {
  ptx::Instr in;
  in.op = op;
  in.type = t;
  return in;
}

// Decodes one instruction of a kernel body.
ptx::Instr decode(const std::string& regs, const std::string& line) {
  ptx::Module m = ptx::parse(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n" + regs +
                             "\n" + line + "\n}\n", "opcodes.ptx");
  REQUIRE(m.kernels.size() == 1);
  REQUIRE(!m.kernels[0].code.empty());
  return m.kernels[0].code[0];
}

}  // namespace

TEST_CASE("every Op has a table row with a distinct name and a family") {
  std::set<std::string> names;
  for (size_t i = 0; i < size_t(Op::Count_); ++i) {
    const Op op = Op(i);
    const ptx::OpInfo& r = ptx::op_info(op);
    INFO("op " << i);
    REQUIRE(r.name != nullptr);
    CHECK(std::string(r.name).size() > 0);
    CHECK(names.insert(r.name).second);  // no two rows share a name
    CHECK(std::string(ptx::op_name(op)) == r.name);
    if (op != Op::Invalid) CHECK(r.family != ptx::OpFamily::Unsupported);
    CHECK(r.min_ops <= r.max_ops);
    // A row the interpreter runs has a handler, or run_warp handles it itself.
    ptx::Instr in = instr(op, r.family == ptx::OpFamily::Float ? Type::F32 : Type::U32);
    const sim::Family f = sim::family_of(in);
    CHECK(f != sim::Family::Num);
    const bool in_loop = f == sim::Family::Control || f == sim::Family::Nop || f == sim::Family::Unsupported;
    CHECK((sim::resolve_exec(in) == nullptr) == in_loop);
  }
  CHECK(std::string(ptx::op_name(Op::Count_)) == "?");
}

TEST_CASE("decoder names round-trip: each plain row decodes to its own Op") {
  // Plain rows (operand counts in the table) are found by name alone.
  const std::string regs = ".reg .b32 %r<8>;\n.reg .f32 %f<8>;\n.reg .pred %p<2>;";
  int plain = 0;
  for (size_t i = 0; i < size_t(Op::Count_); ++i) {
    const ptx::OpInfo& r = ptx::op_info(Op(i));
    if (!r.min_ops) continue;
    ++plain;
    std::string ops;
    for (int k = 0; k < r.min_ops; ++k) ops += std::string(k ? ", " : " ") + "%r" + std::to_string(k);
    std::string mods = ".u32";
    const std::string n = r.name;
    if (n == "mul" || n == "mad" || n == "mul24" || n == "mad24") mods = ".lo.u32";
    if (n == "dp2a") mods = ".lo.u32.u32";
    if (n == "dp4a") mods = ".u32.u32";
    if (n == "shf") mods = ".l.wrap.b32";
    if (n == "bmsk") mods = ".clamp.b32";
    if (n == "testp") { mods = ".finite.f32"; ops = " %p0, %f0"; }
    if (n == "slct") mods = ".u32.s32";
    if (n == "selp") ops = " %r0, %r1, %r2, %p0";
    if (n == "cvt") mods = ".u32.u16";
    if (n == "cvta") mods = ".to.global.u32";
    if (n == "isspacep") { mods = ".global"; ops = " %p0, %r0"; }
    if (n == "fma" || n == "rcp" || n == "sqrt" || n == "rsqrt" || n == "sin" || n == "cos" || n == "lg2" ||
        n == "ex2" || n == "tanh" || n == "copysign") {
      mods = (n == "fma") ? ".rn.f32" : (n == "rcp" || n == "sqrt") ? ".rn.f32" : n == "copysign" ? ".f32" : ".approx.f32";
      ops.clear();
      for (int k = 0; k < r.min_ops; ++k) ops += std::string(k ? ", " : " ") + "%f" + std::to_string(k);
    }
    if (n == "activemask") mods = ".b32";
    INFO(n << mods << ops);
    ptx::Instr in = decode(regs, n + mods + ops + ";");
    CHECK(in.op == Op(i));
    CHECK(std::string(ptx::op_name(in.op)) == n);
  }
  CHECK(plain > 40);
  // Rows with their own decoder: the .cc forms come from add/sub/mad.
  CHECK(decode(regs, "add.cc.u32 %r0, %r1, %r2;").op == Op::AddCC);
  CHECK(decode(regs, "shfl.sync.bfly.b32 %r0, %r1, 1, 31, -1;").op == Op::ShflSync);
  CHECK(std::string(ptx::op_name(Op::ShflSync)) == "shfl.sync");
  // Type names: one table for messages and the decoder.
  for (Type t : {Type::Pred, Type::B128, Type::U16, Type::S64, Type::F16x2, Type::BF16, Type::F64, Type::E5M2})
    CHECK(ptx::type_from_name(ptx::type_name(t) + 1) == t);
  CHECK(ptx::type_from_name("f33") == Type::None);
}

TEST_CASE("family and timing class follow the PTX ISA") {
  using sim::Family;
  using sim::InstrClass;
  // add.s32 is integer arithmetic, add.f32 floating point (PTX ISA 9.7.1.1, 9.7.3.1).
  CHECK(sim::family_of(instr(Op::Add, Type::S32)) == Family::Int);
  CHECK(sim::family_of(instr(Op::Add, Type::F32)) == Family::Float);
  CHECK(sim::classify(instr(Op::Add, Type::S32)) == InstrClass::Int);
  CHECK(sim::classify(instr(Op::Add, Type::F32)) == InstrClass::Fp32);
  CHECK(sim::classify(instr(Op::Fma, Type::F64)) == InstrClass::Fp64);
  // Transcendentals run on the MUFU (sfu) pipe; rcp.f64 on the fp64 pipe.
  CHECK(sim::classify(instr(Op::Ex2, Type::F32)) == InstrClass::Sfu);
  CHECK(sim::classify(instr(Op::Rcp, Type::F64)) == InstrClass::Fp64);
  CHECK(sim::classify(instr(Op::Div, Type::S32)) == InstrClass::Int);
  // shfl.sync and vote.sync are warp-level (9.7.13.8, 9.7.13.10); bar.warp.sync too.
  CHECK(sim::family_of(instr(Op::ShflSync, Type::B32)) == Family::Warp);
  CHECK(sim::classify(instr(Op::ShflSync, Type::B32)) == InstrClass::Control);
  CHECK(sim::classify(instr(Op::BarWarpSync)) == InstrClass::Control);
  // Loads, stores and async copies are memory (9.7.9.8, 9.7.9.9, 9.7.9.25).
  CHECK(sim::family_of(instr(Op::Ld, Type::F32)) == Family::Memory);
  CHECK(sim::classify(instr(Op::Ld, Type::F32)) == InstrClass::Memory);
  CHECK(sim::classify(instr(Op::CpAsync)) == InstrClass::Memory);
  CHECK(ptx::op_info(Op::St).mem == ptx::MemDir::Store);
  CHECK(ptx::op_info(Op::Atom).mem == ptx::MemDir::Atomic);
  // mma and wmma.mma are tensor-core instructions (9.7.14, 9.7.15).
  CHECK(sim::family_of(instr(Op::Mma, Type::F32)) == Family::Matrix);
  CHECK(sim::classify(instr(Op::Mma, Type::F32)) == InstrClass::Tensor);
  // cvt.f32.f16 issues on the integer/conversion path, cvt.f64 on the fp64 pipe.
  CHECK(sim::classify(instr(Op::Cvt, Type::F32)) == InstrClass::Int);
  CHECK(sim::classify(instr(Op::Cvt, Type::F64)) == InstrClass::Fp64);
  // Barriers and exits are flagged for event readers.
  CHECK((ptx::op_info(Op::BarSync).flags & ptx::kOpBarrier));
  CHECK((ptx::op_info(Op::BarRed).flags & ptx::kOpBarrier));
  CHECK(!(ptx::op_info(Op::BarArrive).flags & ptx::kOpBarrier));  // arrive does not wait (9.7.13.1)
  CHECK((ptx::op_info(Op::Exit).flags & ptx::kOpExit));
  CHECK((ptx::op_info(Op::Ret).flags & ptx::kOpExit));
}

TEST_CASE("griddepcontrol (programmatic dependent launch, CUB/thrust on sm_90) decodes to nothing to do") {
  // Every lab launch ends before the next begins: the wait is met and there is
  // nothing to start early (lab/ptx/decode.cpp says why).
  CHECK(decode("", "griddepcontrol.wait;").op == Op::Nop);
  CHECK(decode("", "griddepcontrol.launch_dependents;").op == Op::Nop);
  CHECK_THROWS_WITH_AS(decode("", "griddepcontrol.sometimes;"), doctest::Contains("takes .wait or .launch_dependents"),
                       std::exception);
}
