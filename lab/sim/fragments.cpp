// lab/sim/fragments.cpp: the fragment tables of fragments.h. Each branch
// transcribes one table of the PTX ISA (8.x numbering):
//   9.7.14.5.6  Matrix Fragments for mma.m16n8k4   (.tf32)
//   9.7.14.5.7  Matrix Fragments for mma.m16n8k8   (.f16/.bf16, .tf32)
//   9.7.14.5.8  Matrix Fragments for mma.m16n8k16 with floating point type
// In all of them C/D (.f16 or .f32) is
//   row = groupID for c0, c1; groupID + 8 for c2, c3
//   col = threadID_in_group * 2 + (i & 1)
#include "lab/sim/fragments.h"

#include <cassert>

namespace lab::sim::frag {

using ptx::Type;

static bool is_half(Type t) { return t == Type::F16 || t == Type::BF16; }

// [MMA] ----------------------------------------------------------------------
FragmentInfo mma_a_info(uint32_t m, uint32_t n, uint32_t k, Type ab) {
  if (m != 16 || n != 8) return {};
  if (is_half(ab)) {
    if (k == 16) return {8, 16, 4};  // four .f16x2 registers: a0..a7
    if (k == 8) return {4, 16, 2};   // two .f16x2 registers: a0..a3
  } else if (ab == Type::TF32) {
    if (k == 8) return {4, 32, 4};   // four .b32 registers
    if (k == 4) return {2, 32, 2};   // two .b32 registers
  }
  return {};
}

FragmentInfo mma_b_info(uint32_t m, uint32_t n, uint32_t k, Type ab) {
  if (m != 16 || n != 8) return {};
  if (is_half(ab)) {
    if (k == 16) return {4, 16, 2};  // two .f16x2 registers: b0..b3
    if (k == 8) return {2, 16, 1};   // one .f16x2 register: b0, b1
  } else if (ab == Type::TF32) {
    if (k == 8) return {2, 32, 2};
    if (k == 4) return {1, 32, 1};
  }
  return {};
}

FragmentInfo mma_c_info(uint32_t m, uint32_t n, uint32_t k, Type cd) {
  if (m != 16 || n != 8 || (k != 4 && k != 8 && k != 16)) return {};
  if (cd == Type::F32) return {4, 32, 4};
  if (cd == Type::F16) return {4, 16, 2};
  return {};
}

Coord mma_a(uint32_t m, uint32_t n, uint32_t k, Type ab, uint32_t lane, uint32_t i) {
  assert(i < mma_a_info(m, n, k, ab).elems);
  (void)m; (void)n;
  const uint32_t g = group_id(lane), t = thread_in_group(lane);
  if (is_half(ab)) {
    if (k == 16)  // row = groupID (+8 for a2,a3,a6,a7); col = 2t + (i&1) (+8 for i >= 4)
      return {g + ((i & 2) ? 8u : 0u), t * 2 + (i & 1) + (i >= 4 ? 8u : 0u)};
    // k == 8: row = groupID (+8 for a2,a3); col = 2t + (i&1)
    return {g + (i >= 2 ? 8u : 0u), t * 2 + (i & 1)};
  }
  if (k == 8)  // tf32: row = groupID (+8 for a1,a3); col = t (+4 for a2,a3)
    return {g + ((i & 1) ? 8u : 0u), t + (i >= 2 ? 4u : 0u)};
  // tf32 k == 4: row = groupID (+8 for a1); col = t
  return {g + (i ? 8u : 0u), t};
}

Coord mma_b(uint32_t m, uint32_t n, uint32_t k, Type ab, uint32_t lane, uint32_t i) {
  assert(i < mma_b_info(m, n, k, ab).elems);
  (void)m; (void)n;
  const uint32_t g = group_id(lane), t = thread_in_group(lane);
  if (is_half(ab)) {
    if (k == 16)  // row = 2t + (i&1) (+8 for b2,b3); col = groupID
      return {t * 2 + (i & 1) + (i >= 2 ? 8u : 0u), g};
    return {t * 2 + i, g};  // k == 8: row = 2t + i
  }
  if (k == 8) return {t + (i ? 4u : 0u), g};  // tf32: row = t (+4 for b1)
  return {t, g};                              // tf32 k == 4
}

Coord mma_c(uint32_t m, uint32_t n, uint32_t k, uint32_t lane, uint32_t i) {
  assert(m == 16 && n == 8 && i < 4);
  (void)m; (void)n; (void)k;
  return {group_id(lane) + (i >= 2 ? 8u : 0u), thread_in_group(lane) * 2 + (i & 1)};
}

// [WMMA] ---------------------------------------------------------------------
// Register counts from PTX ISA 8.x 9.7.14.4.1 (wmma.load) fragment table:
// m16n16k16 .f16 a/b: eight .f16x2; .bf16 a/b: four .b32; .f32 c/d: eight
// .f32; .f16 c/d: four .f16x2; m16n16k8 .tf32 a/b: four .b32.
FragmentInfo wmma_info(WmmaMatrix which, uint32_t m, uint32_t n, uint32_t k, Type t) {
  if (m != 16 || n != 16) return {};
  switch (which) {
    case WmmaMatrix::A:
    case WmmaMatrix::B:
      if (k == 16 && t == Type::F16) return {16, 16, 8};
      if (k == 16 && t == Type::BF16) return {8, 16, 4};
      if (k == 8 && t == Type::TF32) return {4, 32, 4};
      return {};
    case WmmaMatrix::C:
      if (k != 16 && k != 8) return {};
      if (t == Type::F32) return {8, 32, 8};
      if (t == Type::F16 && k == 16) return {8, 16, 4};
      return {};
  }
  return {};
}

Coord wmma_element(WmmaMatrix which, uint32_t m, uint32_t n, uint32_t k, Type t, uint32_t lane,
                   uint32_t i) {
  assert(i < wmma_info(which, m, n, k, t).elems);
  (void)m; (void)n;
  const Type ab = t == Type::TF32 ? Type::TF32 : Type::F16;  // f16 and bf16 share the tables
  switch (which) {
    case WmmaMatrix::A:
      return mma_a(16, 8, k, ab, lane, i % mma_a_info(16, 8, k, ab).elems);
    case WmmaMatrix::B: {
      const uint32_t per_half = mma_b_info(16, 8, k, ab).elems;  // one n8 half
      const uint32_t j = i % (2 * per_half);
      Coord c = mma_b(16, 8, k, ab, lane, j % per_half);
      c.col += j >= per_half ? 8 : 0;
      return c;
    }
    case WmmaMatrix::C: {
      Coord c = mma_c(16, 8, k, lane, i % 4);
      c.col += i >= 4 ? 8 : 0;
      return c;
    }
  }
  return {};
}

// [WORK] ---------------------------------------------------------------------
uint64_t tensor_flops(const ptx::Instr& in) {
  // wgmma.mma_async is one instruction of each of the warpgroup's four warps;
  // each warp computes a quarter of the m rows (exec_wgmma.cpp).
  if (in.op == ptx::Op::WgmmaMmaAsync) return 2ull * (in.shape_m / 4) * in.shape_n * in.shape_k;
  if (in.op != ptx::Op::Mma && in.op != ptx::Op::WmmaMma) return 0;
  return 2ull * in.shape_m * in.shape_n * in.shape_k;
}

}  // namespace lab::sim::frag
