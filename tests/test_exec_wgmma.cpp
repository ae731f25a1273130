// tests/test_exec_wgmma.cpp: Hopper's asynchronous path against the PTX
// ISA: wgmma.mma_async reading both operands through shared-memory matrix
// descriptors (every swizzle mode, K-major and MN-major, scale-d,
// imm-scale, bf16), cp.async.bulk.tensor through a tensor map (the box,
// zero fill outside the tensor, the 128-byte swizzle, its complete_tx on
// the mbarrier), the tensor map's checks, setmaxnreg, and the errors a
// student meets. The kernels lay the operands out with the ISA's formulas
// written here, not with the simulator's (lab/sim/matrix_descriptor.h).
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "lab/sim/cycle/result.h"
#include "lab/sim/device.h"
#include "lab/sim/float16.h"
#include "lab/sim/run.h"
#include "lab/sim/tensor_map.h"
#include "sim_harness.h"

using lab::sim::Dim3;
using simtest::Program;

namespace {

// One warpgroup multiplies A (64 x 16, row-major in global) by B (16 x N,
// row-major) with one wgmma.m64n{N}k16 and writes D (64 x N, row-major).
// `layout` picks how the kernel lays A and B out in shared memory:
//   0: A K-major, B K-major, no swizzle: 8 x 16-byte core matrices,
//      element (r, k) at (r%8)*16 + (r/8)*SBO + (k%8)*2 + (k/8)*LBO
//   1: A K-major 128-byte swizzle (rows 128 B apart), B N-major 128-byte
//      swizzle (k rows 128 B apart, n 64..127 at LBO)
//   2: A K-major 64-byte swizzle, B K-major 32-byte swizzle
// The swizzle of W bytes XORs address bits [4, 4+b) with [7, 7+b), b = 3, 2, 1.
const char* kWgmma = R"(
#include <cuda_fp16.h>
__device__ unsigned swz(unsigned a, unsigned w) {
  unsigned b = w == 128 ? 7u : w == 64 ? 3u : w == 32 ? 1u : 0u;
  return a ^ (((a >> 7) & b) << 4);
}
__device__ unsigned long long desc(unsigned addr, unsigned lbo, unsigned sbo, unsigned mode) {
  return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)((lbo & 0x3FFFF) >> 4) << 16) |
         ((unsigned long long)((sbo & 0x3FFFF) >> 4) << 32) | ((unsigned long long)mode << 62);
}
#define N NVAL
extern "C" __global__ void wg(const __half* A, const __half* B, float* D, int layout, int scale_d, int neg_a,
                              int clobber) {
  __shared__ __align__(1024) unsigned char sm[16384];
  const unsigned base = (unsigned)__cvta_generic_to_shared(sm);
  const int t = threadIdx.x;
  for (int i = t; i < 16384; i += 128) sm[i] = 0;
  __syncthreads();
  unsigned long long da, db;
  const unsigned bofs = 8192;  // B after A (A takes up to 8 KiB)
  for (int i = t; i < 64 * 16; i += 128) {
    int r = i / 16, k = i % 16;
    unsigned off;
    if (layout == 0) off = (r % 8) * 16 + (r / 8) * 256 + (k % 8) * 2 + (k / 8) * 128;
    else if (layout == 1) off = swz(r * 128 + k * 2, 128);
    else off = swz(r * 64 + k * 2, 64);
    *(__half*)(sm + off) = A[r * 16 + k];
  }
  for (int i = t; i < 16 * N; i += 128) {
    int k = i / N, n = i % N;
    unsigned off;
    if (layout == 0) off = (n % 8) * 16 + (n / 8) * 256 + (k % 8) * 2 + (k / 8) * 128;
    else if (layout == 1) off = swz((n % 64) * 2 + k * 128 + (n / 64) * 2048, 128);
    else off = swz(n * 32 + k * 2, 32);
    *(__half*)(sm + bofs + off) = B[k * N + n];
  }
  if (layout == 0) { da = desc(base, 128, 256, 0); db = desc(base + bofs, 128, 256, 0); }
  else if (layout == 1) { da = desc(base, 16, 1024, 1); db = desc(base + bofs, 2048, 1024, 1); }
  else { da = desc(base, 16, 512, 2); db = desc(base + bofs, 16, 256, 3); }
  float d[N / 2];
  for (int i = 0; i < N / 2; ++i) d[i] = 1.0f;
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  TRANS_B_SETUP
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SREG ", 0;\n"
               "wgmma.mma_async.sync.aligned.m64n" NSTR "k16.f32.f16.f16 " DREGS ", " AREG ", " BREG ", p, NEG_A, 1, 0, TRANS_B;\n}\n"
               : DOUTS
               : "l"(da), "l"(db), "r"(scale_d));
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  // wait_group 0 in one warp means the warpgroup's wgmma is done, all four
  // warps' parts: thread 0 may overwrite the tiles at once, no __syncthreads
  // (fast.cu's kernel 3 does this before its next TMA).
  // B first (every warp reads all of B), 16 bytes at a time.
  if (clobber && t == 0)
    for (int i = 0; i < 256; ++i) reinterpret_cast<uint4*>(sm + bofs)[i] = make_uint4(0, 0, 0, 0);
  const int w = t / 32, l = t % 32;
  for (int i = 0; i < N / 2; ++i) {
    int row = 16 * w + l / 4 + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * (l & 3) + (i & 1);
    D[row * N + col] = d[i];
  }
}
)";

