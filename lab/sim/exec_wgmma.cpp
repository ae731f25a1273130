// lab/sim/exec_wgmma.cpp: warpgroup matrix multiply-accumulate (PTX ISA
// 9.7.15, sm_90a): wgmma.mma_async with both operands in shared memory,
// read through 64-bit matrix descriptors, and wgmma.fence / commit_group /
// wait_group.
//
// The warpgroup is four consecutive warps of the CTA (warp index / 4). Its
// m64nNk16 product is rows 0-63 of D; the accumulator fragment gives warp
// w of the warpgroup rows 16w .. 16w+15 (PTX ISA 9.7.15.5.1, "Register
// fragments", figure for D; CUTLASS cute/atom/mma_traits_sm90_gmma.hpp
// CLayout_64xN): register i of lane l holds
//   row 16w + l/4 + 8 ((i >> 1) & 1),  column 8 (i >> 2) + 2 (l & 3) + (i & 1).
// A warp's rows depend only on its rows of A and on all of B, so each warp
// computes its quarter when it issues the instruction, reading the operands
// from shared memory then: the lab performs the asynchronous operation at
// issue, one of the orders the ISA allows (a program must not touch the
// accumulators before wgmma.wait_group covers the operation, nor the operand
// tiles). A group completes when all four warps have issued it, so
// wait_group parks a warp until the warpgroup's other warps have committed
// the groups it awaits (WarpStatus::AtWarpgroup); the cycle model times the
// groups on the tensor pipe (cycle/engine.cpp).
//
// Shared-memory operands (PTX ISA 9.7.15.5.1.2, "Shared Memory Matrix
// Layout", canonical layouts; T = 16 bytes / element size):
//   K-major,  no swizzle: ((8,m),(T,2k)):((1T,SBO),(1,LBO))
//   K-major,  W-byte swizzle: rows W bytes apart, 8-row groups SBO apart
//   MN-major, no swizzle: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
//   MN-major, W-byte swizzle: W/size elements contiguous, the next ones LBO
//             on; k rows W bytes apart, 8-k groups SBO apart
// and the swizzle XORs address bits [4, 4+b) with bits [7, 7+b), b = 3, 2, 1
// for 128, 64, 32 bytes (CUTLASS cute/swizzle.hpp Swizzle<b,4,3>), on the
// absolute shared address, which is why a swizzled tile starts on a
// 1024/512/256-byte boundary (the descriptor's base offset, not modelled,
// must then be 0).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "lab/sim/exec.h"
#include "lab/sim/float16.h"
#include "lab/sim/matrix_descriptor.h"

