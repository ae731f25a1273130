// tests/test_cuda.cpp: the real-GPU backend. On a machine with no driver it
// must say why in a sentence a user can act on, and never crash; where a GPU
// exists it must load PTX, launch and read results back.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "lab/cuda/backend.h"

TEST_CASE("cuda_available gives a reason exactly when the GPU cannot be used") {
  std::string why = "unset";
  bool ok = lab::cuda::cuda_available(&why);
  if (ok) {
    CHECK(why.empty());
  } else {
    CHECK(!why.empty());
    CHECK(why.find("--backend sim") != std::string::npos);  // says what to do
    MESSAGE("no GPU here: " << why);
    // Asking twice is stable (the driver is probed once).
    std::string again;
    CHECK(!lab::cuda::cuda_available(&again));
    CHECK(again == why);
    // Opening a device throws a CudaError carrying the same reason.
    try {
      lab::cuda::Gpu gpu;
      FAIL("Gpu() must throw when cuda_available is false");
    } catch (const lab::cuda::CudaError& e) {
      CHECK(std::string(e.what()) == why);
    }
  }
}

TEST_CASE("on a GPU: a PTX kernel runs and writes its output") {
  if (!lab::cuda::cuda_available()) {
    MESSAGE("skipped: no GPU");
    return;
  }
  // Hand-written PTX so this test needs no NVRTC: out[i] = i * 2.
  const char* ptx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry twice(.param .u64 out, .param .u32 n) {
  .reg .pred %p; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x; setp.ge.u32 %p, %r2, %r1; @%p bra DONE;
  shl.b32 %r3, %r2, 1; cvta.to.global.u64 %rd2, %rd1; mul.wide.u32 %rd3, %r2, 4; add.u64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r3;
DONE: ret; })";
  lab::cuda::Gpu gpu;
  MESSAGE("GPU: " << gpu.name());
  void* fn = gpu.load_kernel(ptx, "twice");
  uint64_t out = gpu.alloc(64 * 4);
  uint32_t n = 64;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
  gpu.launch(fn, grid, block, 0, {&out, &n});
  gpu.synchronize();
  std::vector<uint32_t> host(64);
  gpu.download(host.data(), out, 64 * 4);
  for (uint32_t i = 0; i < 64; ++i) CHECK(host[i] == 2 * i);
  gpu.free(out);
}