std::string wgmma_source(int n, int trans_b, int neg_a) {
  std::string regs = "{", outs;
  for (int i = 0; i < n / 2; ++i) {
    regs += (i ? ", %" : "%") + std::to_string(i);
    outs += (i ? ", \"+f\"(d[" : "\"+f\"(d[") + std::to_string(i) + "])";
  }
  regs += "}";
  std::string s = kWgmma;
  auto sub = [&](const std::string& key, const std::string& val) {
    for (size_t at; (at = s.find(key)) != std::string::npos;) s.replace(at, key.size(), val);
  };
  sub("NVAL", std::to_string(n));
  sub("NSTR", "\"" + std::to_string(n) + "\"");
  sub("DREGS", "\"" + regs + "\"");
  sub("DOUTS", outs);
  sub("TRANS_B_SETUP", "");
  sub("AREG", "\"%" + std::to_string(n / 2) + "\"");
  sub("BREG", "\"%" + std::to_string(n / 2 + 1) + "\"");
  sub("SREG", "\"%" + std::to_string(n / 2 + 2) + "\"");
  sub("TRANS_B", std::to_string(trans_b));
  sub("NEG_A", std::to_string(neg_a ? -1 : 1));
  return s;
}

struct WgmmaCase {
  int layout, n, trans_b;
};