namespace lab::sim {

using ptx::Op;
using ptx::Type;

namespace {

void fault_wgmma(WarpContext& c, const ptx::Instr& in, const char* kind, const std::string& what) {
  raise_fault(c, kind, fmt::format("'{}' (PTX line {}): {}", ptx::op_name(in.op), in.ptx_line, what),
              uint32_t(std::countr_zero(c.mask)));
}

// The lanes' copies of a value the warpgroup must agree on (a descriptor, scale-d).
bool uniform(WarpContext& c, const ptx::Instr& in, const uint64_t* v, const char* what, uint64_t& out) {
  out = v[0];
  for (uint32_t i = 1; i < kWarpSize; ++i)
    if (v[i] != out) {
      fault_wgmma(c, in, "invalid-operand",
                  fmt::format("{} differs between lanes (lane 0: 0x{:x}, lane {}: 0x{:x}); the PTX ISA requires "
                              "the same value in every thread of the warpgroup",
                              what, out, i, v[i]));
      return false;
    }
  return true;
}

void exec_wgmma_mma(const ptx::Instr& in, WarpContext& c) {
  const uint32_t n = in.shape_n;
  if (in.shape_m != 64 || in.shape_k != 16 || n < 8 || n > 256 || n % 8 || in.type != Type::F32 ||
      !((in.type2 == Type::F16 && in.type3 == Type::F16) || (in.type2 == Type::BF16 && in.type3 == Type::BF16))) {
    fault_wgmma(c, in, "unsupported",
                fmt::format(".m{}n{}k{}.{}.{}.{} is not modelled (the lab runs .m64nNk16.f32.f16.f16 and "
                            ".f32.bf16.bf16, N a multiple of 8 up to 256)",
                            in.shape_m, n, in.shape_k, ptx::type_name(in.type), ptx::type_name(in.type2),
                            ptx::type_name(in.type3)));
    return;
  }
  const ptx::Operand& dop = in.ops[0];
  if (dop.vec_len != n / 2) {
    fault_wgmma(c, in, "invalid-operand",
                fmt::format("the accumulator has {} registers; .m64n{}k16 with .f32 accumulators takes {}",
                            dop.vec_len, n, n / 2));
    return;
  }
  uint64_t ta[32], tb[32], ts[32];
  uint64_t adesc = 0, bdesc = 0, scale_d = 1;
  if (!uniform(c, in, src(c, in.ops[1], ta), "the A descriptor", adesc) ||
      !uniform(c, in, src(c, in.ops[2], tb), "the B descriptor", bdesc))
    return;
  if (in.ops[3].kind == ptx::OperandKind::Imm) {
    scale_d = in.ops[3].imm != 0;
  } else {
    const uint64_t* s = src(c, in.ops[3], ts);
    uint64_t v[32];
    for (uint32_t i = 0; i < kWarpSize; ++i) v[i] = (s[i] != 0) != in.ops[3].negate;
    if (!uniform(c, in, v, "scale-d", scale_d)) return;
  }
  const MatrixDescriptor da = decode_matrix_descriptor(adesc), db = decode_matrix_descriptor(bdesc);
  for (const MatrixDescriptor* d : {&da, &db})
    if (d->base_offset != 0) {
      fault_wgmma(c, in, "unsupported",
                  fmt::format("a matrix descriptor with base offset {} is not modelled; start swizzled tiles on a "
                              "{}-byte boundary (base offset 0)",
                              d->base_offset, d->swizzle_bytes * 8));
      return;
    }
  const bool bf16 = in.type2 == Type::BF16;
  const uint8_t* smem = c.B->shared.data();
  const uint32_t smem_bytes = c.B->shared_bytes;
  const uint32_t w = c.warp->index % 4;  // warp within its warpgroup
  // One element of an operand: `r` is the row of A (m) or the column of B (n).
  bool ok = true;
  auto element = [&](const MatrixDescriptor& d, bool mn_major, uint32_t r, uint32_t k, char which) -> float {
    const uint32_t addr = matrix_element_address(d, mn_major, r, k, 2);
    if (uint64_t(addr) + 2 > smem_bytes) {
      if (ok)
        fault_wgmma(c, in, "out-of-bounds",
                    fmt::format("{}'s element ({}, {}) lies at shared offset 0x{:x}, outside the block's {} bytes of "
                                "shared memory: check the {} descriptor's start address, LBO and SBO",
                                which, which == 'A' ? r : k, which == 'A' ? k : r, addr, smem_bytes, which));
      ok = false;
      return 0.f;
    }
    uint16_t bits;
    std::memcpy(&bits, smem + addr, 2);
    return bf16 ? bf16_to_float(bits) : half_to_float(bits);
  };
  float A[16][16], B[16][256];
  for (uint32_t r = 0; r < 16 && ok; ++r)
    for (uint32_t k = 0; k < 16; ++k) A[r][k] = element(da, in.layout_a != 0, 16 * w + r, k, 'A');
  for (uint32_t k = 0; k < 16 && ok; ++k)
    for (uint32_t j = 0; j < n; ++j) B[k][j] = element(db, in.layout_b != 0, j, k, 'B');
  if (!ok) return;
  // The warp's 16 x n product, k in order (rows of B contiguous, so the
  // inner loop vectorises on the host), then added to the accumulators.
  const float sign = ((in.mode & ptx::kWgmmaNegA) ? -1.f : 1.f) * ((in.mode & ptx::kWgmmaNegB) ? -1.f : 1.f);
  float P[16][256];
  for (uint32_t r = 0; r < 16; ++r) {
    float* p = P[r];
    for (uint32_t j = 0; j < n; ++j) p[j] = 0.f;
    for (uint32_t k = 0; k < 16; ++k) {
      const float a = sign * A[r][k];
      const float* b = B[k];
      for (uint32_t j = 0; j < n; ++j) p[j] += a * b[j];
    }
  }
  const uint32_t* slots = c.L->kernel->vec_slots.data() + dop.reg;
  for (uint32_t i = 0; i < n / 2; ++i) {
    if (slots[i] >= ptx::kSinkReg) continue;
    uint64_t* reg = c.regs + size_t(slots[i]) * kWarpSize;
    const uint32_t col = 8 * (i >> 2) + (i & 1);
    const uint32_t row = 8 * ((i >> 1) & 1);
    for (uint32_t l = 0; l < kWarpSize; ++l) {
      const float acc = scale_d ? std::bit_cast<float>(uint32_t(reg[l])) : 0.f;
      reg[l] = std::bit_cast<uint32_t>(acc + P[row + l / 4][col + 2 * (l & 3)]);
    }
  }
}

}  // namespace

bool wgmma_warpgroup_ready(const BlockState& B, const WarpState& w) {
  const uint32_t group = w.index / 4;
  for (const WarpState& v : B.warps)
    if (v.index / 4 == group && &v != &w && v.live && v.status != WarpStatus::Done && v.wgmma_commits < w.wgmma_need)
      return false;
  return true;
}

void exec_wgmma(const ptx::Instr& in, WarpContext& c) {
  WarpState& w = *c.warp;
  switch (in.op) {
    case Op::WgmmaMmaAsync: exec_wgmma_mma(in, c); return;
    case Op::WgmmaCommitGroup: ++w.wgmma_commits; return;
    case Op::WgmmaWaitGroup: {
      // This warp's part of each group was done at issue, but a group is the
      // warpgroup's: it is complete only once all four warps have issued it.
      // Until then the warp parks (the block loop wakes it), so it cannot
      // overwrite operand tiles the other warps' wgmmas have yet to read.
      const uint32_t keep = uint32_t(std::max<int64_t>(0, in.ops[0].imm));
      w.wgmma_need = w.wgmma_commits > keep ? w.wgmma_commits - keep : 0;
      if (w.wgmma_need && !wgmma_warpgroup_ready(*c.B, w)) w.status = WarpStatus::AtWarpgroup;
      return;
    }
    case Op::WgmmaFence: return;
    default: return;
  }
}

}  // namespace lab::sim
