// Tensor-core instructions: fragment layouts against the PTX ISA tables, and
// whole kernels (wmma, mma.sync + ldmatrix, tf32, bf16) run in the simulator
// against a float64 CPU reference.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lab/compile/nvrtc.h"
#include "lab/ptx/parser.h"
#include "lab/sim/float16.h"
#include "lab/sim/fragments.h"
#include "lab/sim/compiled.h"
#include "lab/sim/device.h"
#include "lab/sim/launch.h"

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

// ---- whole kernels in the simulator ----------------------------------------------
namespace {

// The run path's compiled kernel (lab/sim/compiled.h), with a param buffer
// filled in parameter order.
struct Compiled {
  sim::CompiledKernel compiled;
  const ptx::Kernel* kernel = nullptr;  // into compiled's module
  std::vector<uint8_t> params;
  size_t next = 0;
  template <class T>
  void arg(T v) {
    REQUIRE(next < kernel->params.size());
    REQUIRE(kernel->params[next].size == sizeof(T));
    std::memcpy(params.data() + kernel->params[next].offset, &v, sizeof(T));
    ++next;
  }
};

// NVRTC for compute_80 (A100), as these tests were written for.
Compiled compile_for_a100(const std::string& source, const std::string& name, const std::string& kernel,
                          std::vector<std::string> defines = {}) {
  Compiled c;
  c.compiled = sim::compile_kernel({name, kernel, std::move(defines), source}, gpu_model("a100"));
  c.kernel = &c.compiled.kernel();
  c.params.assign(c.kernel->param_bytes, 0);
  return c;
}

LaunchResult run(Compiled& k, GlobalMemory& mem, Dim3 grid, Dim3 block) {
  LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  SimOptions opt;
  opt.threads = 1;
  LaunchResult r = launch(k.compiled.module(), *k.kernel, cfg, k.params, mem, opt);
  for (const auto& e : r.errors) MESSAGE(e.kind << ": " << e.message << " (line " << e.line << ")");
  return r;
}

// Deterministic inputs in [-1, 1).
struct Lcg {
  uint64_t s;
  float next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return float(int32_t(s >> 32) % 1024) / 1024.f;
  }
};

std::vector<uint16_t> halves(size_t n, uint64_t seed, std::vector<double>& values) {
  Lcg g{seed};
  std::vector<uint16_t> h(n);
  values.resize(n);
  for (size_t i = 0; i < n; ++i) {
    h[i] = float_to_half(g.next());
    values[i] = half_to_float(h[i]);
  }
  return h;
}

template <class T>
uint64_t upload(GlobalMemory& mem, const std::vector<T>& v, const char* name) {
  uint64_t a = mem.allocate(v.size() * sizeof(T), name);
  mem.write(a, v.data(), v.size() * sizeof(T));
  return a;
}

template <class T>
std::vector<T> download(GlobalMemory& mem, uint64_t a, size_t n) {
  std::vector<T> v(n);
  mem.read(a, v.data(), n * sizeof(T));
  return v;
}

// |got - want| within fp32-accumulation error of the terms' magnitude; NaN fails.
void check_close(float got, double want, double magnitude, const char* what, size_t index) {
  const double tol = 1e-5 * magnitude + 1e-6;
  if (!(std::fabs(double(got) - want) <= tol)) {
    FAIL_CHECK(what << "[" << index << "] = " << got << ", fp64 reference " << want);
  }
}

const ptx::Instr* find_op(const ptx::Kernel& k, ptx::Op op, size_t* pc_out, int vec = 0) {
  for (size_t pc = 0; pc < k.code.size(); ++pc)
    if (k.code[pc].op == op && (vec == 0 || k.code[pc].vec == vec)) {
      *pc_out = pc;
      return &k.code[pc];
    }
  return nullptr;
}

}  // namespace

