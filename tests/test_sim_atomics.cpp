// Tests for atomics' serialisation (lab/sim/memory_cost same_address_lanes and
// shared_atomic_wavefronts; the cycle model's per-address L2 queue): updates
// of one address are applied one after another, so 32 lanes on one word cost
// 32 wavefronts in shared memory and 32 L2 updates in global memory, while
// 32 lanes on 32 words cost what a load would. Lesson 9's checks rely on it.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "lab/sim/memory_cost.h"
#include "lab/sim/report.h"
#include "lab/sim/run.h"
#include "sim_harness.h"

using namespace lab::sim;

namespace {
std::vector<uint64_t> lanes(uint64_t base, uint64_t (*word)(uint64_t)) {
  std::vector<uint64_t> a(32);
  for (uint64_t i = 0; i < 32; ++i) a[i] = base + 4 * word(i);
  return a;
}
}  // namespace

TEST_CASE("atomics: same-address lanes serialise; distinct words do not") {
  auto one = lanes(0, [](uint64_t) { return uint64_t(0); });
  auto each = lanes(0, [](uint64_t i) { return i; });
  auto bins16 = lanes(0, [](uint64_t i) { return i % 16; });
  CHECK(same_address_lanes(one.data(), ~0u) == 32);
  CHECK(same_address_lanes(each.data(), ~0u) == 1);
  CHECK(same_address_lanes(bins16.data(), ~0u) == 2);
  CHECK(same_address_lanes(one.data(), 0x0000000fu) == 4);
  // A load of one word is a broadcast (1 wavefront); an atomic on it is 32.
  CHECK(shared_wavefronts(one.data(), ~0u, 4).wavefronts == 1);
  SharedCost a = shared_atomic_wavefronts(one.data(), ~0u, 4);
  CHECK(a.wavefronts == 32);
  CHECK(a.ideal == 1);
  CHECK(a.conflicts() == 31);
  CHECK(shared_atomic_wavefronts(each.data(), ~0u, 4).wavefronts == 1);
  CHECK(shared_atomic_wavefronts(bins16.data(), ~0u, 4).wavefronts == 2);
}

TEST_CASE("atomics: one global address costs N serial updates in the counters and the predicted time") {
  const char* src = R"(
extern "C" __global__ void one(int* out) { atomicAdd(out, 1); }
extern "C" __global__ void each(int* out) { atomicAdd(&out[blockIdx.x * blockDim.x + threadIdx.x], 1); })";
  const uint32_t blocks = 64, n = blocks * 256;
  double seconds[2] = {};
  for (int k = 0; k < 2; ++k) {
    auto p = simtest::Program::from_cuda(src, k == 0 ? "one" : "each");
    uint64_t oa = p.buffer(std::vector<int32_t>(n, 0));
    p.arg<uint64_t>(oa);
    SimOptions o;
    o.gpu = &gpu_model("H100");
    o.timing.mode = TimingMode::Full;
    auto res = p.run({blocks, 1, 1}, {256, 1, 1}, 0, o);
    REQUIRE(res.ok);
    REQUIRE(res.metrics.cycle);
    uint64_t serial = 0, requests = 0;
    for (const auto& c : res.metrics.per_pc) serial += c.atomic_serial, requests += c.atomic_serial ? c.requests : 0;
    CHECK(requests == n / 32);
    auto out = p.read<int32_t>(oa, n);
    if (k == 0) {
      CHECK(out[0] == int32_t(n));
      CHECK(serial == n);  // every lane of every warp on one word
    } else {
      CHECK(out[n - 1] == 1);
      CHECK(serial == n / 32);  // one update per address per request
    }
    KernelReport rep = build_report(p.compiled.module(), *p.kernel, LaunchConfig{{blocks, 1, 1}, {256, 1, 1}, 0},
                                    res.metrics, gpu_model("H100"), nullptr);
    seconds[k] = rep.predicted.time_s;
    // The one-address kernel's warps are long gone while the L2 drains its queue: the model says so.
    if (k == 0) CHECK(rep.predicted.limiter == "l2_atomics");
    if (k == 1) CHECK(rep.predicted.limiter != "l2_atomics");
  }
  // 16,384 updates of one word at about one per clock against 512 requests
  // spread over 2,048 sectors: the one-address kernel takes at least the
  // serial drain, and far longer than the spread one.
  CHECK(seconds[0] >= n * gpu_model("H100").sm_clock_period_s());
  CHECK(seconds[0] > 4 * seconds[1]);
}
