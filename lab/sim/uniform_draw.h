// lab/sim/uniform_draw.h: the lab's random inputs, uniform in [-1, 1), drawn
// as libstdc++'s std::uniform_real_distribution draws them, written out so
// that filling hundreds of megabytes costs no library call per element and
// every input the lab has recorded figures with stays the same bit for bit.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace lab::sim {

// One element of a `rand` fill (arg_spec.h) or a lesson's inputs: a 64-bit draw of std::mt19937_64 mapped to
// [-1, 1) exactly as std::uniform_real_distribution<double>(-1, 1) maps it
// (libstdc++'s generate_canonical takes one 64-bit draw for a double: draw /
// 2^64, held below 1, then * 2 - 1); test_sim_args holds the two to each
// other.
inline double uniform_minus_one_to_one(uint64_t draw) {
  // double(draw) for an unsigned draw, without the branch the compiler emits
  // on its top bit (half the draws: a mispredict each): a draw of 2^63 and up
  // is halved, its lost bit kept as a sticky bit so that it rounds the same,
  // and doubled back; the two conversions are chosen between by mask.
  const double low = double(int64_t(draw & ~(uint64_t(1) << 63)));
  const double high = double(int64_t((draw >> 1) | (draw & 1))) * 2.0;
  const uint64_t take_high = uint64_t(0) - (draw >> 63);
  const uint64_t bits = (std::bit_cast<uint64_t>(high) & take_high) | (std::bit_cast<uint64_t>(low) & ~take_high);
  double u = std::bit_cast<double>(bits) * 0x1p-64;
  if (u >= 1.0) [[unlikely]] u = std::nextafter(1.0, 0.0);
  return u * 2.0 + -1.0;
}

// One draw of std::uniform_real_distribution<float>(-1, 1) from a 32-bit
// std::mt19937, as libstdc++ makes it (generate_canonical<float> takes one
// 32-bit draw: float(draw) / 2^32, held below 1; the distribution then
// gives u * 2 + -1 in float): the GEMM problems' inputs (make_gemm_problem;
// test_bench_gemm holds the two to each other).
inline float uniform_minus_one_to_one_f32(uint32_t draw) {
  float u = float(draw) * 0x1p-32f;
  if (u >= 1.f) [[unlikely]] u = 0x1.fffffep-1f;  // std::nextafter(1.f, 0.f)
  return u * 2.f + -1.f;
}

}  // namespace lab::sim