void run_wgmma(const WgmmaCase& c, int scale_d, int neg_a, int clobber = 0) {
  Program p = Program::from_cuda(wgmma_source(c.n, c.trans_b, neg_a), "wg", "compute_90a");
  REQUIRE(p.kernel);
  std::vector<uint16_t> A(64 * 16), B(16 * c.n);
  std::vector<float> Af(A.size()), Bf(B.size());
  for (size_t i = 0; i < A.size(); ++i) {
    Af[i] = float(int(i * 7 % 11) - 5) * 0.25f;
    A[i] = lab::sim::float_to_half_nearest(Af[i]);
  }
  for (size_t i = 0; i < B.size(); ++i) {
    Bf[i] = float(int(i * 5 % 13) - 6) * 0.5f;
    B[i] = lab::sim::float_to_half_nearest(Bf[i]);
  }
  uint64_t da = p.buffer(A, "A"), db = p.buffer(B, "B"), dd = p.buffer(std::vector<float>(64 * c.n, -777.f), "D");
  p.arg(da);
  p.arg(db);
  p.arg(dd);
  p.arg(int32_t(c.layout));
  p.arg(int32_t(scale_d));
  p.arg(int32_t(neg_a));
  p.arg(int32_t(clobber));
  auto r = p.run(Dim3{1}, Dim3{128});
  for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
  REQUIRE(r.ok);
  auto D = p.read<float>(dd, 64 * c.n);
  int bad = 0;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < c.n; ++n) {
      double want = scale_d ? 1.0 : 0.0;
      for (int k = 0; k < 16; ++k) want += (neg_a ? -1.0 : 1.0) * Af[m * 16 + k] * Bf[k * c.n + n];
      if (std::fabs(D[m * c.n + n] - want) > 1e-3 && bad++ < 5) {
        CAPTURE(m);
        CAPTURE(n);
        CHECK(D[m * c.n + n] == doctest::Approx(want));
      }
    }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("wgmma.mma_async reads both operands through matrix descriptors (PTX ISA 9.7.15)") {
  SUBCASE("no swizzle, A and B K-major, m64n64k16") { run_wgmma({0, 64, 0}, 1, 0); }
  SUBCASE("128-byte swizzle, A K-major, B N-major across two 64-wide atoms, m64n128k16") { run_wgmma({1, 128, 1}, 1, 0); }
  SUBCASE("64-byte swizzle A, 32-byte swizzle B (K-major), m64n16k16") { run_wgmma({2, 16, 0}, 1, 0); }
  SUBCASE("scale-d false: D = A B, the accumulator's old value ignored") { run_wgmma({0, 64, 0}, 0, 0); }
  SUBCASE("imm-scale-a = -1 negates A") { run_wgmma({1, 128, 1}, 1, 1); }
  SUBCASE("wait_group waits for the whole warpgroup: a warp that clobbers the tiles after it cannot hurt the others") {
    run_wgmma({1, 128, 1}, 1, 0, 1);
  }
}

TEST_CASE("wgmma needs the architecture-specific target and shared-memory operands") {
  const std::string body = R"(
.visible .entry k()
{
  .reg .f32 %f<5>;
  .reg .b64 %rd<3>;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;
  ret;
}
)";
  auto module = [&](const char* target) { return std::string(".version 8.0\n.target ") + target + "\n.address_size 64\n" + body; };
  CHECK_THROWS_WITH_AS(Program::from_ptx(module("sm_90"), "k"), doctest::Contains("sm_90a"), std::exception);
  CHECK_NOTHROW(Program::from_ptx(module("sm_90a"), "k"));
  // A from registers is not modelled: a clear message, not a wrong answer.
  std::string rs = body;
  rs.replace(rs.find("%rd1, %rd2, 1, 1, 1, 0, 0"), 25, "{%f1, %f2, %f3, %f4}, %rd2, 1, 1, 1, 0");
  CHECK_THROWS_WITH_AS(Program::from_ptx(std::string(".version 8.0\n.target sm_90a\n.address_size 64\n") + rs, "k"),
                       doctest::Contains("A in registers"), std::exception);
}

namespace {

// One thread copies a box of a 2-D fp16 tensor (rows x cols, row-major)
// into shared memory with cp.async.bulk.tensor, waits on the mbarrier, and
// all threads copy the box's bytes out.
const char* kTma = R"(
struct __align__(64) Map { unsigned long long v[16]; };
extern "C" __global__ void tma(unsigned short* out, int c0, int c1, int box_bytes, const __grid_constant__ Map map) {
  __shared__ __align__(1024) unsigned short box[4096];
  __shared__ __align__(8) unsigned long long bar;
  const unsigned sbar = (unsigned)__cvta_generic_to_shared(&bar);
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) box[i] = 0xBEEF;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(sbar));
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(sbar), "r"(box_bytes) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
                 ::"r"((unsigned)__cvta_generic_to_shared(box)), "l"(&map), "r"(c0), "r"(c1), "r"(sbar) : "memory");
  }
  asm volatile("{\n.reg .pred p;\nW:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra W;\n}\n" ::"r"(sbar) : "memory");
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) out[i] = box[i];
}
)";

