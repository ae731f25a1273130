// lab/sim/exec_matrix.cpp: the tensor-core instructions: wmma.load/mma/store
// (PTX ISA 8.x 9.7.14.4), mma.sync (9.7.14.5.14), ldmatrix (9.7.14.5.15) and
// stmatrix (9.7.14.5.16). Which lane holds which element is fragments.h.
//
// Every form here is .sync.aligned: all 32 lanes of the warp must execute the
// same instruction together. A partial warp is an `invalid-mask` error, since
// the hardware result is undefined.
//
// Arithmetic (mma and wmma.mma): D = A * B + C. Each product of two .f16,
// .bf16 or .tf32 inputs is exact in fp32 (at most 11 + 11 significand bits),
// so products are formed exactly; for each output element the sum starts at
// C and adds the products in increasing k, in fp64, and is rounded once to
// the D type (round to nearest even). Tensor cores sum with their own
// internal precision and truncation, so a GPU's low bits can differ slightly;
// tests compare against an fp64 reference with a tolerance. .tf32 inputs are
// 32-bit registers whose low 13 significand bits are ignored (truncated),
// the PTX ISA's tf32 format (5.2.5.1 "Alternate floating point data formats").
//
// Memory traffic is counted as ld/st count it (per pc: requests, bytes,
// sectors + the L2 model for global, wavefronts for shared). A wmma.load or
// .store is split into requests as a compiler splits it into loads: each run
// of consecutive fragment elements that are contiguous in memory for every
// lane (up to 16 bytes, naturally aligned) is one request. ldmatrix is one
// request of 16-byte rows, served 8 lanes (8 rows) per phase, so its bank
// conflicts come out of shared_wavefronts() directly.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "lab/sim/exec.h"
#include "lab/sim/exec_memory.h"
#include "lab/sim/float16.h"
#include "lab/sim/fragments.h"

