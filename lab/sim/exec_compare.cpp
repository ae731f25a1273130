// lab/sim/exec_compare.cpp: setp, set, selp, slct (PTX ISA 9.7.6).
//
// Comparisons give a lane mask first; the boolean combination with the `c`
// predicate (.and/.or/.xor) and the second destination `q` (the negated
// compare combined the same way) are done on masks.
#include <cmath>

#include "lab/sim/exec.h"
#include "lab/sim/exec_fp.h"

namespace lab::sim {

using ptx::Cmp;
using ptx::Op;
using ptx::Type;

namespace {

template <class T>
inline bool compare(Cmp op, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    // Ordered comparisons are false when either operand is NaN; the `u`
    // forms are true (PTX ISA 9.7.6.1, table "floating-point comparison").
    bool unord = std::isnan(a) || std::isnan(b);
    switch (op) {
      case Cmp::Eq: return !unord && a == b;
      case Cmp::Ne: return !unord && a != b;
      case Cmp::Lt: return !unord && a < b;
      case Cmp::Le: return !unord && a <= b;
      case Cmp::Gt: return !unord && a > b;
      case Cmp::Ge: return !unord && a >= b;
      case Cmp::Equ: return unord || a == b;
      case Cmp::Neu: return unord || a != b;
      case Cmp::Ltu: return unord || a < b;
      case Cmp::Leu: return unord || a <= b;
      case Cmp::Gtu: return unord || a > b;
      case Cmp::Geu: return unord || a >= b;
      case Cmp::Num: return !unord;
      case Cmp::Nan: return unord;
      default: return false;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case Cmp::Eq: return a == b;
      case Cmp::Ne: return a != b;
      case Cmp::Lt: return a < b;
      case Cmp::Le: return a <= b;
      case Cmp::Gt: return a > b;
      case Cmp::Ge: return a >= b;
      case Cmp::Lo: return U(a) < U(b);
      case Cmp::Ls: return U(a) <= U(b);
      case Cmp::Hi: return U(a) > U(b);
      case Cmp::Hs: return U(a) >= U(b);
      default: return false;
    }
  }
}

template <class T>
uint32_t compare_mask(WarpContext& c, Cmp op, const ptx::Operand& oa, const ptx::Operand& ob, bool ftz) {
  uint64_t ta[32], tb[32];
  const uint64_t* a = src(c, oa, ta);
  const uint64_t* b = src(c, ob, tb);
  uint32_t m = 0;
  each_lane(c.mask, [&](uint32_t i) {
    T x = as<T>(a[i]), y = as<T>(b[i]);
    if constexpr (std::is_same_v<T, float>) {
      if (ftz) { x = flush_f32(x); y = flush_f32(y); }
    }
    m |= uint32_t(compare<T>(op, x, y)) << i;
  });
  return m;
}

// Half-precision compares: each lane's value as a double (exact).
uint32_t compare_half(WarpContext& c, Cmp op, const ptx::Operand& oa, const ptx::Operand& ob, bool bf, int half) {
  uint64_t ta[32], tb[32];
  const uint64_t* a = src(c, oa, ta);
  const uint64_t* b = src(c, ob, tb);
  uint32_t m = 0;
  each_lane(c.mask, [&](uint32_t i) {
    uint16_t ha = uint16_t(a[i] >> (16 * half)), hb = uint16_t(b[i] >> (16 * half));
    double x = bf ? bf16_value(ha) : f16_value(ha), y = bf ? bf16_value(hb) : f16_value(hb);
    m |= uint32_t(compare<double>(op, x, y)) << i;
  });
  return m;
}

uint32_t compare_by_type(WarpContext& c, Type t, Cmp op, const ptx::Operand& oa, const ptx::Operand& ob,
                         bool ftz, int half = 0) {
  switch (t) {
    case Type::F32: return compare_mask<float>(c, op, oa, ob, ftz);
    case Type::F64: return compare_mask<double>(c, op, oa, ob, ftz);
    case Type::F16: case Type::F16x2: return compare_half(c, op, oa, ob, false, half);
    case Type::BF16: case Type::BF16x2: return compare_half(c, op, oa, ob, true, half);
    case Type::S8: return compare_mask<int8_t>(c, op, oa, ob, ftz);
    case Type::S16: return compare_mask<int16_t>(c, op, oa, ob, ftz);
    case Type::S32: return compare_mask<int32_t>(c, op, oa, ob, ftz);
    case Type::S64: return compare_mask<int64_t>(c, op, oa, ob, ftz);
    case Type::U8: case Type::B8: return compare_mask<uint8_t>(c, op, oa, ob, ftz);
    case Type::U16: case Type::B16: return compare_mask<uint16_t>(c, op, oa, ob, ftz);
    case Type::U64: case Type::B64: return compare_mask<uint64_t>(c, op, oa, ob, ftz);
    default: return compare_mask<uint32_t>(c, op, oa, ob, ftz);
  }
}

uint32_t combine(ptx::BoolOp op, uint32_t r, uint32_t cm) {
  switch (op) {
    case ptx::BoolOp::And: return r & cm;
    case ptx::BoolOp::Or: return r | cm;
    case ptx::BoolOp::Xor: return r ^ cm;
    default: return r;
  }
}

inline void write_pred(WarpContext& c, const ptx::Operand& o, uint32_t value) {
  if (o.kind != ptx::OperandKind::Reg || o.reg >= ptx::kSinkReg) return;
  uint64_t* d = dst(c, o);
  each_lane(c.mask, [&](uint32_t i) { d[i] = (value >> i) & 1; });
}

}  // namespace

