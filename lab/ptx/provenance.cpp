// lab/ptx/provenance.cpp: address roots by a fixed point over the kernel's
// register definitions (provenance.h).
#include "lab/ptx/provenance.h"

namespace lab::ptx {

std::vector<int32_t> address_roots(const Kernel& k, const RootSeeds& seeds, Space space) {
  std::vector<int32_t> origin(k.num_slots, kNoRoot);
  auto from = [&](const Operand& o) -> int32_t {
    if (o.kind == OperandKind::Reg && o.reg < origin.size()) return origin[o.reg];
    if (o.kind == OperandKind::Symbol && seeds.operand) return seeds.operand(o);
    return kNoRoot;
  };
  auto join = [](int32_t a, int32_t b) { return a == kNoRoot ? b : b == kNoRoot || a == b ? a : kManyRoots; };
  for (bool changed = true; changed;) {
    changed = false;
    for (const Instr& in : k.code) {
      if (in.num_ops == 0 || in.ops[0].kind != OperandKind::Reg || in.ops[0].reg >= origin.size()) continue;
      int32_t o = seeds.instr ? seeds.instr(in) : kNoRoot;
      if (o == kNoRoot) switch (in.op) {
          case Op::Mov: case Op::Cvt: case Op::Cvta: o = from(in.ops[1]); break;
          case Op::Add: o = join(from(in.ops[1]), from(in.ops[2])); break;
          case Op::Sub: o = from(in.ops[1]); break;
          case Op::Mad: o = from(in.ops[3]); break;
          case Op::Ld: case Op::Ldu: case Op::Atom: case Op::Selp: case Op::Slct:
            o = kManyRoots; break;  // a pointer from memory or a choice: not followed
          default: break;          // index arithmetic (mul, shl, and, ...): no pointer
        }
      int32_t& d = origin[in.ops[0].reg];
      const int32_t n = join(d, o);
      if (n != d) d = n, changed = true;
    }
  }
  std::vector<int32_t> at(k.code.size(), kNoRoot);
  for (size_t pc = 0; pc < k.code.size(); ++pc) {
    const Instr& in = k.code[pc];
    const int slot = in.op == Op::Ld || in.op == Op::Ldu || in.op == Op::Atom ? 1
                     : in.op == Op::St || in.op == Op::Red                    ? 0
                                                                              : -1;
    if (slot < 0 || in.num_ops <= slot) continue;
    if (in.space != space && in.space != Space::Generic) continue;
    const Operand& a = in.ops[slot];
    if (a.kind != OperandKind::Addr || a.reg == kNoReg || a.reg >= origin.size()) continue;
    at[pc] = origin[a.reg];
  }
  return at;
}

}  // namespace lab::ptx