namespace lab::sim {

using ptx::Op;
using ptx::Space;
using ptx::Type;

namespace {

constexpr uint32_t kFullWarp = 0xffffffffu;

// ---- the warp must be whole ------------------------------------------------------
bool require_full_warp(const ptx::Instr& in, WarpContext& c) {
  if (c.mask == kFullWarp) return true;
  uint32_t missing = ~c.mask;
  raise_fault(c, "invalid-mask",
              fmt::format("'{}' is .sync.aligned: all 32 lanes of the warp must execute it together, but only "
                          "{} did (lane {} did not). Keep tensor-core instructions out of divergent branches "
                          "and launch blocks whose size is a multiple of 32",
                          ptx::op_name(in.op), std::popcount(c.mask), std::countr_zero(missing)),
              uint32_t(std::countr_zero(c.mask)));
  return false;
}

void fault_unsupported(WarpContext& c, const ptx::Instr& in, const std::string& what) {
  raise_fault(c, "unsupported",
              fmt::format("'{}' (PTX line {}): {} is not supported by the simulator", ptx::op_name(in.op),
                          in.ptx_line, what),
              uint32_t(std::countr_zero(c.mask)));
}

// ---- memory ----------------------------------------------------------------------
// Lane addresses of an Addr operand: reg + imm (absolute when there is no register).
void lane_addresses(WarpContext& c, const ptx::Operand& o, uint64_t* addr) {
  if (o.reg < ptx::kSinkReg) {
    const uint64_t* r = c.regs + size_t(o.reg) * kWarpSize;
    for (uint32_t i = 0; i < kWarpSize; ++i) addr[i] = r[i] + uint64_t(o.imm);
  } else {
    for (uint32_t i = 0; i < kWarpSize; ++i) addr[i] = uint64_t(o.imm);
  }
}

// Turns the instruction's addresses into global addresses and shared offsets
// (`shared` gets the lanes that address shared memory). Local and param
// memory are not places tensor-core instructions read in the lab's kernels.
bool split_spaces(WarpContext& c, const ptx::Instr& in, uint64_t* addr, uint32_t& shared) {
  shared = 0;
  if (in.space == Space::Shared || in.space == Space::SharedCluster) {
    for (uint32_t i = 0; i < kWarpSize; ++i) addr[i] &= 0xffffffffull;
    shared = kFullWarp;
    return true;
  }
  if (in.space == Space::Global) return true;
  for (uint32_t i = 0; i < kWarpSize; ++i) {
    if (addr[i] - ptx::kSharedWindow < ptx::kWindowSize) {
      addr[i] -= ptx::kSharedWindow;
      shared |= 1u << i;
    } else if (addr[i] - ptx::kLocalWindow < ptx::kWindowSize) {
      fault_unsupported(c, in, "a generic address into local memory (a fragment's matrix in a local array)");
      return false;
    }
  }
  return true;
}

// One warp-wide request: lane i accesses `bytes` at addr[i] (a global address
// for lanes not in `shared`, a shared offset for those in it), through the
// same steps as ld/st (exec_memory.h): alignment and bounds (faulting), the
// checker's veto, the metrics. Fills host[i] (nullptr for a lane the checker
// vetoed or that is not in `mask`). Returns false after a fault.
bool request(WarpContext& c, const uint64_t* addr, uint32_t mask, uint32_t shared, uint32_t bytes, bool is_write,
             uint8_t** host) {
  for (uint32_t i = 0; i < kWarpSize; ++i) host[i] = nullptr;
  for (int part = 0; part < 2; ++part) {
    const bool is_shared = part == 1;
    const uint32_t m = mask & (is_shared ? shared : ~shared);
    if (!m) continue;
    Access a;
    a.where = is_shared ? Space::Shared : Space::Global;
    a.bytes = bytes;
    std::copy(addr, addr + kWarpSize, a.addr);
    if (!resolve(c, a, m, is_write, bytes)) return false;
    const uint32_t allowed = checker_veto(c, a, m, is_write, false);
    count_request(c, a.where, a.addr, bytes, allowed, is_write);
    for (uint32_t i = 0; i < kWarpSize; ++i)
      if ((allowed >> i) & 1) host[i] = a.host[i];
  }
  return true;
}

// ---- fragment registers ------------------------------------------------------------
// Register slots of a Vec operand; faults unless it has `want` registers.
bool fragment_slots(WarpContext& c, const ptx::Instr& in, const ptx::Operand& o, uint32_t want, const char* what,
                    uint32_t* slots) {
  if (o.kind != ptx::OperandKind::Vec || o.vec_len != want) {
    fault_unsupported(c, in,
                      fmt::format("a {} fragment of {} registers (the lab's layout for this shape and type has {})",
                                  what, o.kind == ptx::OperandKind::Vec ? o.vec_len : 1, want));
    return false;
  }
  for (uint32_t k = 0; k < want; ++k) slots[k] = c.L->kernel->vec_slots[o.reg + k];
  return true;
}

// Raw bits of element i (PTX numbering: 16-bit elements packed low half first).
uint32_t element_bits(const WarpContext& c, const uint32_t* slots, const frag::FragmentInfo& f, uint32_t lane,
                      uint32_t i) {
  const uint32_t reg = f.elem_bits == 32 ? i : i / 2;
  const uint32_t slot = slots[reg];
  if (slot >= ptx::kSinkReg) return 0;
  const uint32_t v = uint32_t(c.regs[size_t(slot) * kWarpSize + lane]);
  return f.elem_bits == 32 ? v : (v >> (16 * (i & 1))) & 0xffffu;
}

// Collects destination registers lane by lane, then writes them all at once
// (so a destination that is also a source is read before it is written).
struct FragmentOut {
  uint32_t regs[16][kWarpSize] = {};
  void put(const frag::FragmentInfo& f, uint32_t lane, uint32_t i, uint32_t bits) {
    if (f.elem_bits == 32) regs[i][lane] = bits;
    else regs[i / 2][lane] |= (bits & 0xffffu) << (16 * (i & 1));
  }
  void write(WarpContext& c, const uint32_t* slots, uint32_t n) const {
    for (uint32_t r = 0; r < n; ++r) {
      if (slots[r] >= ptx::kSinkReg) continue;
      uint64_t* d = c.regs + size_t(slots[r]) * kWarpSize;
      for (uint32_t l = 0; l < kWarpSize; ++l) d[l] = regs[r][l];
    }
  }
};

float element_value(uint32_t bits, Type t) {
  switch (t) {
    case Type::F16: return half_to_float(uint16_t(bits));
    case Type::BF16: return bf16_to_float(uint16_t(bits));
    case Type::TF32: return std::bit_cast<float>(bits & 0xffffe000u);  // low 13 significand bits ignored
    default: return std::bit_cast<float>(bits);
  }
}

uint32_t element_from_float(float v, Type t) {
  switch (t) {
    case Type::F16: return float_to_half(v);
    case Type::BF16: return float_to_bf16(v);
    default: return std::bit_cast<uint32_t>(v);
  }
}

// D[m x n] = A[m x k] * B[k x n] + C, row-major arrays; see the file comment
// for the summation order. Each output element starts at C and adds its
// products in increasing kk; the loops run kk outside col so that the inner
// loop is independent across columns (vectorisable) while every element
// still sums in that same order, so the result is bit-identical.
// N is the shape's n when it is one of the common ones (8: mma.m16n8,
// 16: wmma.m16n16): a fixed-width row the compiler keeps in registers and
// vectorises; 0 for any other (the same arithmetic, in the same order).
// Always inlined, so each caller below compiles it for its own instruction
// set: the product is rounded to float and widened before the add (no FMA
// can fuse across the conversion), so every set gives the same bits.
template <uint32_t N>
[[gnu::always_inline]] inline void multiply_accumulate_n(const float* A, const float* Bm, const float* C, float* D,
                                                         uint32_t m, uint32_t n_any, uint32_t k) {
  const uint32_t n = N ? N : n_any;
  double s[16];
  for (uint32_t r = 0; r < m; ++r) {
    for (uint32_t col = 0; col < n; ++col) s[col] = C[r * n + col];
    for (uint32_t kk = 0; kk < k; ++kk) {
      const float a = A[r * k + kk];
      const float* b = Bm + kk * n;
      for (uint32_t col = 0; col < n; ++col) s[col] += double(a * b[col]);  // exact fp32 product
    }
    for (uint32_t col = 0; col < n; ++col) D[r * n + col] = float(s[col]);
  }
}

// The shape dispatch, inlined into each build below.
[[gnu::always_inline]] inline void multiply_accumulate_shape(const float* A, const float* Bm, const float* C, float* D,
                                                             uint32_t m, uint32_t n, uint32_t k) {
  if (n == 8) multiply_accumulate_n<8>(A, Bm, C, D, m, n, k);
  else if (n == 16) multiply_accumulate_n<16>(A, Bm, C, D, m, n, k);
  else multiply_accumulate_n<0>(A, Bm, C, D, m, n, k);
}

void multiply_accumulate_any(const float* A, const float* Bm, const float* C, float* D, uint32_t m, uint32_t n,
                             uint32_t k) {
  multiply_accumulate_shape(A, Bm, C, D, m, n, k);
}

// The same loops with 256- and 512-bit vectors where the host has them: a
// row of 8 or 16 doubles is one or two registers instead of four or eight
// (the simulator is built for any x86-64, so these are chosen at run time).
#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::target("avx2")]] void multiply_accumulate_avx2(const float* A, const float* Bm, const float* C, float* D,
                                                      uint32_t m, uint32_t n, uint32_t k) {
  multiply_accumulate_shape(A, Bm, C, D, m, n, k);
}
[[gnu::target("avx512f")]] void multiply_accumulate_avx512(const float* A, const float* Bm, const float* C, float* D,
                                                           uint32_t m, uint32_t n, uint32_t k) {
  multiply_accumulate_shape(A, Bm, C, D, m, n, k);
}
#endif

using MultiplyAccumulate = void (*)(const float*, const float*, const float*, float*, uint32_t, uint32_t, uint32_t);

MultiplyAccumulate pick_multiply_accumulate() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return multiply_accumulate_avx512;
  if (__builtin_cpu_supports("avx2")) return multiply_accumulate_avx2;
#endif
  return multiply_accumulate_any;
}

