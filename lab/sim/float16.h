// lab/sim/float16.h: IEEE binary16 and bfloat16 <-> float conversions, the one
// place the lab converts half-precision bits (the interpreter's cvt, argument
// initialisers and the GEMM references all use these).
// Rounding is round-to-nearest-even unless a mode is given, as PTX's cvt.rn.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace lab::sim {

inline float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal half: renormalise into a float
      int e = -1;
      do { man <<= 1; ++e; } while (!(man & 0x400));
      bits = sign | uint32_t(127 - 15 - e) << 23 | (man & 0x3ff) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | man << 13 | (man ? 0x400000u : 0);  // inf or quiet NaN
  } else {
    bits = sign | (exp + 127 - 15) << 23 | man << 13;
  }
  return std::bit_cast<float>(bits);
}

// Rounding modes for narrowing: nearest-even, toward zero, down (-inf), up (+inf).
enum class NarrowRound : uint8_t { NearestEven, Zero, Down, Up };

// Round to nearest even in integer arithmetic: the mode of cvt.rn and of
// every initialiser, so the hot one (a 4096^2 fp16 GEMM converts 33M
// inputs). Bit-identical to float_to_half_rounded below for every float
// (checked over all 2^32 inputs when written; tests/test_exec_float.cpp
// keeps a sample and the edges).
inline uint16_t float_to_half_nearest(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x47800000u)  // |f| >= 65536 (inf, NaN too): past the largest half
    return uint16_t(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (ax < 0x38800000u) {
    // Below 2^-14, the smallest normal half: the result counts units of
    // 2^-24. Adding 0.5 (2^-1) puts those units at the float's last
    // significand bit, and the float addition rounds to nearest even.
    const float r = std::bit_cast<float>(ax) + 0.5f;
    return uint16_t(sign | (std::bit_cast<uint32_t>(r) - 0x3f000000u));
  }
  // A normal half: rebias the exponent (127 -> 15) and round the 13 bits
  // dropped: add just under half a unit, plus one when the kept part is odd
  // (ties to even); a carry into the exponent is right, up to infinity.
  const uint32_t odd = (ax >> 13) & 1u;
  return uint16_t(sign | ((ax - 0x38000000u + 0x0fffu + odd) >> 13));
}

// Any rounding mode, through the value's exact scaling (the definition the
// fast path above is held to).
inline uint16_t float_to_half_rounded(float f, NarrowRound mode) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  bool neg = sign != 0;
  if (std::isnan(f)) return uint16_t(sign | 0x7e00);  // canonical quiet NaN keeps the sign
  float a = std::fabs(f);
  if (std::isinf(f)) return uint16_t(sign | 0x7c00);
  // Exact value a = m * 2^e; compute the half's integer significand in the
  // target exponent's units and round it.
  int e;
  std::frexp(double(a), &e);  // a = m * 2^e with m in [0.5, 1): only e is needed
  if (a == 0.f) return sign;
  int half_exp = e - 1;  // a = 1.xxx * 2^half_exp
  double scaled;
  if (half_exp < -14) scaled = std::ldexp(double(a), 24);            // subnormal: units of 2^-24
  else scaled = std::ldexp(double(a), 10 - half_exp);                 // 1.xxx -> [1024, 2048)
  double ip = std::floor(scaled);
  double frac = scaled - ip;
  bool round_up;
  switch (mode) {
    case NarrowRound::Zero: round_up = false; break;
    case NarrowRound::Down: round_up = neg && frac > 0; break;
    case NarrowRound::Up: round_up = !neg && frac > 0; break;
    default: round_up = frac > 0.5 || (frac == 0.5 && std::fmod(ip, 2.0) != 0); break;
  }
  uint32_t sig = uint32_t(ip) + (round_up ? 1 : 0);
  uint32_t out;
  if (half_exp < -14) {
    out = sig;  // sig may carry into the smallest normal (0x400): still right
  } else {
    int biased = half_exp + 15;
    if (sig == 2048) { sig = 1024; ++biased; }
    if (biased >= 31) {
      // Overflow: to infinity, or to the largest finite under directed rounding.
      bool to_inf = mode == NarrowRound::NearestEven || (mode == NarrowRound::Up && !neg) ||
                    (mode == NarrowRound::Down && neg);
      return uint16_t(sign | (to_inf ? 0x7c00 : 0x7bff));
    }
    out = uint32_t(biased) << 10 | (sig & 0x3ff);
  }
  return uint16_t(sign | out);
}

inline uint16_t float_to_half(float f, NarrowRound mode = NarrowRound::NearestEven) {
  return mode == NarrowRound::NearestEven ? float_to_half_nearest(f) : float_to_half_rounded(f, mode);
}

inline float bf16_to_float(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

inline uint16_t float_to_bf16(float f, NarrowRound mode = NarrowRound::NearestEven) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return uint16_t((x >> 16) | 0x40);
  uint32_t lower = x & 0xffff;
  uint32_t upper = x >> 16;
  bool neg = x >> 31;
  bool round_up;
  switch (mode) {
    case NarrowRound::Zero: round_up = false; break;
    case NarrowRound::Down: round_up = neg && lower; break;
    case NarrowRound::Up: round_up = !neg && lower; break;
    default: round_up = lower > 0x8000 || (lower == 0x8000 && (upper & 1)); break;
  }
  return uint16_t(upper + (round_up ? 1 : 0));  // a carry into the exponent is the right answer
}

}  // namespace lab::sim