TEST_CASE("wmma m16n16k16 f16: load (row A, col B, row C), mma, store (col D)") {
  const char* src = R"(
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
extern "C" __global__ void wmma_gemm(const __half* A, const __half* B, const float* C, float* D) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(a, A, 16);
  wmma::load_matrix_sync(b, B, 16);
  wmma::load_matrix_sync(c, C, 16, wmma::mem_row_major);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D, c, 16, wmma::mem_col_major);
}
)";
  Compiled k = compile_for_a100(src, "wmma_gemm.cu", "wmma_gemm");
  std::vector<double> a, b;
  auto ah = halves(256, 1, a), bh = halves(256, 2, b);  // B stored column-major: B[k][n] at n*16 + k
  std::vector<float> c(256);
  Lcg g{3};
  for (float& x : c) x = g.next();
  GlobalMemory mem;
  uint64_t A = upload(mem, ah, "A"), B = upload(mem, bh, "B"), C = upload(mem, c, "C");
  uint64_t D = upload(mem, std::vector<float>(256, NAN), "D");
  k.arg(A); k.arg(B); k.arg(C); k.arg(D);
  LaunchResult r = run(k, mem, {1, 1, 1}, {32, 1, 1});
  REQUIRE(r.ok);
  auto d = download<float>(mem, D, 256);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      double want = c[i * 16 + j], mag = std::fabs(want);
      for (int kk = 0; kk < 16; ++kk) {
        want += a[i * 16 + kk] * b[j * 16 + kk];
        mag += std::fabs(a[i * 16 + kk] * b[j * 16 + kk]);
      }
      check_close(d[j * 16 + i], want, mag, "D", size_t(i * 16 + j));  // D stored column-major
    }
  // One wmma.mma = 2*16*16*16 flops for the timing model.
  size_t pc;
  const ptx::Instr* mma = find_op(*k.kernel, ptx::Op::WmmaMma, &pc);
  REQUIRE(mma != nullptr);
  CHECK(frag::tensor_flops(*mma) == 8192);
  CHECK(r.metrics.per_pc[pc].warp_insts == 1);
  // The row-major A load from global moves 512 bytes in 4 requests (a0a1,
  // a2a3, a4a5, a6a7: 4 bytes per lane each); each request reads 8 rows x
  // 16 bytes, one sector per row: 4 x 8 = 32 sectors.
  const ptx::Instr* la = find_op(*k.kernel, ptx::Op::WmmaLoadA, &pc);
  REQUIRE(la != nullptr);
  CHECK(r.metrics.per_pc[pc].bytes == 512);
  CHECK(r.metrics.per_pc[pc].requests == 4);
  CHECK(r.metrics.per_pc[pc].sectors == 32);
}

TEST_CASE("wmma m16n16k16 bf16 from shared with a padded stride, f32 accumulate") {
  const char* src = R"(
#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;
#define LD 24
extern "C" __global__ void wmma_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D) {
  __shared__ __align__(32) __nv_bfloat16 As[16 * LD];
  __shared__ __align__(32) __nv_bfloat16 Bs[16 * LD];
  for (int i = threadIdx.x; i < 256; i += 32) {
    As[(i / 16) * LD + i % 16] = A[i];
    Bs[(i / 16) * LD + i % 16] = B[i];
  }
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(c, 0.f);
  wmma::load_matrix_sync(a, As, LD);
  wmma::load_matrix_sync(b, Bs, LD);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}
)";
  Compiled k = compile_for_a100(src, "wmma_bf16.cu", "wmma_bf16");
  Lcg g{11};
  std::vector<uint16_t> ah(256), bh(256);
  std::vector<double> a(256), b(256);
  for (int i = 0; i < 256; ++i) {
    ah[i] = float_to_bf16(g.next());
    a[i] = bf16_to_float(ah[i]);
    bh[i] = float_to_bf16(g.next());
    b[i] = bf16_to_float(bh[i]);
  }
  GlobalMemory mem;
  uint64_t A = upload(mem, ah, "A"), B = upload(mem, bh, "B");
  uint64_t D = upload(mem, std::vector<float>(256, NAN), "D");
  k.arg(A); k.arg(B); k.arg(D);
  LaunchResult r = run(k, mem, {1, 1, 1}, {32, 1, 1});
  REQUIRE(r.ok);
  auto d = download<float>(mem, D, 256);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      double want = 0, mag = 0;
      for (int kk = 0; kk < 16; ++kk) {
        want += a[i * 16 + kk] * b[kk * 16 + j];
        mag += std::fabs(a[i * 16 + kk] * b[kk * 16 + j]);
      }
      check_close(d[i * 16 + j], want, mag, "D", size_t(i * 16 + j));
    }
  // The A load from shared reads 16 rows of 32 bytes at a 48-byte stride:
  // 512 bytes, 4 ideal wavefronts, and the padding keeps it conflict-free.
  size_t pc;
  REQUIRE(find_op(*k.kernel, ptx::Op::WmmaLoadA, &pc) != nullptr);
  CHECK(r.metrics.per_pc[pc].bytes == 512);
  CHECK(r.metrics.per_pc[pc].ideal_wavefronts == 4);
  CHECK(r.metrics.per_pc[pc].wavefronts == 4);
}