void multiply_accumulate(const float* A, const float* Bm, const float* C, float* D, uint32_t m, uint32_t n,
                         uint32_t k) {
  static const MultiplyAccumulate f = pick_multiply_accumulate();
  f(A, Bm, C, D, m, n, k);
}

// Every .f16 value as a float, from half_to_float once: fragments convert
// hundreds of elements per instruction.
const float* half_table() {
  static const auto t = [] {
    auto v = std::make_unique<float[]>(65536);
    for (uint32_t h = 0; h < 65536; ++h) v[h] = half_to_float(uint16_t(h));
    return v;
  }();
  return t.get();
}

// Lane -> element coordinates of one fragment, tabulated once from the
// fragments.h functions (which stay the one definition): an mma or wmma
// instruction looks them up instead of recomputing them per lane and element.
// With them, each element's offset in the dense row-major matrix the
// instruction multiplies (row * ld + col, ld the matrix's row length).
struct FragmentTable {
  uint32_t elems = 0, ld = 0;
  frag::Coord at[kWarpSize][16];
  uint16_t off[kWarpSize][16];
  void tabulate_offsets(uint32_t row_length) {
    ld = row_length;
    for (uint32_t lane = 0; lane < kWarpSize; ++lane)
      for (uint32_t i = 0; i < elems; ++i) off[lane][i] = uint16_t(at[lane][i].row * ld + at[lane][i].col);
  }
};

