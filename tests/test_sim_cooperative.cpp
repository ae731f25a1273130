// tests/test_sim_cooperative.cpp: cooperative launches (LaunchConfig::
// cooperative). grid.sync() from cooperative groups, compiled by NVRTC
// (atom.add.release + an ld.acquire poll), orders every block's phase before the next; the cycle model times
// the grid; a grid.sync() only some blocks reach is reported as a hang; an
// ordinary launch aborts in grid.sync() (trap); a grid larger than can be
// resident is refused; %envreg1/2 carry the workspace address only in a
// cooperative launch.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lab/sim/cycle/result.h"
#include "lab/sim/limits.h"
#include "sim_harness.h"

using simtest::Program;
using lab::sim::Dim3;

namespace {

// Phase 1 writes each block's id into slot[block]; after grid.sync() every
// block sums all the slots (which only the other blocks wrote); after a
// second sync, block 0 overwrites the slots, which no block may see before.
const char* kPhases = R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void phases(int* slot, int* out, int rounds) {
  cg::grid_group grid = cg::this_grid();
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0) slot[blockIdx.x] = int(blockIdx.x) + 1 + r;
    grid.sync();
    int sum = 0;
    for (int b = 0; b < int(gridDim.x); ++b) sum += slot[b];
    grid.sync();
    if (threadIdx.x == 0) out[r * gridDim.x + blockIdx.x] = sum;
  }
}
extern "C" __global__ void odd_blocks_skip(int* out) {
  if (blockIdx.x % 2 == 0) cg::this_grid().sync();
  if (threadIdx.x == 0) out[blockIdx.x] = 1;
}
)";

}  // namespace

TEST_CASE("cooperative launch: grid.sync() orders every block's phase before the next, on sm_75, sm_80 and sm_90") {
  for (const char* arch : {"compute_75", "compute_80", "compute_90"}) {
    CAPTURE(arch);
    Program p = Program::from_cuda(kPhases, "phases", arch);
    REQUIRE(p.kernel);
    p.cooperative = true;
    const int blocks = 24, rounds = 3;
    uint64_t slot = p.buffer(std::vector<int>(blocks, 0), "slot");
    uint64_t out = p.buffer(std::vector<int>(blocks * rounds, -1), "out");
    p.arg(slot);
    p.arg(out);
    p.arg(rounds);
    lab::sim::SimOptions opt;
    opt.check = true;  // its own blocks' shared-memory state and no false cross-block race
    auto r = p.run(Dim3{uint32_t(blocks)}, Dim3{64}, 0, opt);
    for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
    REQUIRE(r.ok);
    auto got = p.read<int>(out, blocks * rounds);
    for (int k = 0; k < rounds; ++k) {
      const int want = blocks * (blocks + 1) / 2 + blocks * k;  // sum of (b + 1 + k)
      for (int b = 0; b < blocks; ++b) {
        CAPTURE(k);
        CAPTURE(b);
        CHECK(got[k * blocks + b] == want);
      }
    }
  }
}

TEST_CASE("cooperative launch: timed by the cycle model like any grid") {
  Program p = Program::from_cuda(kPhases, "phases", "compute_90");
  REQUIRE(p.kernel);
  p.cooperative = true;
  const int blocks = 16;
  uint64_t slot = p.buffer(std::vector<int>(blocks, 0), "slot");
  uint64_t out = p.buffer(std::vector<int>(blocks, -1), "out");
  p.arg(slot);
  p.arg(out);
  p.arg(1);
  lab::sim::SimOptions opt;
  opt.timing.mode = lab::sim::TimingMode::Full;
  auto r = p.run(Dim3{uint32_t(blocks)}, Dim3{64}, 0, opt);
  REQUIRE(r.ok);
  REQUIRE(r.metrics.cycle);
  CHECK(r.metrics.cycle->cycles > 0);
  CHECK(r.metrics.cycle->blocks_timed == uint64_t(blocks));
  CHECK(p.read<int>(out, 1)[0] == blocks * (blocks + 1) / 2);
}

TEST_CASE("cooperative launch: a grid.sync() that some blocks skip is a hang named at the poll, not a spin") {
  Program p = Program::from_cuda(kPhases, "odd_blocks_skip", "compute_80");
  REQUIRE(p.kernel);
  p.cooperative = true;
  uint64_t out = p.buffer(std::vector<int>(4, 0), "out");
  p.arg(out);
  auto r = p.run(Dim3{4}, Dim3{32});
  REQUIRE_FALSE(r.ok);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].kind == "hang");
  CHECK(r.errors[0].message.find("2 of its 4 blocks wait") != std::string::npos);
  CHECK(r.errors[0].message.find("grid.sync()") != std::string::npos);
  CHECK(r.errors[0].line == 16);  // the kernel's line with the sync (kPhases, counted from its first line)
}

TEST_CASE("grid.sync() in an ordinary launch aborts with trap, as on a GPU") {
  Program p = Program::from_cuda(kPhases, "phases", "compute_80");
  REQUIRE(p.kernel);
  uint64_t slot = p.buffer(std::vector<int>(2, 0), "slot");
  uint64_t out = p.buffer(std::vector<int>(2, 0), "out");
  p.arg(slot);
  p.arg(out);
  p.arg(1);
  auto r = p.run(Dim3{2}, Dim3{32});
  REQUIRE_FALSE(r.ok);
  CHECK(r.errors[0].kind == "trap");
  CHECK(r.errors[0].message.find("cudaLaunchCooperativeKernel") != std::string::npos);
}

TEST_CASE("cooperative launch: more blocks than can be resident at once are refused") {
  Program p = Program::from_cuda(kPhases, "phases", "compute_80");
  REQUIRE(p.kernel);
  p.cooperative = true;
  uint64_t buf = p.buffer(std::vector<int>(100000, 0), "buf");
  p.arg(buf);
  p.arg(buf);
  p.arg(1);
  // 1024-thread blocks: 2 per SM (2048 threads per SM) on every SM of the default GPU.
  const uint32_t resident = 2 * uint32_t(lab::sim::default_gpu().sm_count);
  CHECK_THROWS_WITH_AS(p.run(Dim3{resident + 1}, Dim3{1024}), doctest::Contains("cannot be resident at once"),
                       lab::sim::LaunchError);
  auto r = p.run(Dim3{resident}, Dim3{1024});
  CHECK(r.ok);
}

TEST_CASE("trap faults the launch; %envreg1/2 read 0 outside a cooperative launch") {
  const char* ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %envreg1;
  mov.u32 %r2, %envreg2;
  or.b32 %r3, %r1, %r2;
  st.global.u32 [%rd1], %r3;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 5;
  @%p1 trap;
  ret;
}
)";
  Program p = Program::from_ptx(ptx, "k");
  REQUIRE(p.kernel);
  uint64_t out = p.buffer(std::vector<uint32_t>(1, 7), "out");
  p.arg(out);
  auto r = p.run(Dim3{1}, Dim3{32});
  REQUIRE_FALSE(r.ok);
  CHECK(r.errors[0].kind == "trap");
  CHECK(p.read<uint32_t>(out, 1)[0] == 0);
  p.cooperative = true;
  r = p.run(Dim3{1}, Dim3{32});
  CHECK(r.errors[0].kind == "trap");
  CHECK(p.read<uint32_t>(out, 1)[0] != 0);  // the workspace's address
}