// mma.sync m16n8k16 with A by ldmatrix.x4 and B by ldmatrix.x2.trans from
// shared; LDA (the A tile's row stride in halves) sets the bank conflicts.
static const char* kMmaLdmatrix = R"(
#include <cuda_fp16.h>
extern "C" __global__ void mma_ldmatrix(const __half* A, const __half* B, const float* C, float* D) {
  __shared__ __align__(128) __half As[16 * LDA];
  __shared__ __align__(128) __half Bs[16 * 8];
  const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  for (int i = lane; i < 256; i += 32) As[(i / 16) * LDA + i % 16] = A[i];
  for (int i = lane; i < 128; i += 32) Bs[i] = B[i];
  __syncthreads();
  unsigned a0, a1, a2, a3, b0, b1;
  unsigned pa = (unsigned)__cvta_generic_to_shared(&As[(lane & 15) * LDA + (lane >> 4) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(pa));
  unsigned pb = (unsigned)__cvta_generic_to_shared(&Bs[(lane & 15) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(pb));
  float c0 = C[g * 8 + 2 * t], c1 = C[g * 8 + 2 * t + 1];
  float c2 = C[(g + 8) * 8 + 2 * t], c3 = C[(g + 8) * 8 + 2 * t + 1];
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};"
               : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  D[g * 8 + 2 * t] = c0;
  D[g * 8 + 2 * t + 1] = c1;
  D[(g + 8) * 8 + 2 * t] = c2;
  D[(g + 8) * 8 + 2 * t + 1] = c3;
}
)";

