// tests/test_exec_mbarrier.cpp: mbarrier.* and cp.async.mbarrier.arrive
// against the PTX ISA's definitions (9.7.13.15): phases, expected and
// pending arrival counts, tx-count, state tokens and parities; waiting warps
// that let the others run; and a cuda::barrier / cuda::pipeline kernel
// compiled by NVRTC.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim_harness.h"

using simtest::Program;
using lab::sim::Dim3;

namespace {

std::string module(const std::string& target, const std::string& body) {
  return ".version 8.0\n.target " + target + "\n.address_size 64\n" + body;
}

// Step k of one warp writes out[k * 32 + lane] (u64). 0xdead marks lanes
// that did not write.
const char* kSteps = R"(
.visible .entry steps(.param .u64 out, .param .u64 src)
{
  .reg .pred %p<12>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<40>;
  .shared .align 8 .b64 bar;
  .shared .align 8 .b32 landing[32];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd30, [src];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;              // &out[lane]; step k at + k * 256
  setp.eq.u32 %p1, %r1, 0;               // lane 0
  setp.eq.u32 %p2, %r1, 1;               // lane 1
  setp.lt.u32 %p3, %r1, 2;               // lanes 0, 1
  setp.eq.u32 %p4, %r1, 2;               // lane 2
  // Phase 0 (parity 0): expected 3.
  @%p1 mbarrier.init.shared.b64 [bar], 3;
  bar.sync 0;
  @%p3 mbarrier.arrive.shared.b64 %rd10, [bar];           // lane 0: pending 2, lane 1: pending 1
  @%p3 mbarrier.pending_count.b64 %r2, %rd10;
  @%p3 cvt.u64.u32 %rd11, %r2;
  @%p3 st.global.u64 [%rd3], %rd11;                        // step 0: 2, 1
  @%p3 mbarrier.test_wait.shared.b64 %p5, [bar], %rd10;
  @%p3 selp.u64 %rd11, 1, 0, %p5;
  @%p3 st.global.u64 [%rd3+256], %rd11;                    // step 1: 0 (phase 0 still open)
  @%p4 mbarrier.arrive.shared.b64 %rd12, [bar];            // lane 2 completes phase 0
  @%p4 mbarrier.pending_count.b64 %r2, %rd12;
  @%p4 cvt.u64.u32 %rd11, %r2;
  @%p4 st.global.u64 [%rd3], %rd11;                        // step 0, lane 2: 0
  @%p3 mbarrier.test_wait.shared.b64 %p5, [bar], %rd10;    // the phase-0 token now: complete
  @%p3 selp.u64 %rd11, 1, 0, %p5;
  @%p3 st.global.u64 [%rd3+512], %rd11;                    // step 2: 1
  mbarrier.test_wait.parity.shared.b64 %p5, [bar], 0;      // phase parity 0 completed
  mbarrier.test_wait.parity.shared.b64 %p6, [bar], 1;      // phase 1 is current
  selp.u64 %rd11, 1, 0, %p5;
  selp.u64 %rd13, 2, 0, %p6;
  or.b64 %rd11, %rd11, %rd13;
  st.global.u64 [%rd3+768], %rd11;                         // step 3: 1 for every lane
  // Phase 1 (parity 1): lane 0 arrives for 2 without completing, lane 1 drops.
  @%p1 mbarrier.arrive.noComplete.shared.b64 %rd14, [bar], 2;
  @%p1 mbarrier.pending_count.b64 %r2, %rd14;
  @%p1 cvt.u64.u32 %rd11, %r2;
  @%p1 st.global.u64 [%rd3+1024], %rd11;                   // step 4, lane 0: 1
  @%p2 mbarrier.arrive_drop.shared.b64 %rd15, [bar];       // expected 3 -> 2; completes phase 1
  mbarrier.test_wait.parity.shared.b64 %p5, [bar], 1;
  selp.u64 %rd11, 1, 0, %p5;
  st.global.u64 [%rd3+1280], %rd11;                        // step 5: 1
  // Phase 2 (parity 0): now 2 arrivals complete it.
  @%p1 mbarrier.arrive.shared.b64 %rd16, [bar];
  @%p1 mbarrier.pending_count.b64 %r2, %rd16;
  mbarrier.test_wait.parity.shared.b64 %p5, [bar], 0;
  @%p2 mbarrier.arrive.shared.b64 %rd17, [bar];
  mbarrier.test_wait.parity.shared.b64 %p6, [bar], 0;
  selp.u64 %rd11, 1, 0, %p5;
  selp.u64 %rd13, 2, 0, %p6;
  or.b64 %rd11, %rd11, %rd13;
  @%p1 cvt.u64.u32 %rd18, %r2;
  @%p1 shl.b64 %rd18, %rd18, 4;
  @%p1 or.b64 %rd11, %rd11, %rd18;
  st.global.u64 [%rd3+1536], %rd11;                        // step 6: 2 (lane 0: 0x12)
  // Phase 3 (parity 1): arrivals and a transaction count.
  @%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 64;
  @%p3 mbarrier.arrive.release.cta.shared::cta.b64 %rd19, [bar];
  mbarrier.test_wait.parity.shared.b64 %p5, [bar], 1;      // 64 bytes outstanding
  @%p1 mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 32;
  mbarrier.test_wait.parity.shared.b64 %p6, [bar], 1;      // 32 outstanding
  @%p1 mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 32;
  mbarrier.test_wait.parity.shared.b64 %p7, [bar], 1;      // done
  selp.u64 %rd11, 1, 0, %p5;
  selp.u64 %rd13, 2, 0, %p6;
  or.b64 %rd11, %rd11, %rd13;
  selp.u64 %rd13, 4, 0, %p7;
  or.b64 %rd11, %rd11, %rd13;
  st.global.u64 [%rd3+1792], %rd11;                        // step 7: 4
  // Phase 4 (parity 0): arrive.expect_tx, then complete_tx from another lane.
  @%p1 mbarrier.arrive.expect_tx.shared.b64 %rd20, [bar], 16;
  @%p2 mbarrier.arrive.shared.b64 %rd21, [bar];
  mbarrier.try_wait.parity.shared.b64 %p5, [bar], 1;       // parity 1 (phase 3) is complete: no wait
  mbarrier.test_wait.parity.shared.b64 %p6, [bar], 0;      // phase 4: 16 bytes outstanding
  @%p2 mbarrier.complete_tx.shared::cta.b64 [bar], 16;
  mbarrier.test_wait.shared.b64 %p7, [bar], %rd20;         // lane 0's phase-4 token: complete
  selp.u64 %rd11, 1, 0, %p5;
  selp.u64 %rd13, 2, 0, %p6;
  or.b64 %rd11, %rd11, %rd13;
  selp.u64 %rd13, 4, 0, %p7;
  or.b64 %rd11, %rd11, %rd13;
  @%p1 st.global.u64 [%rd3+2048], %rd11;                   // step 8, lane 0: 5
  // Phase 5 (parity 1): cp.async then cp.async.mbarrier.arrive.noinc from
  // lanes 0 and 1 are the phase's two arrivals.
  mov.u32 %r3, landing;
  mul.wide.u32 %rd22, %r1, 4;
  cvt.u32.u64 %r4, %rd22;
  add.u32 %r3, %r3, %r4;
  add.s64 %rd23, %rd30, %rd22;
  @%p3 cp.async.ca.shared.global [%r3], [%rd23], 4;
  @%p3 cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
  mbarrier.test_wait.parity.shared.b64 %p5, [bar], 1;
  @%p3 ld.shared.u32 %r5, [%r3];
  selp.u64 %rd11, 1, 0, %p5;
  @%p3 cvt.u64.u32 %rd24, %r5;
  @%p3 shl.b64 %rd24, %rd24, 8;
  @%p3 or.b64 %rd11, %rd11, %rd24;
  st.global.u64 [%rd3+2304], %rd11;                        // step 9: 1 | src[lane] << 8
  // Phase 6 (parity 0): cp.async.mbarrier.arrive without .noinc changes
  // nothing; lane 0's arrive afterwards leaves 1 pending.
  @%p3 cp.async.ca.shared.global [%r3], [%rd23], 4;
  @%p3 cp.async.mbarrier.arrive.shared.b64 [bar];
  @%p1 mbarrier.arrive.shared.b64 %rd25, [bar];
  @%p1 mbarrier.pending_count.b64 %r2, %rd25;
  @%p1 cvt.u64.u32 %rd11, %r2;
  @%p1 st.global.u64 [%rd3+2560], %rd11;                   // step 10, lane 0: 1
  @%p1 mbarrier.inval.shared.b64 [bar];
  ret;
}
)";