// mma.m16n8kK: A, B, C tables for (k, ab).
const FragmentTable& mma_table(char which, uint32_t k, Type ab) {
  const bool tf32 = ab == Type::TF32;
  const uint32_t ki = k == 16 ? 0 : k == 8 ? 1 : 2;  // k = 16, 8, 4
  static const auto tables = [] {
    auto t = std::make_unique<FragmentTable[]>(3 * 3 * 2);
    for (int w = 0; w < 3; ++w)
      for (uint32_t kk = 0; kk < 3; ++kk)
        for (int tf = 0; tf < 2; ++tf) {
          const uint32_t kv = kk == 0 ? 16 : kk == 1 ? 8 : 4;
          const Type ty = tf ? Type::TF32 : Type::F16;
          FragmentTable& ft = t[(w * 3 + kk) * 2 + tf];
          ft.elems = w == 0 ? frag::mma_a_info(16, 8, kv, ty).elems
                     : w == 1 ? frag::mma_b_info(16, 8, kv, ty).elems
                              : frag::mma_c_info(16, 8, kv, Type::F32).elems;
          for (uint32_t lane = 0; lane < kWarpSize; ++lane)
            for (uint32_t i = 0; i < ft.elems; ++i)
              ft.at[lane][i] = w == 0 ? frag::mma_a(16, 8, kv, ty, lane, i)
                               : w == 1 ? frag::mma_b(16, 8, kv, ty, lane, i)
                                        : frag::mma_c(16, 8, kv, lane, i);
          ft.tabulate_offsets(w == 0 ? kv : 8);  // A is 16 x k, B k x 8, C 16 x 8
        }
    return t;
  }();
  const int w = which == 'A' ? 0 : which == 'B' ? 1 : 2;
  return tables[(w * 3 + ki) * 2 + (tf32 ? 1 : 0)];
}

// wmma m16n16kK: tables for (matrix, k, tf32 or not); C/D do not depend on the type.
const FragmentTable& wmma_table(frag::WmmaMatrix which, uint32_t k, Type t) {
  static const auto tables = [] {
    auto tb = std::make_unique<FragmentTable[]>(3 * 2 * 2);
    for (int w = 0; w < 3; ++w)
      for (int kk = 0; kk < 2; ++kk)
        for (int tf = 0; tf < 2; ++tf) {
          const auto wm = frag::WmmaMatrix(w);
          const uint32_t kv = kk ? 8 : 16;
          const Type ty = wm == frag::WmmaMatrix::C ? Type::F32 : tf ? Type::TF32 : Type::F16;
          FragmentTable& ft = tb[(w * 2 + kk) * 2 + tf];
          ft.elems = frag::wmma_info(wm, 16, 16, kv, ty).elems;
          for (uint32_t lane = 0; lane < kWarpSize; ++lane)
            for (uint32_t i = 0; i < ft.elems; ++i) ft.at[lane][i] = frag::wmma_element(wm, 16, 16, kv, ty, lane, i);
          ft.tabulate_offsets(wm == frag::WmmaMatrix::A ? kv : 16);  // A is 16 x k, B k x 16, C 16 x 16
        }
    return tb;
  }();
  return tables[(int(which) * 2 + (k == 8 ? 1 : 0)) * 2 + (t == Type::TF32 ? 1 : 0)];
}