TEST_CASE("mma.sync m16n8k16 f16 with ldmatrix (x4, x2.trans) from shared; ldmatrix bank conflicts") {
  for (int lda : {24, 16}) {
    CAPTURE(lda);
    Compiled k = compile_for_a100(kMmaLdmatrix, "mma_ldmatrix.cu", "mma_ldmatrix", {"LDA=" + std::to_string(lda)});
    std::vector<double> a, b;
    auto ah = halves(256, 5, a), bh = halves(128, 6, b);  // A 16x16, B 16x8 row-major
    std::vector<float> c(128);
    Lcg g{7};
    for (float& x : c) x = g.next();
    GlobalMemory mem;
    uint64_t A = upload(mem, ah, "A"), B = upload(mem, bh, "B"), C = upload(mem, c, "C");
    uint64_t D = upload(mem, std::vector<float>(128, NAN), "D");
    k.arg(A); k.arg(B); k.arg(C); k.arg(D);
    LaunchResult r = run(k, mem, {1, 1, 1}, {32, 1, 1});
    REQUIRE(r.ok);
    auto d = download<float>(mem, D, 128);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j) {
        double want = c[i * 8 + j], mag = std::fabs(want);
        for (int kk = 0; kk < 16; ++kk) {
          want += a[i * 16 + kk] * b[kk * 8 + j];
          mag += std::fabs(a[i * 16 + kk] * b[kk * 8 + j]);
        }
        check_close(d[i * 8 + j], want, mag, "D", size_t(i * 8 + j));
        // Bit for bit the file comment's order (start at C, add the exact
        // products in increasing k in fp64, round once), whichever vector
        // width the host's multiply-accumulate path uses.
        CHECK(d[i * 8 + j] == float(want));
      }
    size_t pc;
    REQUIRE(find_op(*k.kernel, ptx::Op::Ldmatrix, &pc, 4) != nullptr);
    const PcCounters& x4 = r.metrics.per_pc[pc];
    CHECK(x4.requests == 1);
    CHECK(x4.bytes == 512);  // 4 matrices x 8 rows x 16 bytes
    CHECK(x4.ideal_wavefronts == 4);
    // 48-byte rows put each phase's 8 rows in 8 distinct groups of 4 banks;
    // 32-byte rows put rows r and r+4 on the same banks: 2-way conflicts.
    CHECK(x4.wavefronts == (lda == 24 ? 4u : 8u));
    REQUIRE(find_op(*k.kernel, ptx::Op::Ldmatrix, &pc, 2) != nullptr);
    CHECK(r.metrics.per_pc[pc].wavefronts == 2);  // 16 contiguous rows
    REQUIRE(find_op(*k.kernel, ptx::Op::Mma, &pc) != nullptr);
    CHECK(frag::tensor_flops(k.kernel->code[pc]) == 2 * 16 * 8 * 16);
  }
}

TEST_CASE("mma.sync m16n8k8 tf32: fragments per the ISA table, low 13 bits truncated") {
  const char* src = R"(
extern "C" __global__ void mma_tf32(const float* A, const float* B, float* D) {
  // A 16x8, B 8x8 (k x n), D 16x8, all row-major; fragments per PTX ISA 9.7.14.5.7.
  const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  unsigned a0 = __float_as_uint(A[g * 8 + t]), a1 = __float_as_uint(A[(g + 8) * 8 + t]);
  unsigned a2 = __float_as_uint(A[g * 8 + t + 4]), a3 = __float_as_uint(A[(g + 8) * 8 + t + 4]);
  unsigned b0 = __float_as_uint(B[t * 8 + g]), b1 = __float_as_uint(B[(t + 4) * 8 + g]);
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  D[g * 8 + 2 * t] = d0;
  D[g * 8 + 2 * t + 1] = d1;
  D[(g + 8) * 8 + 2 * t] = d2;
  D[(g + 8) * 8 + 2 * t + 1] = d3;
}
)";
  Compiled k = compile_for_a100(src, "mma_tf32.cu", "mma_tf32");
  // Full-precision fp32 inputs: 1 + a fraction that tf32 cannot hold.
  std::vector<float> a(128), b(64);
  Lcg g{21};
  for (float& x : a) x = 1.f + g.next() * 0.999f;
  for (float& x : b) x = g.next() + 0.0001234f;
  GlobalMemory mem;
  uint64_t A = upload(mem, a, "A"), B = upload(mem, b, "B");
  uint64_t D = upload(mem, std::vector<float>(128, NAN), "D");
  k.arg(A); k.arg(B); k.arg(D);
  LaunchResult r = run(k, mem, {1, 1, 1}, {32, 1, 1});
  REQUIRE(r.ok);
  auto d = download<float>(mem, D, 128);
  auto tf32 = [](float x) { return double(std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0xffffe000u)); };
  double max_exact_gap = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double want = 0, exact = 0, mag = 0;
      for (int kk = 0; kk < 8; ++kk) {
        want += tf32(a[i * 8 + kk]) * tf32(b[kk * 8 + j]);
        exact += double(a[i * 8 + kk]) * b[kk * 8 + j];
        mag += std::fabs(double(a[i * 8 + kk]) * b[kk * 8 + j]);
      }
      check_close(d[i * 8 + j], want, mag, "D", size_t(i * 8 + j));
      max_exact_gap = std::max(max_exact_gap, std::fabs(exact - want) / mag);
    }
  // The inputs were chosen so that truncation is visible: the check above
  // would fail against the untruncated product.
  CHECK(max_exact_gap > 1e-4);
}

