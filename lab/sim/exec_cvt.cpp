// lab/sim/exec_cvt.cpp: mov (including vector packing/unpacking) and cvt
// between every integer and float type (PTX ISA 9.7.9.1 mov, 9.7.9.21 cvt).
//
// cvt rules (PTX ISA 9.7.9.21, "Semantics"):
//  * int -> int: sign- or zero-extend by the source type, truncate to the
//    destination, or clamp to the destination's range with .sat.
//  * float -> int: round to an integer by the .rni/.rzi/.rmi/.rpi modifier,
//    then always saturate to the destination range; NaN becomes 0.
//  * int -> float, float -> float: round by .rn/.rz/.rm/.rp (default .rn).
//    .rni etc. on float -> float rounds to an integral value in the source format.
#include <cmath>
#include <limits>

#include "lab/sim/exec.h"
#include "lab/sim/exec_fp.h"

namespace lab::sim {

using ptx::Op;
using ptx::Round;
using ptx::Type;

namespace {

// ---- mov ----------------------------------------------------------------------------
void exec_mov(const ptx::Instr& in, WarpContext& c) {
  const ptx::Operand& d = in.ops[0];
  const ptx::Operand& s = in.ops[1];
  const auto& vs = c.L->kernel->vec_slots;
  if (s.kind == ptx::OperandKind::Vec) {
    // Packing: element k goes to bits [k*w, (k+1)*w), w = width / elements.
    const uint32_t n = s.vec_len;
    const uint32_t w = uint32_t(type_bits(in.type)) / std::max(1u, n);
    const uint64_t emask = w >= 64 ? ~0ull : (1ull << w) - 1;
    uint64_t* out = dst(c, d);
    uint64_t acc[32] = {};
    for (uint32_t k = 0; k < n; ++k) {
      uint32_t slot = vs[s.reg + k];
      if (slot >= ptx::kSinkReg) continue;
      const uint64_t* v = c.regs + size_t(slot) * kWarpSize;
      each_lane(c.mask, [&](uint32_t i) { acc[i] |= (v[i] & emask) << (k * w); });
    }
    each_lane(c.mask, [&](uint32_t i) { out[i] = acc[i]; });
    return;
  }
  uint64_t ts[32];
  const uint64_t* v = src(c, s, ts);
  if (d.kind == ptx::OperandKind::Vec) {
    // Unpacking.
    const uint32_t n = d.vec_len;
    const uint32_t w = uint32_t(type_bits(in.type)) / std::max(1u, n);
    const uint64_t emask = w >= 64 ? ~0ull : (1ull << w) - 1;
    uint64_t copy[32];
    std::memcpy(copy, v, sizeof copy);  // a destination may alias the source
    for (uint32_t k = 0; k < n; ++k) {
      uint32_t slot = vs[d.reg + k];
      if (slot >= ptx::kSinkReg) continue;
      uint64_t* out = c.regs + size_t(slot) * kWarpSize;
      each_lane(c.mask, [&](uint32_t i) { out[i] = (copy[i] >> (k * w)) & emask; });
    }
    return;
  }
  uint64_t* out = dst(c, d);
  if (c.mask == 0xffffffffu) std::memcpy(out, v, 32 * sizeof(uint64_t));
  else each_lane(c.mask, [&](uint32_t i) { out[i] = v[i]; });
}

// ---- cvt ------------------------------------------------------------------------------
enum class Kind : uint8_t { SInt, UInt, Float };

Kind kind_of(Type t) {
  if (ptx::type_is_float(t)) return Kind::Float;
  return ptx::type_is_signed(t) ? Kind::SInt : Kind::UInt;
}

// The source as a double (floats) or a 128-bit integer (ints).
double float_value(Type t, uint64_t raw, bool ftz) {
  switch (t) {
    case Type::F16: return f16_value(uint16_t(raw));
    case Type::BF16: return bf16_value(uint16_t(raw));
    case Type::F64: return as<double>(raw);
    default: {
      float f = as<float>(raw);
      return double(ftz ? flush_f32(f) : f);
    }
  }
}

__int128 int_value(Type t, uint64_t raw) {
  int bitsz = type_bits(t);
  if (bitsz >= 64) return ptx::type_is_signed(t) ? __int128(int64_t(raw)) : __int128(raw);
  uint64_t m = (1ull << bitsz) - 1;
  uint64_t v = raw & m;
  if (ptx::type_is_signed(t) && (v >> (bitsz - 1)) & 1) return __int128(v) - (__int128(1) << bitsz);
  return __int128(v);
}

__int128 int_min(Type t) {
  return ptx::type_is_signed(t) ? -(__int128(1) << (type_bits(t) - 1)) : 0;
}
__int128 int_max(Type t) {
  return ptx::type_is_signed(t) ? (__int128(1) << (type_bits(t) - 1)) - 1 : (__int128(1) << type_bits(t)) - 1;
}

uint64_t int_bits(Type t, __int128 v) {
  int bitsz = type_bits(t);
  uint64_t u = uint64_t((unsigned __int128)v);
  return bitsz >= 64 ? u : (u & ((1ull << bitsz) - 1));
}

double round_integral(double v, Round r) {
  switch (r) {
    case Round::Rzi: return std::trunc(v);
    case Round::Rmi: return std::floor(v);
    case Round::Rpi: return std::ceil(v);
    case Round::Rni: return std::nearbyint(v);  // the host runs in nearest-even here
    default: return v;
  }
}

// One float result in the destination format, from an exact double.
uint64_t float_bits(Type t, double v, Round r, bool ftz, bool sat, bool relu) {
  if (sat) v = sat_f64(v);
  if (relu && !std::isnan(v) && v < 0) v = 0.0;
  Round rr = r == Round::None ? Round::Rn : r;
  switch (t) {
    case Type::F64: return bits(v);
    case Type::F16: return to_f16(v, rr);
    case Type::BF16: return to_bf16(v, rr);
    case Type::TF32: {
      // tf32 keeps 10 fraction bits of an f32; stored as f32 bits with the rest zero.
      uint32_t b = narrow_float(v, 10, 8, r == Round::None ? Round::Rna : rr);
      uint32_t sign = (b >> 18) & 1;
      return (uint64_t(sign) << 31) | (uint64_t(b & 0x3ffff) << 13);
    }
    default: {
      float f = to_f32(v, rr);
      if (ftz) f = flush_f32(f);
      return bits(f);
    }
  }
}

uint64_t convert_lane(const ptx::Instr& in, Type dt, Type st, uint64_t raw) {
  const bool ftz = in.flags & ptx::kFlagFtz;
  const bool sat = in.flags & ptx::kFlagSat;
  const bool relu = in.flags & ptx::kFlagRelu;
  const Kind dk = kind_of(dt), sk = kind_of(st);
  if (sk != Kind::Float && dk != Kind::Float) {
    __int128 v = int_value(st, raw);
    if (sat) v = std::clamp(v, int_min(dt), int_max(dt));
    return int_bits(dt, v);
  }
  if (sk == Kind::Float && dk != Kind::Float) {
    double v = float_value(st, raw, ftz);
    if (std::isnan(v)) return 0;
    v = round_integral(v, in.round == Round::None ? Round::Rzi : in.round);
    // Saturate in double: the bounds of 64-bit types are powers of two, exact in double.
    double lo = double(int_min(dt)), hi = std::ldexp(1.0, type_bits(dt) - (ptx::type_is_signed(dt) ? 1 : 0));
    if (v < lo) return int_bits(dt, int_min(dt));
    if (v >= hi) return int_bits(dt, int_max(dt));
    return int_bits(dt, __int128(v));
  }
  if (sk != Kind::Float) {  // int -> float
    __int128 v = int_value(st, raw);
    Round r = in.round == Round::None ? Round::Rn : in.round;
    if (dt == Type::F32) {
      // The host's conversion rounds once in its current mode (set by the caller).
      float f = ptx::type_is_signed(st) ? float(int64_t(v)) : float(uint64_t(v));
      f = fp_fence(f);
      if (sat) f = sat_f32(f);
      return bits(ftz ? flush_f32(f) : f);
    }
    if (dt == Type::F64) {
      double f = ptx::type_is_signed(st) ? double(int64_t(v)) : double(uint64_t(v));
      f = fp_fence(f);
      return bits(sat ? sat_f64(f) : f);
    }
    double dv = ptx::type_is_signed(st) ? double(int64_t(v)) : double(uint64_t(v));
    return float_bits(dt, dv, r, ftz, sat, relu);
  }
  // float -> float
  double v = float_value(st, raw, ftz);
  switch (in.round) {
    case Round::Rni: case Round::Rzi: case Round::Rmi: case Round::Rpi:
      v = round_integral(v, in.round);
      return float_bits(dt, v, Round::Rn, ftz, sat, relu);
    default:
      if (std::isnan(v)) {
        // NaN keeps quiet NaN form in the destination format.
        if (dt == Type::F64) return bits(std::numeric_limits<double>::quiet_NaN());
        if (dt == Type::F32) return 0x7fffffffu;
        return 0x7fff;
      }
      return float_bits(dt, v, in.round, ftz, sat, relu);
  }
}

void exec_convert(const ptx::Instr& in, WarpContext& c) {
  const Type dt = in.type, st = in.type2 == Type::None ? in.type : in.type2;
  uint64_t ta[32];
  const uint64_t* a = src(c, in.ops[1], ta);
  uint64_t* d = dst(c, in.ops[0]);
  if (dt == Type::F16x2 || dt == Type::BF16x2) {
    // cvt.rn.f16x2.f32 d, a, b: a converted into the upper half, b into the lower.
    uint64_t tb[32];
    const uint64_t* b = src(c, in.ops[2], tb);
    const Type et = dt == Type::F16x2 ? Type::F16 : Type::BF16;
    each_lane(c.mask, [&](uint32_t i) {
      uint64_t hi = convert_lane(in, et, st, a[i]), lo = convert_lane(in, et, st, b[i]);
      d[i] = (hi << 16) | lo;
    });
    return;
  }
  if (dt == Type::E4M3 || dt == Type::E5M2 || st == Type::E4M3 || st == Type::E5M2) {
    raise_fault(c, "unsupported", "cvt to or from fp8 (e4m3/e5m2) is not supported by the simulator",
                uint32_t(std::countr_zero(c.mask)));
    return;
  }
  const bool int_to_float = !ptx::type_is_float(st) && (dt == Type::F32 || dt == Type::F64);
  if (int_to_float && is_directed(in.round)) {
    RoundingScope scope(in.round);
    each_lane(c.mask, [&](uint32_t i) { d[i] = convert_lane(in, dt, st, a[i]); });
    return;
  }
  // Fast paths for the conversions compiled index arithmetic uses constantly.
  if (st == Type::U32 && (dt == Type::U64 || dt == Type::S64) && !(in.flags & ptx::kFlagSat)) {
    each_lane(c.mask, [&](uint32_t i) { d[i] = uint32_t(a[i]); });
    return;
  }
  if (st == Type::S32 && (dt == Type::S64 || dt == Type::U64) && !(in.flags & ptx::kFlagSat)) {
    each_lane(c.mask, [&](uint32_t i) { d[i] = uint64_t(int64_t(int32_t(a[i]))); });
    return;
  }
  each_lane(c.mask, [&](uint32_t i) { d[i] = convert_lane(in, dt, st, a[i]); });
}

}  // namespace

void exec_cvt(const ptx::Instr& in, WarpContext& c) {
  if (in.op == Op::Mov) exec_mov(in, c);
  else exec_convert(in, c);
}

ExecFn resolve_cvt(const ptx::Instr& in) { return in.op == Op::Mov ? exec_mov : exec_convert; }

}  // namespace lab::sim