// Element values of a fragment, all lanes, into the dense row-major matrix
// M (its row length the table's ld): what element_bits + element_value give,
// read register by register. A 16-bit fragment's register holds elements
// 2j and 2j + 1 (low half first), read once for both.
void gather(const WarpContext& c, const uint32_t* slots, const frag::FragmentInfo& f, uint32_t elems,
            const FragmentTable& t, Type ty, float* M) {
  static const uint64_t kZeros[kWarpSize] = {};  // the sink register reads 0
  auto reg = [&](uint32_t r) { return slots[r] < ptx::kSinkReg ? c.regs + size_t(slots[r]) * kWarpSize : kZeros; };
  if (f.elem_bits == 32) {
    for (uint32_t i = 0; i < elems; ++i) {
      const uint64_t* r = reg(i);
      const uint16_t* off = &t.off[0][i];
      if (ty == Type::F32)
        for (uint32_t lane = 0; lane < kWarpSize; ++lane) M[off[lane * 16]] = std::bit_cast<float>(uint32_t(r[lane]));
      else
        for (uint32_t lane = 0; lane < kWarpSize; ++lane) M[off[lane * 16]] = element_value(uint32_t(r[lane]), ty);
    }
    return;
  }
  const float* half = ty == Type::F16 ? half_table() : nullptr;
  for (uint32_t i = 0; i < elems; i += 2) {
    const uint64_t* r = reg(i / 2);
    const bool both = i + 1 < elems;
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
      const uint32_t v = uint32_t(r[lane]);
      const uint16_t* off = t.off[lane];
      if (half) {  // fp16 fragments (the common case): one table lookup per element
        M[off[i]] = half[v & 0xffffu];
        if (both) M[off[i + 1]] = half[v >> 16];
      } else {
        M[off[i]] = element_value(v & 0xffffu, ty);
        if (both) M[off[i + 1]] = element_value(v >> 16, ty);
      }
    }
  }
}

// D's elements from the dense result, into the fragment's registers, as
// FragmentOut::put gives them (a 16-bit D packs elements 2j, 2j + 1).
void scatter_result(WarpContext& c, const uint32_t* slots, const frag::FragmentInfo& fd, const FragmentTable& t,
                    const float* D, Type dt) {
  FragmentOut out;
  if (fd.elem_bits == 32 && dt == Type::F32) {
    for (uint32_t lane = 0; lane < kWarpSize; ++lane)
      for (uint32_t i = 0; i < fd.elems; ++i) out.regs[i][lane] = std::bit_cast<uint32_t>(D[t.off[lane][i]]);
  } else {
    for (uint32_t lane = 0; lane < kWarpSize; ++lane)
      for (uint32_t i = 0; i < fd.elems; ++i) out.put(fd, lane, i, element_from_float(D[t.off[lane][i]], dt));
  }
  out.write(c, slots, fd.regs);
}

// ---- mma.sync ------------------------------------------------------------------------
void exec_mma(const ptx::Instr& in, WarpContext& c) {
  const uint32_t m = in.shape_m, n = in.shape_n, k = in.shape_k;
  const Type ab = in.type2, ct = in.type3, dt = in.type;
  const frag::FragmentInfo fa = frag::mma_a_info(m, n, k, ab), fb = frag::mma_b_info(m, n, k, ab);
  const frag::FragmentInfo fc = frag::mma_c_info(m, n, k, ct), fd = frag::mma_c_info(m, n, k, dt);
  if (!fa.elems || !fb.elems || !fc.elems || !fd.elems || in.layout_a != 0 || in.layout_b != 1) {
    fault_unsupported(c, in,
                      fmt::format("mma .m{}n{}k{} with {} inputs and {} -> {} accumulators (the lab runs m16n8k16 "
                                  "and m16n8k8 .row.col with .f16/.bf16, m16n8k8 and m16n8k4 with .tf32)",
                                  m, n, k, ptx::type_name(ab), ptx::type_name(ct), ptx::type_name(dt)));
    return;
  }
  uint32_t sd[8], sa[8], sb[8], sc[8];
  if (!fragment_slots(c, in, in.ops[0], fd.regs, "D", sd) || !fragment_slots(c, in, in.ops[1], fa.regs, "A", sa) ||
      !fragment_slots(c, in, in.ops[2], fb.regs, "B", sb) || !fragment_slots(c, in, in.ops[3], fc.regs, "C", sc))
    return;
  float A[16 * 16], Bm[16 * 8], C[16 * 8], D[16 * 8];
  const FragmentTable &ta = mma_table('A', k, ab), &tb = mma_table('B', k, ab), &tc = mma_table('C', k, ab);
  gather(c, sa, fa, fa.elems, ta, ab, A);
  gather(c, sb, fb, fb.elems, tb, ab, Bm);
  gather(c, sc, fc, fc.elems, tc, ct, C);
  multiply_accumulate(A, Bm, C, D, m, n, k);
  scatter_result(c, sd, fd, tc, D, dt);
}