TEST_CASE("mma.sync m16n8k16 bf16: fragments packed by hand per the ISA table") {
  const char* src = R"(
extern "C" __global__ void mma_bf16(const unsigned short* A, const unsigned short* B, float* D) {
  // A 16x16, B 16x8 (k x n), D 16x8, row-major; PTX ISA 9.7.14.5.8.
  const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  auto pack = [](unsigned short lo, unsigned short hi) { return unsigned(lo) | (unsigned(hi) << 16); };
  unsigned a0 = pack(A[g * 16 + 2 * t], A[g * 16 + 2 * t + 1]);
  unsigned a1 = pack(A[(g + 8) * 16 + 2 * t], A[(g + 8) * 16 + 2 * t + 1]);
  unsigned a2 = pack(A[g * 16 + 2 * t + 8], A[g * 16 + 2 * t + 9]);
  unsigned a3 = pack(A[(g + 8) * 16 + 2 * t + 8], A[(g + 8) * 16 + 2 * t + 9]);
  unsigned b0 = pack(B[(2 * t) * 8 + g], B[(2 * t + 1) * 8 + g]);
  unsigned b1 = pack(B[(2 * t + 8) * 8 + g], B[(2 * t + 9) * 8 + g]);
  float d0 = 1.f, d1 = 1.f, d2 = 1.f, d3 = 1.f;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  D[g * 8 + 2 * t] = d0;
  D[g * 8 + 2 * t + 1] = d1;
  D[(g + 8) * 8 + 2 * t] = d2;
  D[(g + 8) * 8 + 2 * t + 1] = d3;
}
)";
  Compiled k = compile_for_a100(src, "mma_bf16.cu", "mma_bf16");
  Lcg g{31};
  std::vector<uint16_t> ah(256), bh(128);
  std::vector<double> a(256), b(128);
  for (int i = 0; i < 256; ++i) a[i] = bf16_to_float(ah[i] = float_to_bf16(g.next() * 3.f));
  for (int i = 0; i < 128; ++i) b[i] = bf16_to_float(bh[i] = float_to_bf16(g.next() * 3.f));
  GlobalMemory mem;
  uint64_t A = upload(mem, ah, "A"), B = upload(mem, bh, "B");
  uint64_t D = upload(mem, std::vector<float>(128, NAN), "D");
  k.arg(A); k.arg(B); k.arg(D);
  LaunchResult r = run(k, mem, {1, 1, 1}, {32, 1, 1});
  REQUIRE(r.ok);
  auto d = download<float>(mem, D, 128);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double want = 1.0, mag = 1.0;  // C = 1
      for (int kk = 0; kk < 16; ++kk) {
        want += a[i * 16 + kk] * b[kk * 8 + j];
        mag += std::fabs(a[i * 16 + kk] * b[kk * 8 + j]);
      }
      check_close(d[i * 8 + j], want, mag, "D", size_t(i * 8 + j));
      CHECK(d[i * 8 + j] == float(want));  // the summation order, bit for bit
    }
}

