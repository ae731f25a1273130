// Tensor-core instructions: fragment layouts against the PTX ISA tables, and
// whole kernels (wmma, mma.sync + ldmatrix, tf32, bf16) run in the simulator
// against a float64 CPU reference.
#include <doctest/doctest.h>

#include <set>
#include <utility>

#include "lab/sim/fragments.h"

using namespace lab;
using namespace lab::sim;
using ptx::Type;

// ---- fragment tables ----------------------------------------------------------
// Every spot check below is read off the PTX ISA 8.x tables by hand:
// groupID = lane >> 2, threadID_in_group = lane % 4.

TEST_CASE("mma.m16n8k16 .f16 A fragment (PTX ISA 9.7.14.5.8)") {
  auto a = [](uint32_t lane, uint32_t i) { return frag::mma_a(16, 8, 16, Type::F16, lane, i); };
  CHECK(frag::mma_a_info(16, 8, 16, Type::F16).elems == 8);
  CHECK(frag::mma_a_info(16, 8, 16, Type::F16).regs == 4);
  // lane 5: groupID 1, threadID_in_group 1.
  CHECK(a(5, 0) == frag::Coord{1, 2});   // a0: row g, col 2t
  CHECK(a(5, 1) == frag::Coord{1, 3});   // a1: row g, col 2t+1
  CHECK(a(5, 2) == frag::Coord{9, 2});   // a2: row g+8
  CHECK(a(5, 3) == frag::Coord{9, 3});
  CHECK(a(5, 4) == frag::Coord{1, 10});  // a4: col 2t+8
  CHECK(a(5, 7) == frag::Coord{9, 11});  // a7: row g+8, col 2t+1+8
  // lane 31: groupID 7, threadID_in_group 3.
  CHECK(a(31, 0) == frag::Coord{7, 6});
  CHECK(a(31, 6) == frag::Coord{15, 14});
  CHECK(frag::mma_a(16, 8, 16, Type::BF16, 31, 6) == frag::Coord{15, 14});  // bf16 shares the table
}

TEST_CASE("mma.m16n8k16 .f16 B and .f32 C/D fragments (PTX ISA 9.7.14.5.8)") {
  auto b = [](uint32_t lane, uint32_t i) { return frag::mma_b(16, 8, 16, Type::F16, lane, i); };
  CHECK(frag::mma_b_info(16, 8, 16, Type::F16).regs == 2);
  // lane 6: g 1, t 2. b_i: row 2t + (i&1) (+8 for i >= 2), col g.
  CHECK(b(6, 0) == frag::Coord{4, 1});
  CHECK(b(6, 1) == frag::Coord{5, 1});
  CHECK(b(6, 2) == frag::Coord{12, 1});
  CHECK(b(6, 3) == frag::Coord{13, 1});
  // C: c0,c1 row g, c2,c3 row g+8, col 2t + (i&1). lane 13: g 3, t 1.
  CHECK(frag::mma_c(16, 8, 16, 13, 0) == frag::Coord{3, 2});
  CHECK(frag::mma_c(16, 8, 16, 13, 3) == frag::Coord{11, 3});
  CHECK(frag::mma_c_info(16, 8, 16, Type::F32).regs == 4);
  CHECK(frag::mma_c_info(16, 8, 16, Type::F16).regs == 2);
}