struct TmaRun {
  std::vector<uint16_t> smem;
  bool ok = false;
  std::string error;
};

// The tensor: rows x cols halves, element (r, c) = r * 256 + c + 1.
TmaRun run_tma(int rows, int cols, uint32_t box_c, uint32_t box_r, uint32_t swizzle, int c0, int c1) {
  Program p = Program::from_cuda(kTma, "tma", "compute_90a");
  REQUIRE(p.kernel);
  std::vector<uint16_t> t(size_t(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) t[size_t(r) * cols + c] = uint16_t(r * 256 + c + 1);
  uint64_t dt = p.buffer(t, "tensor"), dout = p.buffer(std::vector<uint16_t>(4096, 0), "out");
  alignas(64) std::array<uint8_t, 128> map{};
  const uint64_t dims[2] = {uint64_t(cols), uint64_t(rows)}, stride = uint64_t(cols) * 2;
  const uint32_t box[2] = {box_c, box_r}, es[2] = {1, 1};
  const std::string err = lab::sim::encode_tensor_map_tiled(map.data(), lab::sim::kTmUint16, 2, dt, dims, &stride, box, es,
                                                            0, swizzle, 0, 0);
  REQUIRE(err == "");
  p.arg(dout);
  p.arg(int32_t(c0));
  p.arg(int32_t(c1));
  p.arg(int32_t(box_c * box_r * 2));
  p.arg(map);
  auto r = p.run(Dim3{1}, Dim3{64});
  TmaRun out;
  out.ok = r.ok;
  for (auto& e : r.errors) out.error += e.message;
  out.smem = p.read<uint16_t>(dout, 4096);
  return out;
}

}  // namespace

TEST_CASE("cp.async.bulk.tensor copies a box through a tensor map (PTX ISA 9.7.9.25.5.1)") {
  SUBCASE("inside the tensor, no swizzle: rows of the box one after another") {
    TmaRun r = run_tma(40, 64, 16, 8, lab::sim::kTmSwizzleNone, 8, 4);
    REQUIRE(r.ok);
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 16; ++j) CHECK(r.smem[size_t(i) * 16 + j] == uint16_t((4 + i) * 256 + 8 + j + 1));
    CHECK(r.smem[128] == 0xBEEF);  // nothing past the box
  }
  SUBCASE("across the tensor's edges: zeros outside, negative coordinates too") {
    TmaRun r = run_tma(20, 40, 16, 8, lab::sim::kTmSwizzleNone, 32, 16);  // cols 32..47 of 40, rows 16..23 of 20
    REQUIRE(r.ok);
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 16; ++j) {
        const bool in = 16 + i < 20 && 32 + j < 40;
        CHECK(r.smem[size_t(i) * 16 + j] == (in ? uint16_t((16 + i) * 256 + 32 + j + 1) : 0));
      }
    TmaRun n = run_tma(20, 40, 16, 8, lab::sim::kTmSwizzleNone, -8, -2);
    REQUIRE(n.ok);
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 16; ++j) {
        const int rr = i - 2, cc = j - 8;
        CHECK(n.smem[size_t(i) * 16 + j] == (rr >= 0 && cc >= 0 ? uint16_t(rr * 256 + cc + 1) : 0));
      }
  }
  SUBCASE("128-byte swizzle: chunk c of row r lands at chunk c ^ (r % 8)") {
    TmaRun r = run_tma(64, 128, 64, 16, lab::sim::kTmSwizzle128B, 64, 8);
    REQUIRE(r.ok);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 64; ++j) {
        const int chunk = (j / 8) ^ (i % 8);
        CHECK(r.smem[size_t(i) * 64 + chunk * 8 + j % 8] == uint16_t((8 + i) * 256 + 64 + j + 1));
      }
  }
}