TEST_CASE("mma.sync with f16 accumulators, and a partial warp is an invalid-mask error") {
  const char* src = R"(
#include <cuda_fp16.h>
extern "C" __global__ void mma_f16acc(unsigned* D, int active) {
  // A = all 1.0, B = all 2.0 (f16x2 0x3c00 / 0x4000 pairs), C = 0.5: D = 8 * 2 + 0.5 = 16.5.
  unsigned a0 = 0x3c003c00u, a1 = 0x3c003c00u, b0 = 0x40004000u;
  unsigned c0 = 0x38003800u, c1 = 0x38003800u;
  if (threadIdx.x < active)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%0, %1};"
                 : "+r"(c0), "+r"(c1) : "r"(a0), "r"(a1), "r"(b0));
  D[2 * threadIdx.x] = c0;
  D[2 * threadIdx.x + 1] = c1;
}
)";
  Compiled k = compile_for_a100(src, "mma_f16acc.cu", "mma_f16acc");
  GlobalMemory mem;
  uint64_t D = upload(mem, std::vector<uint32_t>(64, 0), "D");
  k.arg(D);
  k.arg(int32_t(32));
  LaunchResult r = run(k, mem, {1, 1, 1}, {32, 1, 1});
  REQUIRE(r.ok);
  auto d = download<uint32_t>(mem, D, 64);
  const uint32_t h = float_to_half(16.5f);
  for (uint32_t v : d) CHECK(v == (h | h << 16));

  Compiled k2 = compile_for_a100(src, "mma_f16acc.cu", "mma_f16acc");
  GlobalMemory mem2;
  uint64_t D2 = upload(mem2, std::vector<uint32_t>(64, 0), "D");
  k2.arg(D2);
  k2.arg(int32_t(16));
  LaunchResult r2 = run(k2, mem2, {1, 1, 1}, {32, 1, 1});
  CHECK_FALSE(r2.ok);
  REQUIRE(!r2.errors.empty());
  CHECK(r2.errors[0].kind == "invalid-mask");
  // The error names the asm statement's source line (8 or 9: NVRTC may tag its operand line).
  CHECK(r2.errors[0].line >= 8);
  CHECK(r2.errors[0].line <= 9);
}

// ---- the GEMM progression's tensor-core versions at odd sizes ------------------------
// kernels/gemm/08 (WMMA) and 09 (mma.sync + ldmatrix + cp.async double
// buffering): C = alpha * A * B + beta * C, A and B fp16 row-major, C fp32.
static void check_gemm_version(const char* file, const char* kernel, uint32_t block_m, uint32_t block_n,
                               uint32_t threads) {
  const std::string path = std::string(GPULAB_SOURCE_DIR) + "/kernels/gemm/" + file;
  const sim::CompiledKernel compiled = sim::compile_kernel({path, kernel, {}, {}}, gpu_model("a100"));
  const ptx::Kernel* k = &compiled.kernel();
  struct Size { int m, n, k; float beta; };
  for (Size s : {Size{1, 1, 1, 0.f}, Size{17, 33, 65, 0.5f}, Size{128, 96, 40, 0.f}, Size{70, 136, 48, 0.25f}}) {
    CAPTURE(s.m); CAPTURE(s.n); CAPTURE(s.k);
    const float alpha = 1.5f;
    std::vector<double> a, b;
    auto ah = halves(size_t(s.m) * s.k, 41, a), bh = halves(size_t(s.k) * s.n, 43, b);
    std::vector<float> c(size_t(s.m) * s.n, NAN);  // poisoned: every element must be written
    Lcg g{47};
    if (s.beta != 0.f)
      for (float& x : c) x = g.next();
    GlobalMemory mem;
    uint64_t A = upload(mem, ah, "A"), B = upload(mem, bh, "B"), C = upload(mem, c, "C");
    Compiled run_k{compiled, k, std::vector<uint8_t>(k->param_bytes, 0)};
    run_k.arg(int32_t(s.m)); run_k.arg(int32_t(s.n)); run_k.arg(int32_t(s.k)); run_k.arg(alpha);
    run_k.arg(A); run_k.arg(B); run_k.arg(s.beta); run_k.arg(C);
    Dim3 grid{(uint32_t(s.n) + block_n - 1) / block_n, (uint32_t(s.m) + block_m - 1) / block_m, 1};
    LaunchResult r = run(run_k, mem, grid, {threads, 1, 1});
    REQUIRE(r.ok);
    auto d = download<float>(mem, C, c.size());
    int bad = 0;
    for (int i = 0; i < s.m && bad < 5; ++i)
      for (int j = 0; j < s.n && bad < 5; ++j) {
        double acc = 0, mag = 0;
        for (int kk = 0; kk < s.k; ++kk) {
          acc += a[size_t(i) * s.k + kk] * b[size_t(kk) * s.n + j];
          mag += std::fabs(a[size_t(i) * s.k + kk] * b[size_t(kk) * s.n + j]);
        }
        double cin = s.beta != 0.f ? double(c[size_t(i) * s.n + j]) : 0.0;
        double want = alpha * acc + s.beta * cin;
        double tol = 1e-5 * (alpha * mag + std::fabs(s.beta * cin)) + 1e-6;
        float got = d[size_t(i) * s.n + j];
        if (!(std::fabs(got - want) <= tol)) {
          ++bad;
          FAIL_CHECK("C[" << i << "][" << j << "] = " << got << ", fp64 reference " << want);
        }
      }
    // Tensor work was done on tensor-core instructions.
    uint64_t flops = 0;
    for (size_t pc = 0; pc < k->code.size(); ++pc)
      flops += frag::tensor_flops(k->code[pc]) * r.metrics.per_pc[pc].warp_insts;
    CHECK(flops >= 2ull * s.m * s.n * s.k);
  }
}