TEST_CASE("mma.m16n8k8 .f16 and .tf32 fragments (PTX ISA 9.7.14.5.7)") {
  // .f16 A: row g for a0,a1, g+8 for a2,a3; col 2t + (i&1). lane 9: g 2, t 1.
  CHECK(frag::mma_a(16, 8, 8, Type::F16, 9, 1) == frag::Coord{2, 3});
  CHECK(frag::mma_a(16, 8, 8, Type::F16, 9, 2) == frag::Coord{10, 2});
  // .f16 B: row 2t + i, col g.
  CHECK(frag::mma_b(16, 8, 8, Type::F16, 9, 1) == frag::Coord{3, 2});
  CHECK(frag::mma_b_info(16, 8, 8, Type::F16).regs == 1);
  // .tf32 A: row g for a0,a2, g+8 for a1,a3; col t for a0,a1, t+4 for a2,a3.
  CHECK(frag::mma_a_info(16, 8, 8, Type::TF32).regs == 4);
  CHECK(frag::mma_a(16, 8, 8, Type::TF32, 9, 0) == frag::Coord{2, 1});
  CHECK(frag::mma_a(16, 8, 8, Type::TF32, 9, 1) == frag::Coord{10, 1});
  CHECK(frag::mma_a(16, 8, 8, Type::TF32, 9, 2) == frag::Coord{2, 5});
  CHECK(frag::mma_a(16, 8, 8, Type::TF32, 9, 3) == frag::Coord{10, 5});
  // .tf32 B: row t for b0, t+4 for b1; col g.
  CHECK(frag::mma_b(16, 8, 8, Type::TF32, 9, 0) == frag::Coord{1, 2});
  CHECK(frag::mma_b(16, 8, 8, Type::TF32, 9, 1) == frag::Coord{5, 2});
  // m16n8k4 .tf32 (9.7.14.5.6): a0 row g, a1 row g+8, col t; b0 row t, col g.
  CHECK(frag::mma_a(16, 8, 4, Type::TF32, 9, 1) == frag::Coord{10, 1});
  CHECK(frag::mma_b(16, 8, 4, Type::TF32, 9, 0) == frag::Coord{1, 2});
  // Shapes the ISA does not define for a type are reported as unsupported.
  CHECK(frag::mma_a_info(16, 8, 16, Type::TF32).elems == 0);
  CHECK(frag::mma_a_info(16, 8, 4, Type::F16).elems == 0);
}

// Each fragment must cover its matrix exactly once across the warp.
static void check_covers(uint32_t rows, uint32_t cols, uint32_t elems,
                         frag::Coord (*at)(uint32_t lane, uint32_t i)) {
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (uint32_t lane = 0; lane < 32; ++lane)
    for (uint32_t i = 0; i < elems; ++i) {
      frag::Coord c = at(lane, i);
      REQUIRE(c.row < rows);
      REQUIRE(c.col < cols);
      seen.insert({c.row, c.col});
    }
  CHECK(seen.size() == size_t(rows) * cols);
  CHECK(size_t(32) * elems == size_t(rows) * cols);
}

TEST_CASE("mma fragments cover their matrices exactly once") {
  check_covers(16, 16, 8, [](uint32_t l, uint32_t i) { return frag::mma_a(16, 8, 16, Type::F16, l, i); });
  check_covers(16, 8, 4, [](uint32_t l, uint32_t i) { return frag::mma_b(16, 8, 16, Type::F16, l, i); });
  check_covers(16, 8, 4, [](uint32_t l, uint32_t i) { return frag::mma_c(16, 8, 16, l, i); });
  check_covers(16, 8, 4, [](uint32_t l, uint32_t i) { return frag::mma_a(16, 8, 8, Type::F16, l, i); });
  check_covers(8, 8, 2, [](uint32_t l, uint32_t i) { return frag::mma_b(16, 8, 8, Type::F16, l, i); });
  check_covers(16, 8, 4, [](uint32_t l, uint32_t i) { return frag::mma_a(16, 8, 8, Type::TF32, l, i); });
  check_covers(8, 8, 2, [](uint32_t l, uint32_t i) { return frag::mma_b(16, 8, 8, Type::TF32, l, i); });
  check_covers(16, 4, 2, [](uint32_t l, uint32_t i) { return frag::mma_a(16, 8, 4, Type::TF32, l, i); });
}