void exec_compare(const ptx::Instr& in, WarpContext& c) {
  const bool ftz = in.flags & ptx::kFlagFtz;
  switch (in.op) {
    case Op::Setp: {
      Type t = in.type2 != Type::None ? in.type2 : in.type;
      uint32_t r = compare_by_type(c, t, in.cmp, in.ops[2], in.ops[3], ftz);
      uint32_t cm = in.bool_op != ptx::BoolOp::None ? pred_mask(c, in.ops[4]) : 0;
      write_pred(c, in.ops[0], combine(in.bool_op, r, cm));
      if (in.ops[1].kind == ptx::OperandKind::Reg) write_pred(c, in.ops[1], combine(in.bool_op, ~r, cm));
      return;
    }
    case Op::Set: {
      // set.CmpOp.dtype.stype: all ones (integer d) or 1.0f (f32 d) when true.
      Type st = in.type2 != Type::None ? in.type2 : in.type;
      uint32_t r = compare_by_type(c, st, in.cmp, in.ops[2], in.ops[3], ftz);
      if (in.bool_op != ptx::BoolOp::None) r = combine(in.bool_op, r, pred_mask(c, in.ops[4]));
      uint64_t* d = dst(c, in.ops[0]);
      const bool fdst = in.type == Type::F32;
      each_lane(c.mask, [&](uint32_t i) {
        bool v = (r >> i) & 1;
        d[i] = fdst ? (v ? 0x3f800000u : 0u) : (v ? 0xffffffffu : 0u);
      });
      return;
    }
    case Op::Selp: {
      uint64_t ta[32], tb[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      const uint64_t* b = src(c, in.ops[2], tb);
      uint32_t p = pred_mask(c, in.ops[3]);
      uint64_t* d = dst(c, in.ops[0]);
      each_lane(c.mask, [&](uint32_t i) { d[i] = ((p >> i) & 1) ? a[i] : b[i]; });
      return;
    }
    case Op::Slct: {
      // slct.dtype.ctype d, a, b, c: a when c >= 0 (PTX ISA 9.7.6.4); -0.0
      // selects a, NaN selects b.
      uint64_t ta[32], tb[32], tc[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      const uint64_t* b = src(c, in.ops[2], tb);
      const uint64_t* cv = src(c, in.ops[3], tc);
      uint64_t* d = dst(c, in.ops[0]);
      const bool fc = in.type2 == Type::F32;
      each_lane(c.mask, [&](uint32_t i) {
        bool take_a;
        if (fc) {
          float x = as<float>(cv[i]);
          if (ftz) x = flush_f32(x);
          take_a = x >= 0.0f;
        } else {
          take_a = int32_t(cv[i]) >= 0;
        }
        d[i] = take_a ? a[i] : b[i];
      });
      return;
    }
    default:
      raise_fault(c, "unsupported", std::string("'") + ptx::op_name(in.op) + "' is not supported",
                  uint32_t(std::countr_zero(c.mask)));
  }
}

ExecFn resolve_compare(const ptx::Instr&) { return exec_compare; }

}  // namespace lab::sim
