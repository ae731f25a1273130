// Tests for lab/sim/occupancy. Two independent references: hand-computed
// answers, and the CUDA Occupancy Calculator's rules re-derived here (warp
// slots, registers per sub-partition in 256-register warp units, shared
// memory with the 1 KB reservation and allocation granularity, resident
// block cap), compared with the cuda_occupancy.h-based result over many
// configurations of every model.
#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <string>

#include "lab/sim/device.h"
#include "lab/sim/occupancy.h"

using namespace lab::sim;

namespace {

int round_up(int x, int y) { return (x + y - 1) / y * y; }

// Returns blocks per SM, or 0 when the configuration cannot launch.
int reference_blocks(const GpuModel& g, int threads, int regs, int static_smem, int dyn_smem) {
  int warps = (threads + 31) / 32;
  int by_warps = g.max_warps_per_sm / warps;
  int by_regs = INT_MAX;
  if (regs > 0) {
    int per_warp = round_up(regs * 32, 256);
    if (per_warp * round_up(warps, 4) > g.regs_per_block) return 0;
    int warps_per_subpartition = (g.regs_per_sm / 4) / per_warp;
    by_regs = warps_per_subpartition * 4 / warps;
  }
  int by_smem = INT_MAX;
  int alloc = round_up(static_smem + dyn_smem + g.reserved_shared_per_block, g.shared_alloc_granularity);
  if (alloc > g.shared_per_block_optin + g.reserved_shared_per_block) return 0;
  if (alloc > 0) by_smem = g.shared_per_sm / alloc;
  return std::min({by_warps, by_regs, by_smem, g.max_blocks_per_sm});
}

}  // namespace

TEST_CASE("hand-computed occupancy known answers") {
  SUBCASE("H100, 256 threads, 32 registers: 8 blocks, 100%, limited by warps") {
    auto o = compute_occupancy(gpu_model("h100"), {256, 32, 0, 0});
    CHECK(o.blocks_per_sm == 8);
    CHECK(o.warps_per_sm == 64);
    CHECK(o.occupancy == doctest::Approx(1.0));
    CHECK(o.limiter == OccupancyLimiter::Warps);
    CHECK(o.advice.empty());
  }
  SUBCASE("H100, 256 threads, 128 registers: 4096 per warp, 4 warps per sub-partition, 2 blocks") {
    auto o = compute_occupancy(gpu_model("h100"), {256, 128, 0, 0});
    CHECK(o.blocks_per_sm == 2);
    CHECK(o.occupancy == doctest::Approx(0.25));
    CHECK(o.limiter == OccupancyLimiter::Registers);
    REQUIRE(!o.advice.empty());
    // 3 blocks need 24 warps = 6 per sub-partition: 16384/6 = 2730 -> 2560 per warp = 80 registers.
    CHECK(o.advice[0].find("at most 80 registers") != std::string::npos);
  }
  SUBCASE("A100, 256 threads, 48 KB dynamic: (49152 + 1024) per block, 167936 per SM: 3 blocks") {
    auto o = compute_occupancy(gpu_model("a100"), {256, 32, 0, 48 * 1024});
    CHECK(o.blocks_per_sm == 3);
    CHECK(o.allocated_shared_per_block == 50176);
    CHECK(o.occupancy == doctest::Approx(24.0 / 64));
    CHECK(o.limiter == OccupancyLimiter::SharedMemory);
  }
  SUBCASE("RTX 4090, 1024 threads: one block of 32 warps in 48 slots, limited by warps") {
    auto o = compute_occupancy(gpu_model("4090"), {1024, 32, 0, 0});
    CHECK(o.blocks_per_sm == 1);
    CHECK(o.occupancy == doctest::Approx(32.0 / 48));
    CHECK(o.limiter == OccupancyLimiter::Warps);
  }
  SUBCASE("T4, 32 threads: 16 resident blocks cap at 16 of 32 warps, limited by blocks") {
    auto o = compute_occupancy(gpu_model("t4"), {32, 16, 0, 0});
    CHECK(o.blocks_per_sm == 16);
    CHECK(o.occupancy == doctest::Approx(0.5));
    CHECK(o.limiter == OccupancyLimiter::Blocks);
    REQUIRE(!o.advice.empty());
    CHECK(o.advice[0].find("at least 64 threads") != std::string::npos);
  }
  SUBCASE("H100, 100 KB dynamic opts in above 48 KB: 2 blocks") {
    auto o = compute_occupancy(gpu_model("h100"), {128, 32, 0, 100 * 1024});
    CHECK(o.shared_opt_in);
    CHECK(o.blocks_per_sm == 2);  // 233472 / (102400 + 1024) = 2.26
  }
}

