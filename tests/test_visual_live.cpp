// tests/test_visual_live.cpp: the live mode of big runs. The simulator's
// SimOptions::event_every samples all but global-memory instructions; the
// LiveAggregator's heat maps stay exact, its per-pc counts become exact once
// the launch's metrics arrive, and its SM grid accounts for every block.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "sim_harness.h"
#include "visual/live.h"
#include "visual/session.h"

using namespace lab;
using namespace lab::visual;

namespace {
// Each thread reads A[i] twice (global), stages it in shared memory, loops a
// little (non-memory instructions), and writes C[i].
const char* kKernel = R"(
extern "C" __global__ void stage(const float* A, float* C) {
  __shared__ float s[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = A[i];
  __syncthreads();
  float acc = 0.f;
  for (int k = 0; k < 16; ++k) acc += s[(threadIdx.x + k) % 64] * float(k);
  C[i] = acc + A[i];
})";
constexpr uint32_t kBlocks = 8, kThreads = 64, kN = kBlocks * kThreads;

struct CountingSink : sim::EventSink {
  std::atomic<uint64_t> global{0}, other{0}, placed{0}, retired{0};
  void on_event(const sim::WarpEvent& e) override {
    if (e.kind == sim::WarpEvent::BlockPlaced) ++placed;
    else if (e.kind == sim::WarpEvent::BlockRetired) ++retired;
    else if (e.space == ptx::Space::Global && e.access_bytes) ++global;
    else ++other;
  }
};

struct Run {
  simtest::Program p = simtest::Program::from_cuda(kKernel, "stage");
  uint64_t a = 0, c = 0;
  Run() {
    std::vector<float> A(kN, 1.f), C(kN, 0.f);
    a = p.buffer(A, "A");
    c = p.buffer(C, "C");
    p.arg(a);
    p.arg(c);
  }
  sim::LaunchResult launch(sim::EventSink* sink, uint32_t every) {
    sim::SimOptions o;
    o.events = sink;
    o.event_every = every;
    return p.run({kBlocks}, {kThreads}, 0, o);
  }
};
}  // namespace

TEST_CASE("event_every samples other instructions but keeps every global access and block event") {
  Run r1, r8;
  CountingSink all, sampled;
  sim::LaunchResult full = r1.launch(&all, 1);
  r8.launch(&sampled, 8);
  REQUIRE(full.ok);
  // 3 global instructions per warp: two loads of A, one store of C.
  CHECK(all.global == uint64_t(kBlocks) * (kThreads / 32) * 3);
  CHECK(sampled.global == all.global);
  CHECK(sampled.placed == kBlocks);
  CHECK(sampled.retired == kBlocks);
  CHECK(all.other + all.global == full.metrics.total_warp_insts());
  // About one in 8 per worker (address conversions to global, cvta.to.global,
  // are kept like accesses, two per warp here).
  CHECK(sampled.other * 6 <= all.other);
  CHECK(sampled.other * 8 + 16 * 8 >= all.other);
}

TEST_CASE("live aggregator: exact heat, every block retired, exact per-pc counts after finish") {
  Run r;
  TraceContext ctx;
  ctx.module = &r.p.compiled.module();
  ctx.kernel = r.p.kernel;
  ctx.sm_count = 132;  // the simulator places blocks on the H100 model's SMs
  ctx.blocks_per_sm = 1;
  ctx.grid[0] = kBlocks;
  ctx.block[0] = kThreads;
  ctx.matrices = {{"A", r.a, kN * 4, 16, kN / 16, 4}, {"C", r.c, kN * 4, 16, kN / 16, 4}};
  LiveAggregator live(ctx, 8);
  sim::LaunchResult res = r.launch(&live, 8);
  REQUIRE(res.ok);
  ViewModel vm;
  live.fill(vm);
  CHECK(vm.playback.live);
  CHECK(vm.playback.finished);
  CHECK(live.blocks_retired() == kBlocks);
  uint64_t retired = 0;
  for (const auto& sm : vm.sm.sms) retired += sm.blocks_retired;
  CHECK(retired == kBlocks);
  // Heat: A read twice per element, C written once; global accesses are never sampled.
  REQUIRE(vm.heat.size() == 2);
  uint64_t a_heat = 0, c_heat = 0;
  for (uint32_t v : vm.heat[0].count) a_heat += v;
  for (uint32_t v : vm.heat[1].count) c_heat += v;
  CHECK(a_heat == 2 * kN);
  CHECK(c_heat == kN);
  CHECK(vm.global_access.valid);  // the first global access was sampled
  // Per-pc counts are sampled (scaled) until finish() brings the simulator's own.
  live.finish(res.metrics);
  live.fill(vm);
  uint64_t counted = 0;
  for (uint64_t n : vm.source.ptx_count) counted += n;
  CHECK(counted == res.metrics.total_warp_insts());
  CHECK(vm.playback.warp_insts == res.metrics.total_warp_insts());
}

TEST_CASE("launch panel: Run applies the chosen kernel, GPU model, size and backend") {
  SessionConfig cfg;
  cfg.version = "02_coalesced";
  cfg.size = 32;
  cfg.predict_size = 32;
  Session s(cfg);
  auto wait_for = [&](auto pred) {
    for (int i = 0; i < 1200; ++i) {
      auto vm = s.snapshot();
      if (pred(*vm)) return vm;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return s.snapshot();
  };
  auto vm = wait_for([](const ViewModel& v) { return v.launch.current_kernel >= 0 && !v.launch.gpus.empty(); });
  REQUIRE(vm->launch.kernels.size() > 1);
  CHECK(vm->launch.gpu == "H100");
  int t4 = -1, size64 = -1;
  for (size_t i = 0; i < vm->launch.gpus.size(); ++i)
    if (vm->launch.gpus[i] == "T4") t4 = int(i);
  for (size_t i = 0; i < vm->launch.sizes.size(); ++i)
    if (vm->launch.sizes[i] == "64") size64 = int(i);
  REQUIRE(t4 >= 0);
  REQUIRE(size64 >= 0);
  REQUIRE(vm->launch.backends.size() == 2);
  s.request_launch(0, t4, size64, 1);  // 01_naive on a T4 at 64^3, backend cuda
  vm = wait_for([](const ViewModel& v) { return v.launch.gpu == "T4" && v.launch.current_kernel == 0 && v.sm.sm_count; });
  CHECK(vm->launch.gpu == "T4");
  CHECK(vm->launch.current_kernel == 0);
  CHECK(vm->launch.problem.find("64") != std::string::npos);
  CHECK(vm->sm.sm_count == 40);  // the T4 model's SMs
  CHECK(vm->playback.status.find("cuda") != std::string::npos);  // why the GPU backend is not what is shown
  CHECK(vm->roofline.device.find("T4") != std::string::npos);
}
