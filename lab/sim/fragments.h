// lab/sim/fragments.h: which lane holds which matrix element, for the
// tensor-core instructions (mma.sync, wmma, ldmatrix/stmatrix).
//
// Pure functions (lane, element index) -> (row, col), straight from the PTX
// ISA's fragment tables, so the interpreter (exec_matrix.cpp) and the tests
// share one definition. Elements are numbered as the PTX ISA numbers them
// (a0, a1, ...): 16-bit elements are packed two per 32-bit register, element
// 2r in the low half of register r and 2r+1 in the high half; 32-bit
// elements (.tf32, .f32) take one register each.
//
// Every table below uses the ISA's two lane coordinates:
//   groupID           = laneid >> 2   (which quad of lanes)
//   threadID_in_group = laneid % 4    (position inside the quad)
//
// Index
//   [MMA]      mma.sync m16n8k4/k8/k16 fragments (A, B, C/D)
//   [LDMATRIX] ldmatrix/stmatrix m8n8 .b16: address lanes and element owners
//   [WMMA]     wmma m16n16k16 / m16n16k8: the lab's documented layout
//   [WORK]     floating-point work of one tensor-core instruction
#pragma once

#include <cstdint>

#include "lab/ptx/module.h"

namespace lab::sim::frag {

struct Coord {
  uint32_t row = 0;
  uint32_t col = 0;
  bool operator==(const Coord&) const = default;
};

// How a fragment is stored in one lane's registers.
struct FragmentInfo {
  uint32_t elems = 0;      // elements per lane (0: shape/type not supported)
  uint32_t elem_bits = 0;  // 16 (packed two per register) or 32
  uint32_t regs = 0;       // 32-bit registers in the PTX vector operand
};

inline uint32_t group_id(uint32_t lane) { return lane >> 2; }
inline uint32_t thread_in_group(uint32_t lane) { return lane & 3; }

// [MMA] ----------------------------------------------------------------------
// PTX ISA 8.x, 9.7.14.5 "Matrix multiply-accumulate operation using mma
// instruction", subsections "Matrix Fragments for mma.m16n8k4" (.tf32),
// "Matrix Fragments for mma.m16n8k8" (.f16/.bf16/.tf32) and "Matrix
// Fragments for mma.m16n8k16 with floating point type" (.f16/.bf16).
// A is m x k (row = m index, col = k index), B is k x n (row = k index,
// col = n index), C and D are m x n. `ab` is the A/B element type
// (F16, BF16 or TF32). Only the .row.col layouts exist for these shapes.
FragmentInfo mma_a_info(uint32_t m, uint32_t n, uint32_t k, ptx::Type ab);
FragmentInfo mma_b_info(uint32_t m, uint32_t n, uint32_t k, ptx::Type ab);
// C/D for m16n8kX: four elements; `cd` is F32 (four registers) or F16
// (two .f16x2 registers).
FragmentInfo mma_c_info(uint32_t m, uint32_t n, uint32_t k, ptx::Type cd);

Coord mma_a(uint32_t m, uint32_t n, uint32_t k, ptx::Type ab, uint32_t lane, uint32_t i);
Coord mma_b(uint32_t m, uint32_t n, uint32_t k, ptx::Type ab, uint32_t lane, uint32_t i);
Coord mma_c(uint32_t m, uint32_t n, uint32_t k, uint32_t lane, uint32_t i);

// [LDMATRIX] -----------------------------------------------------------------
// PTX ISA 8.x, 9.7.14.5.15 "Warp-level matrix load instruction: ldmatrix"
// (and 9.7.14.5.16 stmatrix, which mirrors it). Shape .m8n8, element .b16:
// each matrix is 8 rows of 8 elements (16 bytes per row). For .xN, lanes
// 8*j .. 8*j+7 supply the row addresses of matrix j (rows 0..7 in lane
// order); the addresses of the other lanes are ignored. Destination register
// j of every lane holds two elements of matrix j.

// The lane whose address gives row `row` of matrix `matrix`.
inline uint32_t ldmatrix_address_lane(uint32_t matrix, uint32_t row) { return matrix * 8 + row; }

// Element `half` (0 = low 16 bits, 1 = high) of a lane's register for one
// matrix, as (row, col) of that matrix as it lies in memory (row = the row
// address, col = element within the 16-byte row). Without .trans a lane gets
// row groupID, columns 2*threadID_in_group + {0,1}: the layout of an mma
// A/B/C fragment. With .trans the matrix is transposed on the way, so the
// lane gets column groupID of rows 2*threadID_in_group + {0,1}.
inline Coord ldmatrix_element(uint32_t lane, uint32_t half, bool trans) {
  uint32_t r = group_id(lane), c = thread_in_group(lane) * 2 + half;
  return trans ? Coord{c, r} : Coord{r, c};
}

// [WMMA] ---------------------------------------------------------------------
// PTX ISA 8.x, 9.7.14.3 "Matrix fragments for WMMA": the mapping of matrix
// elements to the fragment's registers is "unspecified" (architecture
// dependent); only the number of registers is fixed. A correct program
// relies only on wmma.load, wmma.mma and wmma.store agreeing, so the lab
// picks one layout and uses it in all three:
//
// * m16n16k16 A (16x16): elements 0..7 are the mma.m16n8k16 A fragment,
//   which covers the whole 16x16 tile. The .f16 form has eight .f16x2
//   registers (16 elements; the ISA fixes this count, a legacy of sm_70's
//   duplicated fragments); elements 8..15 repeat 0..7. .bf16 has four .b32.
// * m16n16k16 B (16x16, rows = k): elements 0..3 are the mma.m16n8k16 B
//   fragment of columns 0..7, elements 4..7 that of columns 8..15; .f16
//   repeats them in elements 8..15 as for A.
// * m16n16 C/D (16x16): elements 0..3 are the mma m16n8 C fragment of
//   columns 0..7, elements 4..7 that of columns 8..15. .f32: eight
//   registers; .f16: four .f16x2.
// * m16n16k8 .tf32: A = mma.m16n8k8 .tf32 A fragment (4 registers); B =
//   the mma.m16n8k8 .tf32 B fragment of columns 0..7 (elements 0..1) and of
//   columns 8..15 (elements 2..3); C/D as above.
// So one wmma.mma is exactly two mma.sync over the n halves, which is how
// sm_80 and later execute it.
enum class WmmaMatrix : uint8_t { A, B, C };

// Registers / elements of a wmma fragment; elems = 0 when the shape/type is
// not one the lab supports (m16n16k16 .f16/.bf16, m16n16k8 .tf32).
FragmentInfo wmma_info(WmmaMatrix which, uint32_t m, uint32_t n, uint32_t k, ptx::Type t);
// Element i (0 <= i < wmma_info(...).elems) of `lane`.
Coord wmma_element(WmmaMatrix which, uint32_t m, uint32_t n, uint32_t k, ptx::Type t, uint32_t lane,
                   uint32_t i);

// [WORK] ---------------------------------------------------------------------
// Floating-point operations one warp-level instruction performs on tensor
// cores: 2*m*n*k for mma and wmma.mma (one multiply and one add per term of
// D = A*B + C), 0 for every other instruction (ldmatrix, wmma.load/store are
// memory work). The timing model multiplies this by PcCounters::warp_insts
// of the pc to classify and count tensor work; the input precision, which
// picks the device's tensor rate (fp16 / bf16 / tf32), is Instr::type2.
uint64_t tensor_flops(const ptx::Instr& in);

}  // namespace lab::sim::frag