TEST_CASE("the tensor map: cuTensorMapEncodeTiled's checks, and a map the host never encoded") {
  alignas(64) std::array<uint8_t, 128> map{};
  const uint64_t dims[2] = {100, 10}, stride = 200;
  const uint32_t box[2] = {64, 8}, es[2] = {1, 1};
  using namespace lab::sim;
  CHECK(encode_tensor_map_tiled(map.data(), kTmFloat16, 2, 0x1000, dims, &stride, box, es, 0, 0, 0, 0).find("multiple of 16") !=
        std::string::npos);
  const uint64_t good = 208;
  const uint32_t wide[2] = {128, 8};
  CHECK(encode_tensor_map_tiled(map.data(), kTmFloat16, 2, 0x1000, dims, &good, wide, es, 0, kTmSwizzle128B, 0, 0)
            .find("swizzle span") != std::string::npos);
  const uint32_t big[2] = {64, 300};
  CHECK(encode_tensor_map_tiled(map.data(), kTmFloat16, 2, 0x1000, dims, &good, big, es, 0, 0, 0, 0).find("1 to 256") !=
        std::string::npos);
  CHECK(encode_tensor_map_tiled(map.data(), kTmFloat16, 2, 0x1008, dims, &good, box, es, 0, 0, 0, 0).find("16-byte") !=
        std::string::npos);
  REQUIRE(encode_tensor_map_tiled(map.data(), kTmFloat16, 2, 0x1000, dims, &good, box, es, 0, kTmSwizzle128B, 0, 0) == "");
  TensorMap m;
  REQUIRE(decode_tensor_map(map.data(), m));
  CHECK(m.rank == 2);
  CHECK(m.elem_bytes == 2);
  CHECK(m.swizzle_bytes == 128);
  CHECK(m.strides[1] == 208);
  CHECK(m.box_bytes() == 64 * 8 * 2);
  std::array<uint8_t, 128> zero{};
  CHECK_FALSE(decode_tensor_map(zero.data(), m));

  // A kernel handed zeros for its map: the fault says how to build one.
  Program p = Program::from_cuda(kTma, "tma", "compute_90a");
  REQUIRE(p.kernel);
  uint64_t dout = p.buffer(std::vector<uint16_t>(4096, 0), "out");
  p.arg(dout);
  p.arg(int32_t(0));
  p.arg(int32_t(0));
  p.arg(int32_t(256));
  p.arg(zero);
  auto r = p.run(Dim3{1}, Dim3{64});
  CHECK_FALSE(r.ok);
  REQUIRE_FALSE(r.errors.empty());
  CHECK(r.errors[0].message.find("cuTensorMapEncodeTiled") != std::string::npos);
}