TEST_CASE("kernels/gemm/08_tensor_core_wmma at odd sizes against fp64") {
  check_gemm_version("08_tensor_core_wmma.cu", "gemm_08_tensor_core_wmma", 64, 64, 128);
}

TEST_CASE("kernels/gemm/09_tensor_core_mma at odd sizes against fp64") {
  check_gemm_version("09_tensor_core_mma.cu", "gemm_09_tensor_core_mma", 128, 128, 256);
}

TEST_CASE("wmma m16n16k8 tf32 and m16n16k16 with f16 accumulators") {
  const char* src = R"(
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
extern "C" __global__ void wmma_tf32(const float* A, const float* B, float* D) {
  // A 16x8 row-major, B 8x16 col-major (ld 8), D 16x16 row-major.
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
  wmma::fill_fragment(c, 0.f);
  wmma::load_matrix_sync(a, A, 8);
  wmma::load_matrix_sync(b, B, 8);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}
extern "C" __global__ void wmma_f16acc(const __half* A, const __half* B, const __half* C, __half* D) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::col_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, __half> c;
  wmma::load_matrix_sync(a, A, 16);
  wmma::load_matrix_sync(b, B, 16);
  wmma::load_matrix_sync(c, C, 16, wmma::mem_col_major);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}
)";
  {
    Compiled k = compile_for_a100(src, "wmma_more.cu", "wmma_tf32");
    std::vector<float> a(128), b(128);
    Lcg g{51};
    for (float& x : a) x = g.next();
    for (float& x : b) x = g.next();
    GlobalMemory mem;
    uint64_t A = upload(mem, a, "A"), B = upload(mem, b, "B");
    uint64_t D = upload(mem, std::vector<float>(256, NAN), "D");
    k.arg(A); k.arg(B); k.arg(D);
    LaunchResult r = run(k, mem, {1, 1, 1}, {32, 1, 1});
    REQUIRE(r.ok);
    auto d = download<float>(mem, D, 256);
    auto tf32 = [](float x) { return double(std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0xffffe000u)); };
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        double want = 0, mag = 0;
        for (int kk = 0; kk < 8; ++kk) {
          want += tf32(a[i * 8 + kk]) * tf32(b[j * 8 + kk]);
          mag += std::fabs(a[i * 8 + kk] * b[j * 8 + kk]);
        }
        check_close(d[i * 16 + j], want, mag, "D", size_t(i * 16 + j));
      }
  }
  {
    Compiled k = compile_for_a100(src, "wmma_more.cu", "wmma_f16acc");
    std::vector<double> a, b, c;
    auto ah = halves(256, 61, a), bh = halves(256, 62, b), ch = halves(256, 63, c);
    GlobalMemory mem;
    uint64_t A = upload(mem, ah, "A"), B = upload(mem, bh, "B"), C = upload(mem, ch, "C");
    uint64_t D = upload(mem, std::vector<uint16_t>(256, 0x7e00), "D");
    k.arg(A); k.arg(B); k.arg(C); k.arg(D);
    LaunchResult r = run(k, mem, {1, 1, 1}, {32, 1, 1});
    REQUIRE(r.ok);
    auto d = download<uint16_t>(mem, D, 256);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        double want = c[j * 16 + i];  // C loaded column-major
        for (int kk = 0; kk < 16; ++kk) want += a[kk * 16 + i] * b[kk * 16 + j];  // A column-major
        // One rounding to f16 at the end: within half an f16 ulp (2^-11 relative).
        CHECK(std::fabs(half_to_float(d[i * 16 + j]) - want) <= std::fabs(want) * 0x1p-11 + 0x1p-24);
      }
  }
}

