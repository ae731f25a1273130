// Tests for lab/sim/device: the model table and name lookup.
#include <doctest/doctest.h>

#include <string>

#include "lab/sim/device.h"

using namespace lab::sim;

TEST_CASE("every model is found by its name and its aliases, case-insensitively") {
  CHECK(gpu_model("H100").name == "H100");
  CHECK(gpu_model("h100").name == "H100");
  CHECK(gpu_model("4090").name == "RTX4090");
  CHECK(gpu_model("rtx4090").name == "RTX4090");
  CHECK(gpu_model("RTX-4090").name == "RTX4090");
  CHECK(gpu_model("rtx_4090").name == "RTX4090");
  CHECK(gpu_model("a100").name == "A100");
  CHECK(gpu_model("T4").name == "T4");
  CHECK(gpu_model("h200").name == "H200");
  CHECK(default_gpu().name == "H100");
  CHECK(all_gpu_models().size() == 5);
}

TEST_CASE("an unknown model is an error that lists the valid names") {
  try {
    gpu_model("v100");
    FAIL("v100 should not resolve");
  } catch (const UnknownGpu& e) {
    std::string m = e.what();
    CHECK(m.find("v100") != std::string::npos);
    for (const char* n : {"T4", "A100", "RTX4090", "H100", "H200"}) CHECK(m.find(n) != std::string::npos);
  }
}

TEST_CASE("published peak rates agree with SM count x lanes x 2 x boost clock") {
  // The datasheet FP32 figure is 2 FLOP per FMA lane per cycle on every SM;
  // a table typo in any of the four inputs breaks this (within 3%: datasheets round).
  for (const auto& g : all_gpu_models()) {
    CAPTURE(std::string(g.name));
    double derived = double(g.sm_count) * g.fp32_lanes_per_sm * 2 * g.boost_clock_hz;
    CHECK(derived == doctest::Approx(g.fp32_flops).epsilon(0.03));
    double fp64 = double(g.sm_count) * g.fp64_lanes_per_sm * 2 * g.boost_clock_hz;
    CHECK(fp64 == doctest::Approx(g.fp64_flops).epsilon(0.03));
    CHECK(g.max_threads_per_sm == g.max_warps_per_sm * g.warp_size);
    CHECK(g.shared_per_block_optin <= g.shared_per_sm);
    CHECK(g.shared_per_block <= g.shared_per_block_optin);
    CHECK(g.sm_arch.substr(3) == g.ptx_target.substr(8));
    CHECK(g.fp16_tensor_flops > g.fp32_flops);
    CHECK(g.l2_bytes > 0);
    CHECK(g.dram_bytes_per_s > 0);
  }
}

TEST_CASE("compute capabilities and per-SM limits match the Programming Guide table") {
  const auto& t4 = gpu_model("t4");
  CHECK(t4.cc_major == 7);
  CHECK(t4.cc_minor == 5);
  CHECK(t4.max_threads_per_sm == 1024);
  CHECK(t4.max_blocks_per_sm == 16);
  CHECK(t4.reserved_shared_per_block == 0);
  const auto& ada = gpu_model("4090");
  CHECK(ada.max_threads_per_sm == 1536);
  CHECK(ada.max_blocks_per_sm == 24);
  CHECK(ada.shared_per_sm == 100 * 1024);
  const auto& h100 = gpu_model("h100");
  CHECK(h100.shared_per_sm == 228 * 1024);
  CHECK(h100.shared_per_block_optin == 227 * 1024);
  CHECK(h100.sm_count == 132);
  const auto& h200 = gpu_model("h200");
  CHECK(h200.sm_count == h100.sm_count);
  CHECK(h200.dram_bytes_per_s > h100.dram_bytes_per_s);
}
