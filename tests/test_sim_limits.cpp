// tests/test_sim_limits.cpp: launch limits are checked in one place
// (lab/sim/limits.h) with the GPU model's numbers, and the run path's
// compiled value carries ptxas's resources computed once.
#include <doctest/doctest.h>

#include <string>

#include "lab/sim/compiled.h"
#include "lab/sim/device.h"
#include "lab/sim/limits.h"
#include "lab/sim/run.h"

using namespace lab::sim;

namespace {

lab::ptx::Kernel plain_kernel(uint32_t static_shared = 0) {
  lab::ptx::Kernel k;
  k.name = "k";
  k.static_shared_bytes = static_shared;
  return k;
}

LaunchConfig cfg(uint32_t block, uint32_t dyn = 0) {
  LaunchConfig c;
  c.grid = Dim3{4};
  c.block = Dim3{block};
  c.dynamic_shared_bytes = dyn;
  return c;
}

std::string refusal(const lab::ptx::Kernel& k, const LaunchConfig& c, const GpuModel& g, int regs) {
  lab::compile::ResourceUsage u;
  u.kernel = k.name;
  u.registers = regs;
  try {
    check_launch_limits(k, c, g, regs ? &u : nullptr);
  } catch (const LaunchError& e) {
    return e.what();
  }
  return "";
}

const char* kVadd = R"(
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

}  // namespace

TEST_CASE("registers per block: refused as cudaErrorLaunchOutOfResources, with the numbers") {
  const GpuModel& h100 = gpu_model("h100");
  const auto k = plain_kernel();
  // 71 registers x 32 lanes = 2272 per warp, allocated in units of 256: 2304;
  // 32 warps x 2304 = 73728 > 65536 registers per block.
  std::string why = refusal(k, cfg(1024), h100, 71);
  CHECK(why.find("too many resources requested for launch") != std::string::npos);
  CHECK(why.find("73728") != std::string::npos);
  CHECK(why.find("65536") != std::string::npos);
  CHECK(why.find("at most 64 registers") != std::string::npos);
  CHECK(why.find("H100") != std::string::npos);
  // 64 x 32 x 32 = 65536 fits exactly; half the block fits 71 registers.
  CHECK(refusal(k, cfg(1024), h100, 64).empty());
  CHECK(refusal(k, cfg(512), h100, 71).empty());
  // Without ptxas's count the register limit is not guessed.
  CHECK(refusal(k, cfg(1024), h100, 0).empty());
}

TEST_CASE("threads and shared memory per block use the model's numbers") {
  const auto k = plain_kernel(16 * 1024);
  for (const GpuModel& g : all_gpu_models()) {
    CAPTURE(g.name);
    CHECK(refusal(k, cfg(uint32_t(g.max_threads_per_block) + 1), g, 0).find("threads per block") != std::string::npos);
    CHECK(refusal(k, cfg(256), g, 0).empty());
    const uint32_t room = uint32_t(g.shared_per_block_optin) - 16 * 1024;
    CHECK(refusal(k, cfg(256, room), g, 0).empty());
    CHECK(refusal(k, cfg(256, room + 1), g, 0).find("shared memory per block") != std::string::npos);
  }
}

TEST_CASE("the compiled value carries ptxas's resources, and launch() checks with them") {
  const GpuModel& h100 = gpu_model("h100");
  CompiledKernel ck = compile_kernel({"vadd.cu", "vadd", {}, kVadd}, h100);
  CHECK(ck.kernel().name == "vadd");
  CHECK(ck.gpu == &h100);
  REQUIRE(ck.resources() != nullptr);
  CHECK(ck.resources()->registers > 0);
  CHECK(ck.resources() == ck.resources());  // computed once, the same answer after
  CompiledKernel copy = ck;
  CHECK(&copy.kernel() == &ck.kernel());    // copies share the module
  GlobalMemory mem;
  std::vector<uint8_t> params(ck.kernel().param_bytes, 0);
  CHECK_THROWS_AS(launch(ck, cfg(2048), params, mem), LaunchError);
  // A launch() without the compiled value refuses the same shape with the same rule.
  CHECK_THROWS_AS(launch(ck.module(), ck.kernel(), cfg(2048), params, mem), LaunchError);
}

TEST_CASE("an unknown kernel name is a RunError listing the kernels") {
  try {
    compile_kernel({"vadd.cu", "nosuch", {}, kVadd}, default_gpu());
    FAIL("no error");
  } catch (const RunError& e) {
    CHECK(std::string(e.what()).find("vadd") != std::string::npos);
  }
}