TEST_CASE("stmatrix (sm_90) writes back what ldmatrix read; .trans transposes") {
  const char* src = R"(
extern "C" __global__ void ldst(const unsigned short* in, unsigned short* out, unsigned short* out_t) {
  // Four 8x8 b16 matrices, 16-byte rows: rows 0..31 of a 32x8 tile.
  __shared__ __align__(128) unsigned short s[32 * 8], o[32 * 8], t[32 * 8];
  const int lane = threadIdx.x;
  for (int i = lane; i < 256; i += 32) s[i] = in[i];
  __syncthreads();
  unsigned r0, r1, r2, r3;
  unsigned p = (unsigned)__cvta_generic_to_shared(&s[lane * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(p));
  unsigned q = (unsigned)__cvta_generic_to_shared(&o[lane * 8]);
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(q), "r"(r0), "r"(r1), "r"(r2), "r"(r3));
  unsigned u = (unsigned)__cvta_generic_to_shared(&t[lane * 8]);
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(u), "r"(r0), "r"(r1), "r"(r2), "r"(r3));
  __syncthreads();
  for (int i = lane; i < 256; i += 32) { out[i] = o[i]; out_t[i] = t[i]; }
}
)";
  Compiled k;
  k.compiled = sim::compile_kernel({"ldst.cu", "ldst", {}, src}, gpu_model("h100"));  // compute_90
  k.kernel = &k.compiled.kernel();
  k.params.assign(k.kernel->param_bytes, 0);
  std::vector<uint16_t> in(256);
  for (int i = 0; i < 256; ++i) in[i] = uint16_t(i * 7 + 1);
  GlobalMemory mem;
  uint64_t I = upload(mem, in, "in");
  uint64_t O = upload(mem, std::vector<uint16_t>(256, 0), "out");
  uint64_t T = upload(mem, std::vector<uint16_t>(256, 0), "out_t");
  k.arg(I); k.arg(O); k.arg(T);
  LaunchResult r = run(k, mem, {1, 1, 1}, {32, 1, 1});
  REQUIRE(r.ok);
  auto out = download<uint16_t>(mem, O, 256), out_t = download<uint16_t>(mem, T, 256);
  for (int i = 0; i < 256; ++i) CHECK(out[i] == in[i]);
  // Matrix j, element (r, c) comes back at (c, r) of matrix j.
  for (int j = 0; j < 4; ++j)
    for (int rr = 0; rr < 8; ++rr)
      for (int cc = 0; cc < 8; ++cc) CHECK(out_t[j * 64 + cc * 8 + rr] == in[j * 64 + rr * 8 + cc]);
}
