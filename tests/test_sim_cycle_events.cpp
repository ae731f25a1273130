// Tests for the cycle model's event stream as the timeline view reads it
// (lab/sim/cycle/result.h: IssueEvent, WarpSpan) and for the residency
// limit it times the "1 block per SM" side with (TimingOptions::max_blocks_per_sm):
//  - the waiting intervals and issues account for every warp-cycle the
//    model counts, reason by reason, and never overlap within a warp;
//  - a warp's scheduler is its slot modulo the schedulers per SM;
//  - max_blocks_per_sm = 1 keeps one block per SM and leaves more issue
//    slots idle than the occupancy limit does, on the same launch.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "lab/sim/cycle/result.h"
#include "lab/sim/device.h"
#include "sim_harness.h"

using namespace lab::sim;
using lab::sim::cycle::Stall;

namespace {

// Loads that miss to DRAM, each feeding a multiply-add: warps wait on
// long_scoreboard, and with one block per SM nothing fills those waits.
const char* kWork = R"(
extern "C" __global__ void work(const float* x, float* y, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  for (int k = 0; k < iters; ++k) v = v * 1.0001f + x[(i + k * 4096) & 0xfffff];
  y[i] = v;
})";

LaunchResult run_work(uint32_t max_blocks_per_sm) {
  const auto& t4 = gpu_model("T4");  // 40 SMs, 4 blocks of 256 threads per SM at the occupancy limit
  const uint32_t blocks = uint32_t(t4.sm_count) * 4;
  auto p = simtest::Program::from_cuda(kWork, "work", "compute_75");
  uint64_t xa = p.memory.allocate((1 << 20) * 4 + blocks * 256 * 4, "x");
  uint64_t ya = p.memory.allocate(uint64_t(blocks) * 256 * 4, "y");
  p.arg<uint64_t>(xa); p.arg<uint64_t>(ya); p.arg<int>(8);
  SimOptions o;
  o.gpu = &t4;
  o.timing.mode = TimingMode::Sampled;
  o.timing.slice_sms = 1;
  o.timing.sample_only = true;
  o.timing.events = true;
  o.timing.max_blocks_per_sm = max_blocks_per_sm;
  return p.run({blocks, 1, 1}, {256, 1, 1}, 0, o);
}

}  // namespace

TEST_CASE("cycle events: spans and issues account for every warp-cycle, per reason, without overlap") {
  LaunchResult res = run_work(0);
  REQUIRE(res.metrics.cycle);
  const auto& r = *res.metrics.cycle;
  CHECK(r.blocks_per_sm == 4);
  REQUIRE(r.events.size() == r.issued);
  CHECK(r.stall[size_t(Stall::Selected)] == r.issued);
  std::vector<uint64_t> by_reason(cycle::kStallCount, 0);
  for (const auto& s : r.spans) {
    REQUIRE(s.to > s.from);
    CHECK(s.reason != Stall::Selected);
    by_reason[size_t(s.reason)] += s.to - s.from;
  }
  for (int i = 1; i < cycle::kStallCount; ++i) {
    INFO(cycle::stall_name(Stall(i)));
    CHECK(by_reason[size_t(i)] == r.stall[size_t(i)]);
  }
  CHECK(by_reason[size_t(Stall::LongScoreboard)] > 0);
  // Per warp (segment, sm, block, warp): issues and waits never overlap.
  using Key = std::tuple<uint8_t, uint16_t, uint32_t, uint16_t>;
  std::map<Key, std::vector<std::pair<uint64_t, uint64_t>>> busy;
  const uint32_t warps_per_block = 256 / 32;
  for (const auto& e : r.events) {
    busy[{e.segment, e.sm, e.block, e.warp}].emplace_back(e.cycle, e.cycle + 1);
    CHECK(e.scheduler == (uint32_t(e.block_slot) * warps_per_block + e.warp) % r.schedulers_per_sm);
  }
  for (const auto& s : r.spans) {
    busy[{s.segment, s.sm, s.block, s.warp}].emplace_back(s.from, s.to);
    CHECK(s.scheduler == (uint32_t(s.block_slot) * warps_per_block + s.warp) % r.schedulers_per_sm);
  }
  size_t overlaps = 0;
  for (auto& [key, v] : busy) {
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i) overlaps += v[i].first < v[i - 1].second;
  }
  CHECK(overlaps == 0);
}

TEST_CASE("cycle events: max_blocks_per_sm = 1 keeps one block per SM and leaves more issue slots idle") {
  LaunchResult one = run_work(1), full = run_work(0);
  REQUIRE(one.metrics.cycle);
  REQUIRE(full.metrics.cycle);
  CHECK(one.metrics.cycle->blocks_per_sm == 1);
  CHECK(full.metrics.cycle->blocks_per_sm == 4);
  // At most one block on the SM at any cycle: no two blocks' issues interleave.
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> life;  // block -> first, last issue (segment 0, SM 0)
  for (const auto& e : one.metrics.cycle->events) {
    if (e.segment || e.sm) continue;
    auto [it, fresh] = life.emplace(e.block, std::make_pair(e.cycle, e.cycle));
    if (!fresh) it->second.second = std::max(it->second.second, e.cycle);
    CHECK(e.block_slot == 0);
  }
  REQUIRE(life.size() >= 2);
  for (auto a = life.begin(), b = std::next(a); b != life.end(); ++a, ++b) CHECK(a->second.second < b->second.first);
  const double u1 = one.metrics.cycle->issue_slot_utilisation(), u4 = full.metrics.cycle->issue_slot_utilisation();
  MESSAGE("issue slots used: 1 block/SM " << u1 << ", 4 blocks/SM " << u4);
  CHECK(u1 < 0.8 * u4);
}

TEST_CASE("cycle events: an issue that waited on a load names the load and when it issued") {
  LaunchResult res = run_work(1);
  REQUIRE(res.metrics.cycle);
  const auto& r = *res.metrics.cycle;
  const auto& code = res.metrics.per_pc;  // sized like the kernel
  REQUIRE(!code.empty());
  size_t long_waits = 0, named = 0;
  for (const auto& e : r.events) {
    if (e.waited_pc >= 0) {
      // The producer issued before the waiting instruction, by the same warp's earlier issue.
      CHECK(e.waited_issue < e.cycle);
      CHECK(size_t(e.waited_pc) < code.size());
    }
    if (e.reason != Stall::LongScoreboard) continue;
    ++long_waits;
    if (e.waited_pc < 0) continue;
    ++named;
    // What a long_scoreboard wait waits for is a global load: the PTX at waited_pc is an ld.
    CHECK(res.metrics.per_pc[size_t(e.waited_pc)].requests > 0);
  }
  REQUIRE(long_waits > 0);
  CHECK(named == long_waits);  // every long_scoreboard wait here is a register a load writes
}