TEST_CASE("ldmatrix m8n8 .b16: address lanes and element owners (PTX ISA 9.7.14.5.15)") {
  // .x4: lanes 8j..8j+7 give the rows of matrix j.
  CHECK(frag::ldmatrix_address_lane(0, 0) == 0);
  CHECK(frag::ldmatrix_address_lane(2, 5) == 21);
  CHECK(frag::ldmatrix_address_lane(3, 7) == 31);
  // Without .trans: lane l gets row l/4, cols 2*(l%4) and +1 (the mma A/C layout).
  CHECK(frag::ldmatrix_element(0, 0, false) == frag::Coord{0, 0});
  CHECK(frag::ldmatrix_element(5, 1, false) == frag::Coord{1, 3});
  CHECK(frag::ldmatrix_element(31, 0, false) == frag::Coord{7, 6});
  // .trans: lane l gets column l/4 of rows 2*(l%4) and +1.
  CHECK(frag::ldmatrix_element(5, 0, true) == frag::Coord{2, 1});
  CHECK(frag::ldmatrix_element(5, 1, true) == frag::Coord{3, 1});
  CHECK(frag::ldmatrix_element(31, 1, true) == frag::Coord{7, 7});
  // A non-trans ldmatrix of an 8x8 tile of A gives lane l exactly the elements
  // the mma.m16n8k16 A fragment wants from rows 0..7, cols 0..7 (a0, a1).
  for (uint32_t lane = 0; lane < 32; ++lane)
    for (uint32_t h = 0; h < 2; ++h)
      CHECK(frag::ldmatrix_element(lane, h, false) == frag::mma_a(16, 8, 16, Type::F16, lane, h));
  // .trans of a row-major k x n tile of B gives the B fragment (b0, b1).
  for (uint32_t lane = 0; lane < 32; ++lane)
    for (uint32_t h = 0; h < 2; ++h)
      CHECK(frag::ldmatrix_element(lane, h, true) == frag::mma_b(16, 8, 16, Type::F16, lane, h));
}

TEST_CASE("wmma lab layout: counts fixed by the ISA, full coverage") {
  using frag::WmmaMatrix;
  CHECK(frag::wmma_info(WmmaMatrix::A, 16, 16, 16, Type::F16).regs == 8);
  CHECK(frag::wmma_info(WmmaMatrix::A, 16, 16, 16, Type::BF16).regs == 4);
  CHECK(frag::wmma_info(WmmaMatrix::B, 16, 16, 16, Type::F16).regs == 8);
  CHECK(frag::wmma_info(WmmaMatrix::C, 16, 16, 16, Type::F32).regs == 8);
  CHECK(frag::wmma_info(WmmaMatrix::C, 16, 16, 16, Type::F16).regs == 4);
  CHECK(frag::wmma_info(WmmaMatrix::A, 16, 16, 8, Type::TF32).regs == 4);
  CHECK(frag::wmma_info(WmmaMatrix::A, 32, 8, 16, Type::F16).elems == 0);
  check_covers(16, 16, 8, [](uint32_t l, uint32_t i) {
    return frag::wmma_element(frag::WmmaMatrix::A, 16, 16, 16, Type::BF16, l, i);
  });
  check_covers(16, 16, 8, [](uint32_t l, uint32_t i) {
    return frag::wmma_element(frag::WmmaMatrix::B, 16, 16, 16, Type::BF16, l, i);
  });
  check_covers(16, 16, 8, [](uint32_t l, uint32_t i) {
    return frag::wmma_element(frag::WmmaMatrix::C, 16, 16, 16, Type::F32, l, i);
  });
  check_covers(16, 8, 4, [](uint32_t l, uint32_t i) {
    return frag::wmma_element(frag::WmmaMatrix::A, 16, 16, 8, Type::TF32, l, i);
  });
  check_covers(8, 16, 4, [](uint32_t l, uint32_t i) {
    return frag::wmma_element(frag::WmmaMatrix::B, 16, 16, 8, Type::TF32, l, i);
  });
  // .f16 A/B repeat elements 0..7 in 8..15.
  for (uint32_t i = 0; i < 8; ++i)
    CHECK(frag::wmma_element(WmmaMatrix::A, 16, 16, 16, Type::F16, 7, i) ==
          frag::wmma_element(WmmaMatrix::A, 16, 16, 16, Type::F16, 7, i + 8));
}
