// Tests for lab/sim/device: the model table and name lookup.
#include <doctest/doctest.h>

#include <string>

#include "lab/sim/device.h"
#include "lab/sim/occupancy.h"

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
  CHECK(gpu_model("V100").name == "V100");
  CHECK(gpu_model("v100-sxm2-16gb").name == "V100-16GB");
  CHECK(gpu_model("3090").name == "RTX3090");
  CHECK(gpu_model("RTX A6000").name == "A6000");
  CHECK(gpu_model("a10").name == "A10");  // not confused with A100
  CHECK(gpu_model("L4").name == "L4");
  CHECK(gpu_model("l40s").name == "L40S");
  CHECK(all_gpu_models().size() == 13);
}

TEST_CASE("an unknown model is an error that lists the valid names") {
  try {
    gpu_model("p100");
    FAIL("p100 should not resolve");
  } catch (const UnknownGpu& e) {
    std::string m = e.what();
    CHECK(m.find("p100") != std::string::npos);
    for (const auto& g : all_gpu_models()) CHECK(m.find(std::string(g.name)) != std::string::npos);
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

TEST_CASE("every model: names unique, figures in sane ranges, compute capability consistent with the SM limits") {
  for (size_t i = 0; i < all_gpu_models().size(); ++i) {
    const auto& g = all_gpu_models()[i];
    CAPTURE(std::string(g.name));
    for (size_t j = 0; j < i; ++j) CHECK(all_gpu_models()[j].name != g.name);
    CHECK(&gpu_model(g.name) == &g);  // the printed name resolves to this very entry
    CHECK(g.sm_count >= 40);
    CHECK(g.sm_count <= 160);
    CHECK(g.boost_clock_hz > 1.0e9);
    CHECK(g.boost_clock_hz < 3.0e9);
    CHECK(g.dram_bytes_per_s > 250e9);
    CHECK(g.dram_bytes_per_s < 6e12);
    // L2 delivers more than DRAM (every chip here), and latencies are ordered.
    CHECK(g.l2_bytes_per_clock * g.boost_clock_hz > g.dram_bytes_per_s);
    CHECK(g.shared_latency_cycles < g.l2_latency_cycles);
    CHECK(g.l2_latency_cycles < g.dram_latency_cycles);
    CHECK(g.fp32_flops > g.fp64_flops);
    // Limits follow the compute capability (Programming Guide table).
    int cc = g.cc_major * 10 + g.cc_minor;
    // V100: CUDA 13 compiles no sm_70, so its kernels are built for sm_75 (device.cpp).
    // Hopper: the architecture-specific sm_90a (wgmma, setmaxnreg exist only there).
    CHECK(g.sm_arch == "sm_" + std::to_string(cc == 70 ? 75 : cc) + (cc == 90 ? "a" : ""));
    CHECK(g.ptx_target == "compute_" + std::to_string(cc == 70 ? 75 : cc) + (cc == 90 ? "a" : ""));
    if (cc == 70 || cc == 80 || cc == 90) CHECK(g.max_threads_per_sm == 2048);
    if (cc == 75) CHECK(g.max_threads_per_sm == 1024);
    if (cc == 86 || cc == 89) CHECK(g.max_threads_per_sm == 1536);
    if (cc == 86) CHECK(g.max_blocks_per_sm == 16);
    if (cc == 89) CHECK(g.max_blocks_per_sm == 24);
    CHECK(g.reserved_shared_per_block == (cc >= 80 ? 1024 : 0));
    CHECK(g.shared_alloc_granularity == (cc >= 80 ? 128 : 256));
    // Tensor formats appear with their architecture: BF16/TF32 from Ampere on.
    CHECK((g.bf16_tensor_flops > 0) == (cc >= 80));
    CHECK((g.tf32_tensor_flops > 0) == (cc >= 80));
  }
}

TEST_CASE("the new models' headline figures (datasheets)") {
  const auto& v = gpu_model("v100");
  CHECK(v.sm_count == 80);
  CHECK(v.shared_per_sm == 96 * 1024);
  CHECK(v.dram_bytes_per_s == doctest::Approx(900e9));
  CHECK(gpu_model("v100-16gb").dram_bytes < v.dram_bytes);
  CHECK(gpu_model("v100-16gb").fp32_flops == v.fp32_flops);
  CHECK(gpu_model("3090").sm_count == 82);
  CHECK(gpu_model("a6000").sm_count == 84);
  CHECK(gpu_model("a6000").dram_bytes_per_s == doctest::Approx(768e9));
  CHECK(gpu_model("a10").sm_count == 72);
  CHECK(gpu_model("l4").l2_bytes == 48ull * 1024 * 1024);
  CHECK(gpu_model("l40s").sm_count == 142);
  // GeForce GA102 runs FP16 tensor with FP32 accumulate at half the professional rate per SM-clock.
  auto per_sm_clock = [](const GpuModel& g) { return g.fp16_tensor_flops / (g.sm_count * g.boost_clock_hz); };
  CHECK(per_sm_clock(gpu_model("3090")) == doctest::Approx(per_sm_clock(gpu_model("a6000")) / 2).epsilon(0.02));
  CHECK(per_sm_clock(gpu_model("a10")) == doctest::Approx(per_sm_clock(gpu_model("a6000"))).epsilon(0.02));
}

TEST_CASE("occupancy through cuda_occupancy.h works for every model's compute capability") {
  for (const auto& g : all_gpu_models()) {
    CAPTURE(std::string(g.name));
    // 256 threads, 32 registers, no shared memory: only the thread limit binds.
    auto o = compute_occupancy(g, {256, 32, 0, 0});
    CHECK(o.blocks_per_sm == g.max_threads_per_sm / 256);
    CHECK(o.occupancy == doctest::Approx(1.0));
    // 48 KB of dynamic shared memory per block: the per-SM carveout (less the
    // per-block reservation on cc >= 8.0) limits the blocks.
    auto s = compute_occupancy(g, {128, 32, 0, 48 * 1024});
    CHECK(s.blocks_per_sm == g.shared_per_sm / (48 * 1024 + g.reserved_shared_per_block));
  }
}