// ---- wmma ------------------------------------------------------------------------------
struct WmmaTile {
  frag::WmmaMatrix which;
  uint32_t rows, cols;
};

WmmaTile wmma_tile(Op op, uint32_t m, uint32_t n, uint32_t k) {
  switch (op) {
    case Op::WmmaLoadA: return {frag::WmmaMatrix::A, m, k};
    case Op::WmmaLoadB: return {frag::WmmaMatrix::B, k, n};
    default: return {frag::WmmaMatrix::C, m, n};
  }
}

// wmma.load.{a,b,c} and wmma.store.d: element (row, col) of the tile lies at
// base + (row * stride + col) * size (row-major) or base + (col * stride +
// row) * size (col-major); stride is in elements (PTX ISA 9.7.14.4.1).
void exec_wmma_memory(const ptx::Instr& in, WarpContext& c) {
  const bool store = in.op == Op::WmmaStoreD;
  const uint32_t m = in.shape_m, n = in.shape_n, k = in.shape_k;
  const WmmaTile tile = wmma_tile(in.op, m, n, k);
  const Type t = in.type;
  const frag::FragmentInfo f = frag::wmma_info(tile.which, m, n, k, t);
  if (!f.elems) {
    fault_unsupported(c, in,
                      fmt::format("wmma .m{}n{}k{} {} fragments (the lab runs m16n16k16 .f16/.bf16 with .f32/.f16 "
                                  "accumulators, and m16n16k8 .tf32)",
                                  m, n, k, ptx::type_name(t)));
    return;
  }
  const ptx::Operand& frag_op = in.ops[store ? 1 : 0];
  const ptx::Operand& addr_op = in.ops[store ? 0 : 1];
  uint32_t slots[16];
  if (!fragment_slots(c, in, frag_op, f.regs, "wmma", slots)) return;
  const bool col_major = in.layout_a == 1;
  const uint32_t esize = t == Type::TF32 ? 4 : uint32_t(ptx::type_bytes(t));
  const uint32_t unique = tile.rows * tile.cols / kWarpSize;  // .f16 A/B repeat the rest
  uint64_t base[32], stride[32], tmp[32];
  lane_addresses(c, addr_op, base);
  if (in.ops[2].kind != ptx::OperandKind::None) {
    const uint64_t* s = src(c, in.ops[2], tmp);
    for (uint32_t i = 0; i < kWarpSize; ++i) stride[i] = uint32_t(s[i]);
  } else {
    for (uint32_t i = 0; i < kWarpSize; ++i) stride[i] = col_major ? tile.rows : tile.cols;
  }
  uint32_t shared = 0;
  if (!split_spaces(c, in, base, shared)) return;
  // Address of element i for each lane.
  const FragmentTable& tt = wmma_table(tile.which, k, t);
  auto elem_addr = [&](uint32_t lane, uint32_t i) {
    frag::Coord p = tt.at[lane][i];
    uint64_t off = col_major ? uint64_t(p.col) * stride[lane] + p.row : uint64_t(p.row) * stride[lane] + p.col;
    return base[lane] + off * esize;
  };
  FragmentOut out;
  const uint32_t elems = f.elems;
  const bool half_load = !store && f.elem_bits == 16 && esize == 2;  // two elements per register
  for (uint32_t i = 0; i < unique;) {
    // The longest run i..i+len-1 contiguous for every lane, len a power of two,
    // at most 16 bytes, its start aligned to its size: one load/store instruction.
    uint64_t addr[32];
    for (uint32_t l = 0; l < kWarpSize; ++l) addr[l] = elem_addr(l, i);
    uint32_t len = 1;
    while (i + 2 * len <= unique && 2 * len * esize <= 16) {
      bool ok = true;
      for (uint32_t l = 0; l < kWarpSize && ok; ++l) {
        if (addr[l] % (2 * len * esize)) ok = false;
        for (uint32_t j = len; j < 2 * len && ok; ++j) ok = elem_addr(l, i + j) == addr[l] + uint64_t(j) * esize;
      }
      if (!ok) break;
      len *= 2;
    }
    const uint32_t bytes = len * esize;
    uint8_t* host[32];
    if (!request(c, addr, kFullWarp, shared, bytes, store, host)) return;
    // A load of 16-bit elements whose run starts on a register boundary
    // fills whole registers: two elements per 4-byte read, each register
    // written once (each element index is loaded once); the same bits as
    // put's merge of two halves.
    if (half_load && i % 2 == 0 && len % 2 == 0 && unique % 2 == 0) {
      for (uint32_t l = 0; l < kWarpSize; ++l) {
        if (!host[l]) continue;  // vetoed by the checker: a load leaves zeros
        for (uint32_t j = 0; j < len; j += 2) {
          uint32_t v;
          std::memcpy(&v, host[l] + j * 2, 4);
          for (uint32_t rep = i + j; rep < elems; rep += unique) out.regs[rep / 2][l] = v;
        }
      }
      i += len;
      continue;
    }
    for (uint32_t l = 0; l < kWarpSize; ++l) {
      if (!host[l]) continue;  // vetoed by the checker: a load leaves zeros
      for (uint32_t j = 0; j < len; ++j) {
        uint8_t* p = host[l] + j * esize;
        if (store) {
          uint32_t v = element_bits(c, slots, f, l, i + j);
          std::memcpy(p, &v, esize);  // little-endian: the low esize bytes
        } else if (half_load) {
          // Each copy of the element into its half of its register: a
          // 2-byte store (little-endian, as put's shift), not a
          // read-modify-write of the register per element.
          for (uint32_t rep = i + j; rep < elems; rep += unique)
            std::memcpy(reinterpret_cast<uint8_t*>(&out.regs[rep / 2][l]) + 2 * (rep & 1), p, 2);
        } else {
          uint32_t v = 0;
          std::memcpy(&v, p, esize);
          for (uint32_t rep = i + j; rep < elems; rep += unique) out.put(f, l, rep, v);
        }
      }
    }
    i += len;
  }
  if (!store) out.write(c, slots, f.regs);
}