Program run_steps(std::vector<uint64_t>& out, lab::sim::LaunchResult& r) {
  Program p = Program::from_ptx(module("sm_90", kSteps), "steps");
  REQUIRE(p.kernel);
  uint64_t dout = p.buffer(std::vector<uint64_t>(11 * 32, 0xdead), "out");
  std::vector<uint32_t> src(32);
  for (uint32_t i = 0; i < 32; ++i) src[i] = 0x100 + i * 3;
  uint64_t dsrc = p.buffer(src, "src");
  p.arg(dout);
  p.arg(dsrc);
  r = p.run(Dim3{1}, Dim3{32});
  out = p.read<uint64_t>(dout, 11 * 32);
  return p;
}

}  // namespace

TEST_CASE("mbarrier: init/arrive/arrive_drop/noComplete/expect_tx/complete_tx/test_wait/try_wait/pending_count") {
  std::vector<uint64_t> out;
  lab::sim::LaunchResult r;
  run_steps(out, r);
  for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
  REQUIRE(r.ok);
  auto at = [&](int step, int lane) { return out[size_t(step) * 32 + lane]; };
  // Phase 0: each arrive's token records the pending count it left.
  CHECK(at(0, 0) == 2);
  CHECK(at(0, 1) == 1);
  CHECK(at(0, 2) == 0);            // lane 2's arrive completed the phase
  CHECK(at(0, 3) == 0xdead);
  CHECK(at(1, 0) == 0);            // test_wait with a token of the open phase
  CHECK(at(1, 1) == 0);
  CHECK(at(2, 0) == 1);            // the same tokens once the phase completed
  CHECK(at(2, 1) == 1);
  for (int l = 0; l < 32; ++l) {
    CAPTURE(l);
    CHECK(at(3, l) == 1);          // parity 0 complete, parity 1 (current) not
    CHECK(at(5, l) == 1);          // arrive_drop completed phase 1
    if (l > 0) CHECK(at(6, l) == 2);  // phase 2 needs 2 arrivals after the drop
    CHECK(at(7, l) == 4);          // tx-count holds the phase open until it reaches 0
  }
  CHECK(at(4, 0) == 1);            // .noComplete arrive of count 2: 3 -> 1
  CHECK(at(6, 0) == (2 | (1 << 4)));  // lane 0's phase-2 token: 1 pending
  CHECK(at(8, 0) == 5);            // try_wait on a completed parity; phase 4 open until complete_tx
  for (int l = 0; l < 2; ++l) CHECK(at(9, l) == (1 | uint64_t(0x100 + l * 3) << 8));
  CHECK(at(9, 2) == 1);
  CHECK(at(10, 0) == 1);           // cp.async.mbarrier.arrive without .noinc: no net arrival
}

