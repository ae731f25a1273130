// lab/sim/exec_fp.h: floating-point helpers shared by exec_float.cpp,
// exec_cvt.cpp and exec_compare.cpp: rounding-mode scopes, flush-to-zero,
// and narrowing to f16 / bf16 with every PTX rounding mode.
#pragma once

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>

#include "lab/ptx/module.h"

namespace lab::sim {

// The host's rounding mode for a PTX rounding modifier (PTX ISA 9.7.3:
// .rn nearest-even, .rz toward zero, .rm toward -inf, .rp toward +inf; the
// integral forms .rni/.rzi/.rmi/.rpi round the same way to an integer).
inline int host_round_mode(ptx::Round r) {
  switch (r) {
    case ptx::Round::Rz: case ptx::Round::Rzi: return FE_TOWARDZERO;
    case ptx::Round::Rm: case ptx::Round::Rmi: return FE_DOWNWARD;
    case ptx::Round::Rp: case ptx::Round::Rpi: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}
inline bool is_directed(ptx::Round r) { return host_round_mode(r) != FE_TONEAREST; }

// Switches the host FPU to a directed rounding mode for one warp instruction.
// Only directed modes pay for fesetround; .rn is the host's default.
class RoundingScope {
 public:
  explicit RoundingScope(ptx::Round r) {
    int m = host_round_mode(r);
    if (m != FE_TONEAREST) {
      saved_ = std::fegetround();
      std::fesetround(m);
      active_ = true;
    }
  }
  ~RoundingScope() {
    if (active_) std::fesetround(saved_);
  }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int saved_ = FE_TONEAREST;
  bool active_ = false;
};

// Keeps the compiler from moving a floating-point result across the
// fesetround calls of a RoundingScope (it does not model the FP environment).
template <class T>
inline T fp_fence(T x) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("" : "+x"(x));
#elif defined(__aarch64__)
  asm volatile("" : "+w"(x));
#else
  volatile T v = x;
  x = v;
#endif
  return x;
}

// .ftz: subnormal f32 inputs and results become sign-preserving zero (PTX ISA 9.7.3).
inline float flush_f32(float x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}
// .sat: clamp to [0.0, 1.0]; NaN becomes +0.0 (PTX ISA 9.7.3).
inline float sat_f32(float x) { return std::isnan(x) ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline double sat_f64(double x) { return std::isnan(x) ? 0.0 : x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }

// Rounds a double to a narrow binary format with `man` fraction bits and
// `exp_bits` exponent bits, in PTX rounding mode `r`; returns its bits.
// NaN becomes the canonical NaN 0x7fff that the hardware produces.
uint32_t narrow_float(double x, int man, int exp_bits, ptx::Round r);
inline uint16_t to_f16(double x, ptx::Round r) { return uint16_t(narrow_float(x, 10, 5, r)); }
inline uint16_t to_bf16(double x, ptx::Round r) { return uint16_t(narrow_float(x, 7, 8, r)); }
double f16_value(uint16_t h);
inline double bf16_value(uint16_t b) { return double(std::bit_cast<float>(uint32_t(b) << 16)); }

// Rounds a double to f32 in PTX rounding mode `r` (exact, one rounding).
float to_f32(double x, ptx::Round r);

}  // namespace lab::sim