void exec_wmma_mma(const ptx::Instr& in, WarpContext& c) {
  const uint32_t m = in.shape_m, n = in.shape_n, k = in.shape_k;
  const Type ab = in.type2, ct = in.type3, dt = in.type;
  using frag::WmmaMatrix;
  const frag::FragmentInfo fa = frag::wmma_info(WmmaMatrix::A, m, n, k, ab);
  const frag::FragmentInfo fb = frag::wmma_info(WmmaMatrix::B, m, n, k, ab);
  const frag::FragmentInfo fc = frag::wmma_info(WmmaMatrix::C, m, n, k, ct);
  const frag::FragmentInfo fd = frag::wmma_info(WmmaMatrix::C, m, n, k, dt);
  if (!fa.elems || !fb.elems || !fc.elems || !fd.elems) {
    fault_unsupported(c, in,
                      fmt::format("wmma.mma .m{}n{}k{} with {} inputs and {} -> {} accumulators", m, n, k,
                                  ptx::type_name(ab), ptx::type_name(ct), ptx::type_name(dt)));
    return;
  }
  uint32_t sd[16], sa[16], sb[16], sc[16];
  if (!fragment_slots(c, in, in.ops[0], fd.regs, "D", sd) || !fragment_slots(c, in, in.ops[1], fa.regs, "A", sa) ||
      !fragment_slots(c, in, in.ops[2], fb.regs, "B", sb) || !fragment_slots(c, in, in.ops[3], fc.regs, "C", sc))
    return;
  // The layout qualifiers say how the fragments were loaded; the lab's
  // fragments hold matrix coordinates whatever the memory layout, so
  // .row/.col need no work here.
  float A[16 * 16], Bm[16 * 16], C[16 * 16], D[16 * 16];
  const uint32_t ua = m * k / kWarpSize, ub = k * n / kWarpSize, uc = m * n / kWarpSize;
  const FragmentTable &ta = wmma_table(WmmaMatrix::A, k, ab), &tb = wmma_table(WmmaMatrix::B, k, ab),
                      &tc = wmma_table(WmmaMatrix::C, k, ct);
  gather(c, sa, fa, ua, ta, ab, A);
  gather(c, sb, fb, ub, tb, ab, Bm);
  gather(c, sc, fc, uc, tc, ct, C);
  multiply_accumulate(A, Bm, C, D, m, n, k);
  scatter_result(c, sd, fd, tc, D, dt);
}