TEST_CASE("impossible configurations are errors") {
  const auto& h = gpu_model("h100");
  CHECK_THROWS_AS(compute_occupancy(h, {1025, 32, 0, 0}), OccupancyError);
  CHECK_THROWS_AS(compute_occupancy(h, {0, 32, 0, 0}), OccupancyError);
  CHECK_THROWS_AS(compute_occupancy(h, {256, 256, 0, 0}), OccupancyError);
  CHECK_THROWS_AS(compute_occupancy(h, {256, 32, 0, 228 * 1024}), OccupancyError);
  CHECK_NOTHROW(compute_occupancy(h, {256, 32, 0, 227 * 1024}));
  CHECK_THROWS_AS(compute_occupancy(gpu_model("t4"), {256, 32, 0, 65 * 1024}), OccupancyError);
  // 1024 threads x 72 registers: 2304 x 32 warps = 73728 > 65536 registers per block.
  CHECK_THROWS_AS(compute_occupancy(h, {1024, 72, 0, 0}), OccupancyError);
  CHECK_NOTHROW(compute_occupancy(h, {1024, 64, 0, 0}));
}

TEST_CASE("cuda_occupancy.h agrees with the calculator's rules over many configurations of every model") {
  int compared = 0;
  for (const auto& g : all_gpu_models()) {
    for (int threads : {32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024}) {
      for (int regs : {0, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128, 168, 200, 255}) {
        for (int dyn : {0, 1, 1000, 4096, 12288, 16384, 32768, 40000, 49152, 65536, 98304, 163840}) {
          for (int stat : {0, 2048}) {
            if (stat + dyn > g.shared_per_block_optin) continue;
            int want = reference_blocks(g, threads, regs, stat, dyn);
            CAPTURE(std::string(g.name));
            CAPTURE(threads);
            CAPTURE(regs);
            CAPTURE(dyn);
            CAPTURE(stat);
            if (want == 0) {
              CHECK_THROWS_AS(compute_occupancy(g, {threads, regs, stat, dyn}), OccupancyError);
            } else {
              auto o = compute_occupancy(g, {threads, regs, stat, dyn});
              CHECK(o.blocks_per_sm == want);
              CHECK(o.warps_per_sm == want * ((threads + 31) / 32));
              CHECK(o.occupancy <= 1.0);
              // The reported limiter allows exactly blocks_per_sm.
              int lim = o.limiter == OccupancyLimiter::Warps       ? o.limit_warps
                        : o.limiter == OccupancyLimiter::Registers ? o.limit_registers
                        : o.limiter == OccupancyLimiter::Blocks    ? o.limit_blocks
                                                                   : o.limit_shared;
              CHECK(lim == o.blocks_per_sm);
            }
            ++compared;
          }
        }
      }
    }
  }
  CHECK(compared > 3000);
}

TEST_CASE("advice, when followed, raises occupancy") {
  const auto& h = gpu_model("h100");
  auto o = compute_occupancy(h, {256, 96, 0, 0});
  REQUIRE(o.limiter == OccupancyLimiter::Registers);
  // Parse "use at most N registers".
  auto pos = o.advice[0].find("at most ");
  REQUIRE(pos != std::string::npos);
  int regs = std::stoi(o.advice[0].substr(pos + 8));
  CHECK(compute_occupancy(h, {256, regs, 0, 0}).blocks_per_sm > o.blocks_per_sm);
  CHECK(compute_occupancy(h, {256, regs + 1, 0, 0}).blocks_per_sm == o.blocks_per_sm);

  auto s = compute_occupancy(h, {256, 32, 0, 60000});
  REQUIRE(s.limiter == OccupancyLimiter::SharedMemory);
  pos = s.advice[0].find("at most ");
  int bytes = std::stoi(s.advice[0].substr(pos + 8));
  CHECK(compute_occupancy(h, {256, 32, 0, bytes}).blocks_per_sm > s.blocks_per_sm);
  CHECK(compute_occupancy(h, {256, 32, 0, bytes + 129}).blocks_per_sm == s.blocks_per_sm);
}

TEST_CASE("occupancy curves: the calculator's three series") {
  const auto& h = gpu_model("h100");
  auto c = occupancy_curves(h, {256, 64, 0, 0});
  CHECK(c.vs_block_size.size() == 32);
  CHECK(c.vs_registers.size() == 255);
  CHECK(c.vs_shared_memory.front().x == 0);
  // Fewer registers never lowers occupancy; more shared memory never raises it.
  for (size_t i = 1; i < c.vs_registers.size(); ++i)
    CHECK(c.vs_registers[i].warps_per_sm <= c.vs_registers[i - 1].warps_per_sm);
  for (size_t i = 1; i < c.vs_shared_memory.size(); ++i)
    CHECK(c.vs_shared_memory[i].warps_per_sm <= c.vs_shared_memory[i - 1].warps_per_sm);
  CHECK(c.vs_registers[31].occupancy == doctest::Approx(1.0));   // 32 registers
  CHECK(c.vs_registers[127].occupancy == doctest::Approx(0.25)); // 128 registers
}