TEST_CASE("mbarrier: misuse is reported with the instruction and what to do") {
  auto fails = [](const std::string& body, const std::string& target = "sm_90") {
    std::string ptx = module(target, R"(
.visible .entry bad(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
)" + body + "\n  ret;\n}\n");
    Program p = Program::from_ptx(ptx, "bad");
    p.arg(uint64_t(0));
    auto r = p.run(Dim3{1}, Dim3{32});
    REQUIRE(!r.ok);
    return r.errors.at(0).kind + ": " + r.errors.at(0).message;
  };
  std::string e = fails("mbarrier.arrive.shared.b64 %rd1, [bar];");
  CHECK(e.find("mbarrier.arrive") != std::string::npos);
  CHECK(e.find("never initialised") != std::string::npos);
  // An arrive of 8 on a phase with 4 pending would take the count below zero.
  e = fails("mov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 0;\n@%p1 mbarrier.init.shared.b64 [bar], 4;\n"
            "bar.sync 0;\n@%p1 mbarrier.arrive.shared.b64 %rd1, [bar], 8;");
  CHECK(e.find("only 4 pending") != std::string::npos);
  // A .noComplete arrive that completes the phase is undefined.
  e = fails("mov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 0;\n@%p1 mbarrier.init.shared.b64 [bar], 2;\n"
            "@%p1 mbarrier.arrive.noComplete.shared.b64 %rd1, [bar], 2;");
  CHECK(e.find(".noComplete") != std::string::npos);
  // Misaligned object.
  e = fails("mbarrier.init.shared.b64 [bar+4], 1;");
  CHECK(e.find("misaligned") != std::string::npos);
  // sm_90 forms need an sm_90 target (ptxas refuses them for sm_80).
  CHECK_THROWS_WITH_AS(Program::from_ptx(module("sm_80", R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .shared .align 8 .b64 bar;
  mbarrier.try_wait.parity.shared.b64 %p1, [bar], 0;
  ret;
}
)"), "k"), doctest::Contains("sm_90"), std::exception);
  // Forms the lab does not model name themselves.
  CHECK_THROWS_WITH_AS(Program::from_ptx(module("sm_90", R"(
.visible .entry k()
{
  .reg .b32 %r<2>;
  .shared .align 8 .b64 bar;
  mbarrier.arrive.shared.b32 %r1, [bar];
  ret;
}
)"), "k"), doctest::Contains(".b64"), std::exception);
}

namespace {
// Warp 0 waits for warp 1, which works for a long time before it arrives.
// `wait` is the waiting instruction and its loop.
std::string producer_consumer(const std::string& target, const std::string& wait, uint32_t expected) {
  return module(target, R"(
.visible .entry pc(.param .u64 out, .param .u32 iters)
{
  .reg .pred %p<6>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 value;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r9, [iters];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;                 // warp
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [bar], )" + std::to_string(expected) + R"(;
  bar.sync 0;
  setp.eq.u32 %p2, %r2, 1;
  @%p2 bra PRODUCER;
  // warp 0: wait for phase 0 (parity 0), then read what warp 1 wrote
)" + wait + R"(
  ld.shared.u32 %r3, [value];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  bra.uni DONE;
PRODUCER:
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
LOOP:
  add.u32 %r5, %r5, %r4;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p3, %r4, %r9;
  @%p3 bra LOOP;
  setp.eq.u32 %p4, %r1, 32;
  @%p4 st.shared.u32 [value], %r5;
  mbarrier.arrive.shared.b64 %rd4, [bar];
DONE:
  ret;
}
)");
}

lab::sim::LaunchResult run_pc(const std::string& text, uint32_t iters, std::vector<uint32_t>& out,
                              bool check = false) {
  Program p = Program::from_ptx(text, "pc");
  REQUIRE(p.kernel);
  uint64_t dout = p.buffer(std::vector<uint32_t>(32, 0xdead), "out");
  p.arg(dout);
  p.arg(iters);
  lab::sim::SimOptions opt;
  opt.check = check;
  auto r = p.run(Dim3{1}, Dim3{64}, 0, opt);
  out = p.read<uint32_t>(dout, 32);
  return r;
}
}  // namespace

TEST_CASE("mbarrier waits: try_wait parks the warp, test_wait loops yield, and a phase that never completes is a hang") {
  const uint32_t iters = 20000;  // warp 1 issues ~60000 instructions before it arrives
  const uint32_t sum = uint32_t(uint64_t(iters) * (iters - 1) / 2);
  std::vector<uint32_t> out;
  SUBCASE("try_wait.parity loop (sm_90)") {
    const char* wait = "WAIT:\n  mbarrier.try_wait.parity.shared.b64 %p5, [bar], 0;\n  @!%p5 bra WAIT;";
    auto r = run_pc(producer_consumer("sm_90", wait, 32), iters, out);
    for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
    REQUIRE(r.ok);
    for (int l = 0; l < 32; ++l) CHECK(out[l] == sum);
    // Parked, not spinning: warp 0 issued its ~20 instructions and one
    // try_wait, while warp 1 issued ~60000.
    REQUIRE(r.metrics.warp_insts_by_warp.size() == 2);
    CHECK(r.metrics.warp_insts_by_warp[0] < 40);
    CHECK(r.metrics.warp_insts_by_warp[1] > 3 * iters);
  }
  SUBCASE("test_wait loop on an arrive token (sm_80, cuda::barrier's form)") {
    const char* wait = "  mbarrier.arrive.shared.b64 %rd5, [bar];\nWAIT:\n"
                       "  mbarrier.test_wait.shared.b64 %p5, [bar], %rd5;\n  @!%p5 bra WAIT;";
    auto r = run_pc(producer_consumer("sm_80", wait, 64), iters, out);
    for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
    REQUIRE(r.ok);
    for (int l = 0; l < 32; ++l) CHECK(out[l] == sum);
    // test_wait never blocks, but a "not yet" yields the warp's turn: warp 0
    // polls about once per quantum warp 1 runs, not once per instruction.
    REQUIRE(r.metrics.warp_insts_by_warp.size() == 2);
    CHECK(r.metrics.warp_insts_by_warp[0] < r.metrics.warp_insts_by_warp[1] / 10);
  }
  SUBCASE("--check: the wait orders warp 1's write before warp 0's read; without it, a race") {
    const char* wait = "WAIT:\n  mbarrier.try_wait.parity.shared.b64 %p5, [bar], 0;\n  @!%p5 bra WAIT;";
    auto r = run_pc(producer_consumer("sm_90", wait, 32), 100, out, true);
    for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
    CHECK(r.ok);
    CHECK(r.errors.empty());
    auto racy = run_pc(producer_consumer("sm_90", "", 32), 100, out, true);
    bool race = false;
    for (auto& e : racy.errors) race |= e.kind == "race";
    CHECK(race);
  }
  SUBCASE("a phase waiting for more arrivals than ever come is reported, not spun on") {
    const char* wait = "WAIT:\n  mbarrier.try_wait.parity.shared.b64 %p5, [bar], 0;\n  @!%p5 bra WAIT;";
    auto r = run_pc(producer_consumer("sm_90", wait, 64), 100, out);
    REQUIRE(!r.ok);
    REQUIRE(!r.errors.empty());
    CHECK(r.errors[0].kind == "hang");
    CHECK(r.errors[0].message.find("mbarrier.try_wait") != std::string::npos);
    CHECK(r.errors[0].message.find("32 of 64 arrivals still pending") != std::string::npos);
  }
}

namespace {
// libcu++'s own barrier and pipeline, as a CUDA program writes them: tiles
// of `in` staged through shared memory with cuda::memcpy_async completing on
// a cuda::barrier (cp.async + cp.async.mbarrier.arrive on sm_80), and the
// same sum through a two-stage cuda::pipeline.
const char* kLibcu = R"(
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void barrier_tiles(const int* in, int* out, int tiles) {
  __shared__ alignas(16) int tile[128];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  int acc = 0;
  for (int t = 0; t < tiles; ++t) {
    cuda::memcpy_async(block, tile, in + t * 128, cuda::aligned_size_t<16>(sizeof(int) * 128), bar);
    bar.arrive_and_wait();                       // the copy landed for everyone
    acc += tile[(threadIdx.x * 7 + t) % 128] * (t + 1);
    bar.arrive_and_wait();                       // everyone read before the next copy
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void pipeline_tiles(const int* in, int* out, int tiles) {
  __shared__ alignas(16) int stage[2][128];
  auto pipe = cuda::make_pipeline();             // thread scope: each thread its own copies
  int acc = 0;
  const int i = threadIdx.x;                     // blockDim.x == 128
  pipe.producer_acquire();
  cuda::memcpy_async(&stage[0][i], in + i, sizeof(int), pipe);
  pipe.producer_commit();
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles) {
      pipe.producer_acquire();
      cuda::memcpy_async(&stage[(t + 1) & 1][i], in + (t + 1) * 128 + i, sizeof(int), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    acc += stage[t & 1][i] * (t + 1);
    pipe.consumer_release();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
)";
}  // namespace

TEST_CASE("cuda::barrier with cuda::memcpy_async and cuda::pipeline (libcu++ through NVRTC) give the right sums") {
  const int tiles = 5, threads = 128, blocks = 2;
  std::vector<int> in(tiles * 128);
  for (size_t i = 0; i < in.size(); ++i) in[i] = int(i * 13 % 97) - 40;
  // sm_80: cp.async + cp.async.mbarrier.arrive + mbarrier.test_wait;
  // sm_90: cp.async.bulk completing tx bytes + expect_tx + mbarrier.try_wait.
  for (const char* arch : {"compute_80", "compute_90"})
  for (const char* name : {"barrier_tiles", "pipeline_tiles"}) {
    CAPTURE(arch);
    CAPTURE(name);
    Program p = Program::from_cuda(kLibcu, name, arch);
    REQUIRE(p.kernel);
    bool uses_mbarrier = false, uses_copy = false;
    for (const auto& ins : p.kernel->code) {
      uses_mbarrier |= ins.op == lab::ptx::Op::MbarrierArrive;
      uses_copy |= ins.op == (std::string(arch) == "compute_80" ? lab::ptx::Op::CpAsyncMbarrierArrive
                                                                 : lab::ptx::Op::CpAsyncBulk);
    }
    if (std::string(name) == "barrier_tiles") {
      CHECK(uses_mbarrier);
      CHECK(uses_copy);
    }
    uint64_t din = p.buffer(in, "in"), dout = p.buffer(std::vector<int>(threads * blocks, 0x7fff), "out");
    p.arg(din);
    p.arg(dout);
    p.arg(tiles);
    lab::sim::SimOptions opt;
    opt.check = true;  // the barrier orders the copies and the reads: no race, no uninitialised read
    auto r = p.run(Dim3{uint32_t(blocks)}, Dim3{uint32_t(threads)}, 0, opt);
    for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
    REQUIRE(r.ok);
    CHECK(r.errors.empty());
    auto out = p.read<int>(dout, threads * blocks);
    for (int b = 0; b < blocks; ++b)
      for (int x = 0; x < threads; ++x) {
        int want = 0;
        for (int t = 0; t < tiles; ++t) {
          const int idx = std::string(name) == "barrier_tiles" ? (x * 7 + t) % 128 : x;
          want += in[t * 128 + idx] * (t + 1);
        }
        CAPTURE(x);
        CHECK(out[b * threads + x] == want);
      }
  }
}

TEST_CASE("cp.async.bulk global -> shared completes tx bytes on the mbarrier (sm_90)") {
  // libcu++'s order: the bulk copy is issued before expect_tx, so the
  // complete-tx may come first; the phase completes only when the arrival
  // and the bytes are all in.
  const std::string ptx = module("sm_90", R"(
.visible .entry bulk(.param .u64 out, .param .u64 src)
{
  .reg .pred %p<6>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b32 landing[16];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [src];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [bar], 1;
  bar.sync 0;
  mov.u32 %r2, landing;
  mov.u32 %r3, bar;
  @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd2], 64, [%r3];
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;       // not yet: no arrival, -64 bytes
  @%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 64;
  mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;       // not yet: no arrival
  @%p1 mbarrier.arrive.shared::cta.b64 %rd3, [bar];
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p4, [bar], 0;
  @!%p4 bra WAIT;
  shl.b32 %r4, %r1, 2;
  and.b32 %r4, %r4, 63;
  add.u32 %r5, %r2, %r4;
  ld.shared.u32 %r6, [%r5];
  selp.u32 %r7, 1, 0, %p2;
  selp.u32 %r8, 2, 0, %p3;
  or.b32 %r7, %r7, %r8;
  shl.b32 %r7, %r7, 16;
  or.b32 %r6, %r6, %r7;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5], %r6;
  ret;
}
)");
  Program p = Program::from_ptx(ptx, "bulk");
  REQUIRE(p.kernel);
  std::vector<uint32_t> src(16);
  for (uint32_t i = 0; i < 16; ++i) src[i] = 0x40 + i * 5;
  uint64_t dout = p.buffer(std::vector<uint32_t>(32, 0xdead), "out"), dsrc = p.buffer(src, "src");
  p.arg(dout);
  p.arg(dsrc);
  auto r = p.run(Dim3{1}, Dim3{32});
  for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
  REQUIRE(r.ok);
  auto out = p.read<uint32_t>(dout, 32);
  for (uint32_t l = 0; l < 32; ++l) {
    CAPTURE(l);
    CHECK(out[l] == src[l & 15]);  // both waits said "not yet" (no flag bits), the data landed
  }
  // A size that is not a multiple of 16 is refused with the instruction named.
  std::string bad = ptx;
  bad.replace(bad.find("], 64, [%r3]"), 12, "], 60, [%r3]");
  Program q = Program::from_ptx(bad, "bulk");
  q.arg(q.buffer(std::vector<uint32_t>(32), "out"));
  q.arg(q.buffer(src, "src"));
  auto rq = q.run(Dim3{1}, Dim3{32});
  REQUIRE(!rq.ok);
  CHECK(rq.errors[0].message.find("cp.async.bulk") != std::string::npos);
  CHECK(rq.errors[0].message.find("multiple of 16") != std::string::npos);
}