// ---- ldmatrix / stmatrix ------------------------------------------------------------
// .m8n8 .b16 only; lanes 8j..8j+7 address the 16-byte rows of matrix j.
void exec_ldstmatrix(const ptx::Instr& in, WarpContext& c) {
  const bool store = in.op == Op::Stmatrix;
  const uint32_t num = in.vec;
  const bool trans = in.flags & ptx::kFlagTrans;
  if (in.shape_m != 8 || in.shape_n != 8 || ptx::type_bytes(in.type) != 2 || (num != 1 && num != 2 && num != 4)) {
    fault_unsupported(c, in, fmt::format(".m{}n{} {} .x{} (the lab runs .m8n8 .b16 .x1/.x2/.x4)", in.shape_m,
                                         in.shape_n, ptx::type_name(in.type), num));
    return;
  }
  const frag::FragmentInfo f{2 * num, 16, num};
  uint32_t slots[4];
  if (!fragment_slots(c, in, in.ops[store ? 1 : 0], num, "matrix", slots)) return;
  uint64_t addr[32];
  lane_addresses(c, in.ops[store ? 0 : 1], addr);
  const uint32_t address_lanes = num == 4 ? kFullWarp : (1u << (8 * num)) - 1;
  uint32_t shared = 0;
  if (!split_spaces(c, in, addr, shared)) return;
  if ((shared & address_lanes) != address_lanes) {
    uint32_t lane = uint32_t(std::countr_zero(address_lanes & ~shared));
    raise_fault(c, "fault",
                fmt::format("'{}' row address of lane {} (0x{:x}) is not in shared memory: ldmatrix/stmatrix only "
                            "access .shared (pass a __shared__ pointer)",
                            ptx::op_name(in.op), lane, addr[lane]),
                lane);
    return;
  }
  // Each row is 16 bytes and must be 16-byte aligned (request() checks).
  uint8_t* host[32];
  if (!request(c, addr, address_lanes, shared, 16, store, host)) return;
  FragmentOut out;
  for (uint32_t j = 0; j < num; ++j)
    for (uint32_t lane = 0; lane < kWarpSize; ++lane)
      for (uint32_t h = 0; h < 2; ++h) {
        frag::Coord p = frag::ldmatrix_element(lane, h, trans);
        uint8_t* row = host[frag::ldmatrix_address_lane(j, p.row)];
        if (!row) continue;  // vetoed by the checker
        uint16_t v;
        if (store) {
          v = uint16_t(element_bits(c, slots, f, lane, 2 * j + h));
          std::memcpy(row + 2 * p.col, &v, 2);
        } else {
          std::memcpy(&v, row + 2 * p.col, 2);
          out.put(f, lane, 2 * j + h, v);
        }
      }
  if (!store) out.write(c, slots, num);
}

}  // namespace

void exec_matrix(const ptx::Instr& in, WarpContext& c) {
  if (!require_full_warp(in, c)) return;
  switch (in.op) {
    case Op::Mma: exec_mma(in, c); return;
    case Op::WmmaLoadA: case Op::WmmaLoadB: case Op::WmmaLoadC: case Op::WmmaStoreD:
      exec_wmma_memory(in, c);
      return;
    case Op::WmmaMma: exec_wmma_mma(in, c); return;
    case Op::Ldmatrix: case Op::Stmatrix: exec_ldstmatrix(in, c); return;
    case Op::WgmmaMmaAsync: case Op::WgmmaFence: case Op::WgmmaCommitGroup: case Op::WgmmaWaitGroup:
      exec_wgmma(in, c);
      return;
    default: fault_unsupported(c, in, "this matrix instruction"); return;
  }
}

}  // namespace lab::sim
