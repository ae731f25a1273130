// lab/sim/exec_float.cpp: floating-point arithmetic (PTX ISA 9.7.3 f32/f64,
// 9.7.4 f16/bf16 and their x2 forms).
//
// f32/f64 add/sub/mul/fma/div.rn/sqrt.rn/rcp.rn are IEEE operations, so the
// host computes them bit-exactly; directed roundings switch the host FPU for
// the one instruction. The .approx functions (sin, cos, ex2, lg2, rsqrt,
// tanh, rcp/div.approx) are computed in double and rounded once to f32:
// the result is the correctly rounded value, where the hardware's MUFU unit
// has a few ulp of error (PTX ISA gives e.g. max 2 ulp for ex2.approx.f32,
// 2^-22.5 absolute for sin/cos in [-pi, pi]), so these can differ from a GPU
// in the last bits. f16/bf16 are computed in double and rounded once.
#include <bit>
#include <cmath>
#include <limits>

#include "lab/sim/exec.h"
#include "lab/sim/exec_fp.h"
#include "lab/sim/float16.h"

namespace lab::sim {

using ptx::Op;
using ptx::Round;
using ptx::Type;

// ---- narrowing --------------------------------------------------------------------
uint32_t narrow_float(double x, int man, int exp_bits, Round r) {
  const uint32_t exp_all = (1u << exp_bits) - 1;
  const int bias = int(exp_all >> 1);
  const uint32_t sign = std::signbit(x) ? 1u << (man + exp_bits) : 0u;
  if (std::isnan(x)) return (exp_all << man) | ((1u << man) - 1);  // canonical NaN (0x7fff for f16/bf16)
  if (std::isinf(x)) return sign | (exp_all << man);
  double a = std::fabs(x);
  if (a == 0.0) return sign;
  const bool neg = sign != 0;
  int e;
  std::frexp(a, &e);
  int E = e - 1;                 // a = 1.xxx * 2^E
  const int min_normal = 1 - bias;
  const bool subnormal = E < min_normal;
  double scaled = subnormal ? std::ldexp(a, man - min_normal) : std::ldexp(a, man - E);
  double ip = std::floor(scaled);
  double frac = scaled - ip;
  bool up;
  switch (r) {
    case Round::Rz: case Round::Rzi: up = false; break;
    case Round::Rm: case Round::Rmi: up = neg && frac > 0; break;
    case Round::Rp: case Round::Rpi: up = !neg && frac > 0; break;
    case Round::Rna: up = frac >= 0.5; break;
    default: up = frac > 0.5 || (frac == 0.5 && std::fmod(ip, 2.0) != 0); break;
  }
  uint64_t sig = uint64_t(ip) + (up ? 1 : 0);
  if (subnormal) return sign | uint32_t(sig);  // a carry into the smallest normal encodes correctly
  uint32_t biased = uint32_t(E + bias);
  if (sig == (uint64_t(1) << (man + 1))) {
    sig >>= 1;
    ++biased;
  }
  if (biased >= exp_all) {
    // Overflow: infinity, or the largest finite value under directed rounding toward it.
    bool to_inf = !(r == Round::Rz || r == Round::Rzi || ((r == Round::Rm || r == Round::Rmi) && !neg) ||
                    ((r == Round::Rp || r == Round::Rpi) && neg));
    return to_inf ? sign | (exp_all << man) : sign | ((exp_all - 1) << man) | ((1u << man) - 1);
  }
  return sign | (biased << man) | uint32_t(sig & ((uint64_t(1) << man) - 1));
}

double f16_value(uint16_t h) { return double(half_to_float(h)); }

float to_f32(double x, Round r) {
  if (std::isnan(x)) return std::numeric_limits<float>::quiet_NaN();
  if (!is_directed(r)) return float(x);
  return std::bit_cast<float>(narrow_float(x, 23, 8, r));
}

namespace {

// PTX min/max (9.7.3.10/11): a NaN operand is ignored unless both are NaN;
// -0.0 counts as less than +0.0. With .NaN any NaN operand gives NaN.
template <class T>
inline T fmin_ptx(T a, T b, bool nan_prop) {
  if (std::isnan(a) || std::isnan(b)) {
    if (nan_prop || (std::isnan(a) && std::isnan(b))) return std::numeric_limits<T>::quiet_NaN();
    return std::isnan(a) ? b : a;
  }
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class T>
inline T fmax_ptx(T a, T b, bool nan_prop) {
  if (std::isnan(a) || std::isnan(b)) {
    if (nan_prop || (std::isnan(a) && std::isnan(b))) return std::numeric_limits<T>::quiet_NaN();
    return std::isnan(a) ? b : a;
  }
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

// The operation as a function of up to three operands in the instruction's
// precision. `nsrc` operands are read from ops[1..nsrc].
template <class T, class F>
void float_op(WarpContext& c, const ptx::Instr& in, int nsrc, F f) {
  uint64_t ta[32], tb[32], tc[32];
  const uint64_t* a = src(c, in.ops[1], ta);
  const uint64_t* b = nsrc > 1 ? src(c, in.ops[2], tb) : a;
  const uint64_t* cc = nsrc > 2 ? src(c, in.ops[3], tc) : a;
  uint64_t* d = dst(c, in.ops[0]);
  const bool ftz = std::is_same_v<T, float> && (in.flags & ptx::kFlagFtz);
  const bool sat = in.flags & ptx::kFlagSat;
  if (!ftz && !sat && !is_directed(in.round)) {
    each_lane(c.mask, [&](uint32_t i) { d[i] = bits(f(as<T>(a[i]), as<T>(b[i]), as<T>(cc[i]))); });
    return;
  }
  RoundingScope scope(in.round);
  each_lane(c.mask, [&](uint32_t i) {
    T x = as<T>(a[i]), y = as<T>(b[i]), z = as<T>(cc[i]);
    if constexpr (std::is_same_v<T, float>) {
      if (ftz) { x = flush_f32(x); y = flush_f32(y); z = flush_f32(z); }
    }
    T r = fp_fence(f(x, y, z));
    if constexpr (std::is_same_v<T, float>) {
      if (sat) r = sat_f32(r);
      if (ftz) r = flush_f32(r);
    } else {
      if (sat) r = sat_f64(r);
    }
    d[i] = bits(r);
  });
}

// fma.rn.f32 is the inner loop of every GEMM. Without -mfma the host's fmaf
// is a library call per lane; with the FMA3 instruction (checked at run
// time) the loop compiles to vfmadd, which is the same correctly rounded
// operation.
#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) void fma_f32_fma3(const uint64_t* a, const uint64_t* b, const uint64_t* z,
                                                     uint64_t* d, uint32_t mask) {
  auto lane = [&](uint32_t i) {
    float r = __builtin_fmaf(std::bit_cast<float>(uint32_t(a[i])), std::bit_cast<float>(uint32_t(b[i])),
                             std::bit_cast<float>(uint32_t(z[i])));
    d[i] = std::bit_cast<uint32_t>(r);
  };
  if (mask == 0xffffffffu) {
    for (uint32_t i = 0; i < kWarpSize; ++i) lane(i);
  } else {
    for (uint32_t m = mask; m; m &= m - 1) lane(uint32_t(__builtin_ctz(m)));
  }
}
const bool kHostHasFma = __builtin_cpu_supports("fma");
#endif

bool fast_fma_f32(const ptx::Instr& in, WarpContext& c) {
#if defined(__x86_64__)
  if (!kHostHasFma || (in.flags & (ptx::kFlagFtz | ptx::kFlagSat)) || is_directed(in.round)) return false;
  uint64_t ta[32], tb[32], tc[32];
  const uint64_t* a = src(c, in.ops[1], ta);
  const uint64_t* b = src(c, in.ops[2], tb);
  const uint64_t* z = src(c, in.ops[3], tc);
  fma_f32_fma3(a, b, z, dst(c, in.ops[0]), c.mask);
  return true;
#else
  return false;
#endif
}

// f32/f64 arithmetic. With kOp = Op::Invalid the opcode is read from the
// instruction; resolve_float fixes it for add/sub/mul/fma, so that the
// switch folds away.
template <class T, Op kOp = Op::Invalid>
void exec_ieee(const ptx::Instr& in, WarpContext& c) {
  const bool nan_prop = in.flags & ptx::kFlagNaN;
  const bool approx = in.flags & ptx::kFlagApprox;
  switch (kOp == Op::Invalid ? in.op : kOp) {
    case Op::Add: float_op<T>(c, in, 2, [](T a, T b, T) { return T(a + b); }); return;
    case Op::Sub: float_op<T>(c, in, 2, [](T a, T b, T) { return T(a - b); }); return;
    case Op::Mul: float_op<T>(c, in, 2, [](T a, T b, T) { return T(a * b); }); return;
    // mad.rnd.f32/f64 is fused like fma (PTX ISA 9.7.3.6).
    case Op::Mad: case Op::Fma:
      if constexpr (std::is_same_v<T, float>) {
        if (fast_fma_f32(in, c)) return;
      }
      float_op<T>(c, in, 3, [](T a, T b, T z) { return std::fma(a, b, z); });
      return;
    case Op::Div:
      if (approx && std::is_same_v<T, float>)
        float_op<T>(c, in, 2, [](T a, T b, T) { return T(double(a) / double(b)); });
      else
        float_op<T>(c, in, 2, [](T a, T b, T) { return T(a / b); });
      return;
    case Op::Abs: float_op<T>(c, in, 1, [](T a, T, T) { return std::fabs(a); }); return;
    case Op::Neg: float_op<T>(c, in, 1, [](T a, T, T) { return T(-a); }); return;
    case Op::Min: float_op<T>(c, in, 2, [nan_prop](T a, T b, T) { return fmin_ptx<T>(a, b, nan_prop); }); return;
    case Op::Max: float_op<T>(c, in, 2, [nan_prop](T a, T b, T) { return fmax_ptx<T>(a, b, nan_prop); }); return;
    case Op::Rcp:
      if (approx) float_op<T>(c, in, 1, [](T a, T, T) { return T(1.0 / double(a)); });
      else float_op<T>(c, in, 1, [](T a, T, T) { return T(T(1) / a); });
      return;
    case Op::Sqrt: float_op<T>(c, in, 1, [](T a, T, T) { return std::sqrt(a); }); return;
    case Op::Rsqrt: float_op<T>(c, in, 1, [](T a, T, T) { return T(1.0 / std::sqrt(double(a))); }); return;
    case Op::Sin: float_op<T>(c, in, 1, [](T a, T, T) { return T(std::sin(double(a))); }); return;
    case Op::Cos: float_op<T>(c, in, 1, [](T a, T, T) { return T(std::cos(double(a))); }); return;
    case Op::Lg2: float_op<T>(c, in, 1, [](T a, T, T) { return T(std::log2(double(a))); }); return;
    case Op::Ex2: float_op<T>(c, in, 1, [](T a, T, T) { return T(std::exp2(double(a))); }); return;
    case Op::Tanh: float_op<T>(c, in, 1, [](T a, T, T) { return T(std::tanh(double(a))); }); return;
    case Op::Copysign:  // copysign d, a, b: b with a's sign (PTX ISA 9.7.3.3)
      float_op<T>(c, in, 2, [](T a, T b, T) { return std::copysign(b, a); });
      return;
    case Op::Testp: {
      uint64_t ta[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      uint64_t* d = dst(c, in.ops[0]);
      const auto mode = ptx::TestpMode(in.mode);
      each_lane(c.mask, [&](uint32_t i) {
        T x = as<T>(a[i]);
        bool r = false;
        switch (mode) {
          case ptx::TestpMode::Finite: r = std::isfinite(x); break;
          case ptx::TestpMode::Infinite: r = std::isinf(x); break;
          case ptx::TestpMode::Number: r = !std::isnan(x); break;
          case ptx::TestpMode::NotANumber: r = std::isnan(x); break;
          case ptx::TestpMode::Normal: r = std::isnormal(x); break;
          case ptx::TestpMode::Subnormal: r = std::fpclassify(x) == FP_SUBNORMAL; break;
          default: break;
        }
        d[i] = r;
      });
      return;
    }
    default:
      raise_fault(c, "unsupported", std::string("floating-point instruction '") + ptx::op_name(in.op) +
                                        "' is not supported for " + ptx::type_name(in.type),
                  uint32_t(std::countr_zero(c.mask)));
      return;
  }
}

// f16 / bf16 and their packed x2 forms: each half computed in double and
// rounded once (exact for add, sub, mul; fma can differ from a single
// rounding only in rare double-rounding cases).
void exec_half(const ptx::Instr& in, WarpContext& c) {
  const bool bf = in.type == Type::BF16 || in.type == Type::BF16x2;
  const int halves = (in.type == Type::F16x2 || in.type == Type::BF16x2) ? 2 : 1;
  const bool sat = in.flags & ptx::kFlagSat;
  const bool ftz = in.flags & ptx::kFlagFtz;
  const bool nan_prop = in.flags & ptx::kFlagNaN;
  Round r = in.round == Round::None ? Round::Rn : in.round;
  uint64_t ta[32], tb[32], tc[32];
  const int nsrc = (in.op == Op::Fma || in.op == Op::Mad) ? 3
                   : (in.op == Op::Neg || in.op == Op::Abs || in.op == Op::Ex2 || in.op == Op::Rcp ||
                      in.op == Op::Sqrt || in.op == Op::Rsqrt || in.op == Op::Tanh || in.op == Op::Sin ||
                      in.op == Op::Cos || in.op == Op::Lg2)
                       ? 1
                       : 2;
  const uint64_t* a = src(c, in.ops[1], ta);
  const uint64_t* b = nsrc > 1 ? src(c, in.ops[2], tb) : a;
  const uint64_t* cc = nsrc > 2 ? src(c, in.ops[3], tc) : a;
  uint64_t* d = dst(c, in.ops[0]);
  auto value = [&](uint16_t h) {
    double v = bf ? bf16_value(h) : f16_value(h);
    if (ftz && !bf && std::fpclassify(float(v)) != FP_ZERO && std::fabs(v) < 0x1p-14) v = std::copysign(0.0, v);
    return v;
  };
  each_lane(c.mask, [&](uint32_t i) {
    uint32_t out = 0;
    for (int h = 0; h < halves; ++h) {
      uint16_t ha = uint16_t(a[i] >> (16 * h)), hb = uint16_t(b[i] >> (16 * h)), hc = uint16_t(cc[i] >> (16 * h));
      uint16_t res;
      if (in.op == Op::Neg) {
        res = uint16_t(ha ^ 0x8000);
      } else if (in.op == Op::Abs) {
        res = uint16_t(ha & 0x7fff);
      } else {
        double x = value(ha), y = value(hb), z = value(hc), v;
        switch (in.op) {
          case Op::Add: v = x + y; break;
          case Op::Sub: v = x - y; break;
          case Op::Mul: v = x * y; break;
          case Op::Fma: case Op::Mad: v = std::fma(x, y, z); break;
          case Op::Min: v = fmin_ptx(x, y, nan_prop); break;
          case Op::Max: v = fmax_ptx(x, y, nan_prop); break;
          case Op::Ex2: v = std::exp2(x); break;
          case Op::Rcp: v = 1.0 / x; break;
          case Op::Sqrt: v = std::sqrt(x); break;
          case Op::Rsqrt: v = 1.0 / std::sqrt(x); break;
          case Op::Tanh: v = std::tanh(x); break;
          case Op::Sin: v = std::sin(x); break;
          case Op::Cos: v = std::cos(x); break;
          case Op::Lg2: v = std::log2(x); break;
          case Op::Div: v = x / y; break;
          default: v = std::numeric_limits<double>::quiet_NaN(); break;
        }
        if (sat) v = sat_f64(v);
        res = bf ? to_bf16(v, r) : to_f16(v, r);
        if (ftz && !bf && (res & 0x7c00) == 0) res &= 0x8000;
      }
      out |= uint32_t(res) << (16 * h);
    }
    d[i] = out;
  });
}

}  // namespace

void exec_float(const ptx::Instr& in, WarpContext& c) {
  switch (in.type) {
    case Type::F32: exec_ieee<float>(in, c); return;
    case Type::F64: exec_ieee<double>(in, c); return;
    case Type::F16: case Type::F16x2: case Type::BF16: case Type::BF16x2:
      exec_half(in, c);
      return;
    default:
      raise_fault(c, "unsupported", std::string("floating-point instruction '") + ptx::op_name(in.op) +
                                        "' is not supported for " + ptx::type_name(in.type),
                  uint32_t(std::countr_zero(c.mask)));
  }
}

namespace {

template <class T>
ExecFn ieee_handler(Op op) {
  switch (op) {
    case Op::Add: return exec_ieee<T, Op::Add>;
    case Op::Sub: return exec_ieee<T, Op::Sub>;
    case Op::Mul: return exec_ieee<T, Op::Mul>;
    case Op::Fma: case Op::Mad: return exec_ieee<T, Op::Fma>;  // mad.f32/f64 is fused (9.7.3.6)
    default: return exec_ieee<T>;
  }
}

}  // namespace

ExecFn resolve_float(const ptx::Instr& in) {
  switch (in.type) {
    case Type::F32: return ieee_handler<float>(in.op);
    case Type::F64: return ieee_handler<double>(in.op);
    case Type::F16: case Type::F16x2: case Type::BF16: case Type::BF16x2: return exec_half;
    default: return exec_float;  // reports the unsupported type
  }
}

}  // namespace lab::sim
