// Tests for lab/sim/timing: instruction classes, flop counting, and the
// prediction's behaviour on real kernels: the GEMM progression must come out
// in the order the hardware gives (naive < coalesced < shared-memory tiled
// < 2D register tiled < tensor-core mma, slowest first), from counted work
// alone, and a streaming kernel must be memory-bound near DRAM bandwidth.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "lab/compile/nvrtc.h"
#include "lab/sim/device.h"
#include "lab/sim/report.h"
#include "lab/sim/run.h"
#include "lab/sim/timing.h"

using namespace lab::sim;

TEST_CASE("instruction classes and flops per lane") {
  lab::ptx::Instr fma;
  fma.op = lab::ptx::Op::Fma;
  fma.type = lab::ptx::Type::F32;
  CHECK(classify(fma) == InstrClass::Fp32);
  CHECK(flops_per_lane(fma) == 2);
  fma.type = lab::ptx::Type::F64;
  CHECK(classify(fma) == InstrClass::Fp64);
  fma.type = lab::ptx::Type::F16x2;
  CHECK(flops_per_lane(fma) == 4);
  lab::ptx::Instr add;
  add.op = lab::ptx::Op::Add;
  add.type = lab::ptx::Type::S32;
  CHECK(classify(add) == InstrClass::Int);
  CHECK(flops_per_lane(add) == 0);
  lab::ptx::Instr ex2;
  ex2.op = lab::ptx::Op::Ex2;
  ex2.type = lab::ptx::Type::F32;
  CHECK(classify(ex2) == InstrClass::Sfu);
  lab::ptx::Instr mma;
  mma.op = lab::ptx::Op::Mma;
  mma.shape_m = 16, mma.shape_n = 8, mma.shape_k = 16;
  mma.type2 = lab::ptx::Type::F16;
  CHECK(classify(mma) == InstrClass::Tensor);
  CHECK(flops_per_lane(mma) * 32 == doctest::Approx(2.0 * 16 * 8 * 16));
  lab::ptx::Instr ld;
  ld.op = lab::ptx::Op::Ld;
  CHECK(classify(ld) == InstrClass::Memory);
  CHECK(tensor_peak(gpu_model("h100"), lab::ptx::Type::F16) == doctest::Approx(989.4e12));
  CHECK(tensor_peak(gpu_model("a100"), lab::ptx::Type::TF32) == doctest::Approx(156e12));
}

TEST_CASE("schedule: waves, tail and achieved occupancy") {
  const auto& h = gpu_model("h100");
  auto s = schedule_blocks(h, 132 * 8 * 2 + 132, 256, 8);  // 2 full waves + 1/8 wave
  CHECK(s.waves == 3);
  CHECK(s.tail_blocks == 132);
  CHECK(s.tail_fill == doctest::Approx(0.125));
  CHECK(s.theoretical_occupancy == doctest::Approx(1.0));
  // Each SM: 2 waves at 8 blocks, one at 1: (16 + 1) x 8 warps over 3 waves of 64 slots.
  CHECK(s.achieved_occupancy == doctest::Approx(17.0 * 8 / (3 * 64)));
  CHECK(s.sm_of(133) == 1);
  auto small = schedule_blocks(h, 10, 256, 8);
  CHECK(small.waves == 1);
  CHECK(small.sms_used == 10);
  CHECK(small.achieved_occupancy == doctest::Approx(8.0 / 64));
}

namespace {

struct Predicted {
  double ms = 0;
  std::string bound;
};

Predicted run_gemm(const std::string& file, const std::string& kernel, Dim3 block, uint32_t tile_x, uint32_t tile_y,
                   bool fp16, int n) {
  RunRequest req;
  req.file = std::string(GPULAB_SOURCE_DIR) + "/kernels/gemm/" + file;
  req.kernel = kernel;
  req.launch.block = block;
  req.launch.grid = Dim3{uint32_t((n + tile_x - 1) / tile_x), uint32_t((n + tile_y - 1) / tile_y), 1};
  std::string t = fp16 ? "f16" : "f32";
  std::string cnt = std::to_string(n * n);
  req.args = {"i32=" + std::to_string(n), "i32=" + std::to_string(n), "i32=" + std::to_string(n), "f32=1",
              t + "[" + cnt + "]=rand", t + "[" + cnt + "]=rand", "f32=0", "f32[" + cnt + "]"};
  req.gpu = &gpu_model("H100");
  RunOutcome out = run_kernel(req);
  REQUIRE(out.result.ok);
  KernelReport rep = build_report(out.compiled, req.launch, out.result.metrics);
  MESSAGE(file << ": " << rep.predicted.time_ms << " ms, " << rep.predicted.bound << " (" << rep.predicted.limiter
                << "), regs " << rep.registers_per_thread << ", occ " << rep.occupancy.occupancy << " " << rep.to_predicted_json()["cycles_per_sm"].dump());
  return {rep.predicted.time_ms, rep.predicted.bound};
}

}  // namespace

TEST_CASE("GEMM progression: predicted times in hardware order") {
  // 512: big enough that the 128x128-tile kernels get 16 blocks (at 256 they
  // would get 4 blocks for 132 SMs and be slower than the 32x32-tile kernel,
  // on a real H100 too).
  const int n = 512;
  auto naive = run_gemm("01_naive.cu", "gemm_01_naive", {32, 32, 1}, 32, 32, false, n);
  auto coalesced = run_gemm("02_coalesced.cu", "gemm_02_coalesced", {32, 32, 1}, 32, 32, false, n);
  auto smem = run_gemm("03_smem_tiled.cu", "gemm_03_smem_tiled", {32, 32, 1}, 32, 32, false, n);
  auto tiled2d = run_gemm("05_blocktile_2d.cu", "gemm_05_blocktile_2d", {256, 1, 1}, 128, 128, false, n);
  auto mma = run_gemm("09_tensor_core_mma.cu", "gemm_09_tensor_core_mma", {256, 1, 1}, 128, 128, true, n);
  CHECK(naive.ms > coalesced.ms);
  // Holds since the model merges A's scalar broadcast shared loads into one
  // LDS.128 as ptxas does (cycle/decode.h `merge`); with every wavefront
  // timed and no merge, 03 came out slower than 02 here (docs/fidelity.md).
  CHECK(coalesced.ms > smem.ms);
  CHECK(tiled2d.ms > mma.ms);
  // smem (256 blocks) vs 2D tiled (16 blocks of 128x128 on 132 SMs) is not
  // asserted at this size: the 2D kernel leaves 116 SMs idle, and is slower
  // on a real H100 too. The order holds once the grid fills the GPU (N >= 2048),
  // too large to simulate in a unit test.
  // The cycle model (lab/sim/cycle) puts the 32x32 shared-memory kernel's
  // issue slots over 60% busy (two shared loads and an FMA per k step), so it
  // calls it compute/issue-bound where the analytic bounds said l1_shared;
  // either way a throughput limit, not latency. docs/fidelity.md notes that
  // this kernel's predicted gain over 02 is larger than published ones.
  CHECK(smem.bound != "latency");
  CHECK(naive.bound == "memory");
}