TEST_CASE("setmaxnreg decodes (a hint the lab's register file does not need) and checks its count") {
  auto module = [](const char* n) {
    return std::string(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n  setmaxnreg.inc.sync.aligned.u32 ") +
           n + ";\n  ret;\n}\n";
  };
  Program ok = Program::from_ptx(module("240"), "k");
  REQUIRE(ok.kernel);
  auto r = ok.run(Dim3{1}, Dim3{128});
  CHECK(r.ok);
  CHECK_THROWS_WITH_AS(Program::from_ptx(module("20"), "k"), doctest::Contains("24 .. 256"), std::exception);
  CHECK_THROWS_WITH_AS(Program::from_ptx(module("100"), "k"), doctest::Contains("multiple of 8"), std::exception);
}

// ---- the cycle model's time for the asynchronous path ---------------------

namespace {

lab::sim::SimOptions full_timing() {
  lab::sim::SimOptions o;
  o.gpu = &lab::sim::gpu_model("H100");
  o.timing.mode = lab::sim::TimingMode::Full;
  o.threads = 1;
  return o;
}

// Warp 1 runs `producer` dependent FMAs and then arrives on an mbarrier;
// warp 0 waits for that phase and then runs `consumer` dependent FMAs.
std::string handoff_ptx(int producer, int consumer) {
  std::string chain_p, chain_c;
  for (int i = 0; i < producer; ++i) chain_p += "  fma.rn.f32 %f1, %f1, %f2, %f2;\n";
  for (int i = 0; i < consumer; ++i) chain_c += "  fma.rn.f32 %f1, %f1, %f2, %f2;\n";
  return std::string(R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry handoff(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f3F000000;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [bar], 1;
  bar.sync 0;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra CONSUMER;
)") + chain_p + R"(
  setp.eq.u32 %p3, %r1, 32;
  @%p3 mbarrier.arrive.shared.b64 %rd1, [bar];
  bra DONE;
CONSUMER:
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p3, [bar], 0;
  @!%p3 bra WAIT;
)" + chain_c + R"(
DONE:
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.f32 [%rd2], %f1;
  ret;
}
)";
}

uint64_t handoff_cycles(int producer, int consumer) {
  Program p = Program::from_ptx(handoff_ptx(producer, consumer), "handoff");
  REQUIRE(p.kernel);
  p.arg(p.buffer(std::vector<float>(64, 0.f), "out"));
  auto r = p.run(Dim3{1}, Dim3{64}, 0, full_timing());
  for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
  REQUIRE(r.ok);
  REQUIRE(r.metrics.cycle);
  return r.metrics.cycle->cycles;
}

}  // namespace

TEST_CASE("cycle model: a warp waiting on an mbarrier phase goes on when the arrival is done, in the model's time") {
  // 200 dependent FMAs (4 cycles each) on each side: the consumer's chain
  // starts after the producer's, so the launch takes both, not the longer.
  const uint64_t both = handoff_cycles(200, 200), producer_only = handoff_cycles(200, 0),
                 consumer_only = handoff_cycles(0, 200);
  CHECK(producer_only > 700);
  CHECK(consumer_only > 700);
  CHECK(both > producer_only + 700);
  CHECK(both > consumer_only + 700);
}

TEST_CASE("cycle model: wgmma holds the tensor pipe at the wgmma rate and wait_group waits for it") {
  // The mechanism kernel: one warpgroup chains `reps` m64n256k16 wgmmas on one
  // accumulator, then waits for them. Twice the reps: twice the tensor time.
  auto cycles = [](int reps) {
    lab::sim::RunRequest req;
    req.file = std::string(GPULAB_SOURCE_DIR) + "/kernels/mechanisms/wgmma_peak.cu";
    req.kernel = "wgmma_peak";
    req.launch.grid = Dim3{1};
    req.launch.block = Dim3{128};
    req.args = {"f32[128]", "i32=" + std::to_string(reps)};
    req.gpu = &lab::sim::gpu_model("H100");
    req.options = full_timing();
    lab::sim::RunOutcome out = lab::sim::run_kernel(req);
    REQUIRE(out.result.ok);
    REQUIRE(out.result.metrics.cycle);
    return double(out.result.metrics.cycle->cycles);
  };
  const double c16 = cycles(16), c32 = cycles(32);
  // One warp's m64n256k16 share: 2 x 16 x 256 x 16 flops at the sub-partition's
  // wgmma rate (the peak / (SMs x clock x 4) x Luo et al.'s 88.0%).
  const lab::sim::GpuModel& g = lab::sim::gpu_model("H100");
  const double per_cycle = g.fp16_tensor_flops / (g.sm_count * g.boost_clock_hz * 4) * 665.4 / 756.5;
  const double per_wgmma = 2.0 * 16 * 256 * 16 / per_cycle;
  CHECK(c32 - c16 == doctest::Approx(16 * per_wgmma).epsilon(0.05));
}
