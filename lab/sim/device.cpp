// lab/sim/device.cpp: the GPU model table.
//
// Sources, cited per model below:
//  [PG]   CUDA C++ Programming Guide, "Compute Capabilities", table "Technical
//         Specifications per Compute Capability" (threads/warps/blocks per SM,
//         registers, shared memory per SM and per block, grid limits), and the
//         matching values of cudaDeviceProp (sharedMemPerMultiprocessor,
//         sharedMemPerBlockOptin, reservedSharedMemPerBlock).
//  [OCC]  /usr/local/cuda/include/cuda_occupancy.h: allocation granularities
//         (registers 256 per warp, shared 256 B on 7.x, 128 B on 8.x/9.x) and
//         max resident blocks per SM per compute capability.
//  [T4]   NVIDIA T4 Tensor Core GPU datasheet (2019) and Turing whitepaper.
//  [A100] NVIDIA A100 Tensor Core GPU datasheet (80GB SXM) and the NVIDIA A100
//         Tensor Core GPU Architecture whitepaper (2020).
//  [ADA]  NVIDIA Ada GPU Architecture whitepaper v2.1 (RTX 4090, Appendix A).
//  [H100] NVIDIA H100 Tensor Core GPU datasheet (SXM5) and the NVIDIA H100
//         Tensor Core GPU Architecture whitepaper (2022).
//  [H200] NVIDIA H200 Tensor Core GPU datasheet (SXM, 141 GB HBM3e).
//  [MB]   Microbenchmark figures (NVIDIA publishes no latencies): Jia et al.,
//         "Dissecting the NVidia Turing T4 GPU via Microbenchmarking" (2019);
//         Jia et al., Ampere microbenchmarks; Luo et al., "Benchmarking and
//         Dissecting the Nvidia Hopper GPU Architecture" (IPDPS 2024). Rounded;
//         treat as +-20%.
#include "lab/sim/device.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace lab::sim {

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GB = 1000ull * 1000 * 1000;
constexpr double T = 1e12, G = 1e9;

GpuModel make_t4() {
  GpuModel m;
  m.name = "T4";
  m.full_name = "NVIDIA T4 (TU104, 16 GB GDDR6)";
  m.architecture = "Turing";
  m.cc_major = 7, m.cc_minor = 5;                 // [PG]
  m.sm_arch = "sm_75", m.ptx_target = "compute_75";
  m.sm_count = 40;                                // [T4] 2560 CUDA cores / 64 per SM
  m.boost_clock_hz = 1590e6;                      // [T4] max boost 1590 MHz
  m.max_warps_per_sm = 32;                        // [PG] cc 7.5: 1024 threads per SM
  m.max_threads_per_sm = 1024;
  m.max_blocks_per_sm = 16;                       // [PG] cc 7.5, [OCC]
  m.max_regs_per_thread = 255;                    // [PG]
  m.shared_per_sm = 64 * KiB;                     // [PG] cc 7.5: 64 KB
  m.shared_per_block_optin = 64 * KiB;            // [PG] cc 7.5: 64 KB with opt-in
  m.reserved_shared_per_block = 0;                // [PG] reservation starts at cc 8.0
  m.shared_alloc_granularity = 256;               // [OCC]
  m.fp32_lanes_per_sm = 64;                       // [T4] Turing SM: 64 FP32 cores
  m.fp64_lanes_per_sm = 2;                        // Turing whitepaper: 2 FP64 units per SM (1/32 rate)
  m.int32_lanes_per_sm = 64;
  m.sfu_lanes_per_sm = 16;
  m.lsu_lanes_per_sm = 16;                        // Turing whitepaper SM diagram: 4 LD/ST per partition
  m.dram_bytes = 16 * GB;
  m.dram_bytes_per_s = 320 * G;                   // [T4] 320+ GB/s
  m.l2_bytes = 4 * MiB;                           // [T4] Turing whitepaper: 4 MB L2 (TU104)
  m.l2_bytes_per_clock = 640;                     // [MB] ~1 TB/s measured
  m.host_bytes_per_s = 16 * G;                    // [T4] PCIe Gen3 x16: 32 GB/s both directions
  m.dram_latency_cycles = 600;                    // [MB]
  m.l2_latency_cycles = 200;                      // [MB]
  m.shared_latency_cycles = 20;                   // [MB]
  m.fp32_flops = 8.1 * T;                         // [T4] 8.1 TFLOPS FP32
  m.fp64_flops = 0.254 * T;                       // 40 SM x 2 x 2 x 1.59 GHz (1/32 of FP32)
  m.fp16_tensor_flops = 65 * T;                   // [T4] mixed precision FP16/FP32: 65 TFLOPS
  m.bf16_tensor_flops = 0;                        // no BF16 tensor cores before Ampere
  m.tf32_tensor_flops = 0;
  m.int8_tensor_ops = 130 * T;                    // [T4] INT8: 130 TOPS
  return m;
}

GpuModel make_a100() {
  GpuModel m;
  m.name = "A100";
  m.full_name = "NVIDIA A100 SXM4 80GB";
  m.architecture = "Ampere";
  m.cc_major = 8, m.cc_minor = 0;                 // [PG]
  m.sm_arch = "sm_80", m.ptx_target = "compute_80";
  m.sm_count = 108;                               // [A100] whitepaper: 108 SMs
  m.boost_clock_hz = 1410e6;                      // [A100] whitepaper: 1410 MHz boost
  m.max_warps_per_sm = 64;                        // [PG] cc 8.0: 2048 threads
  m.max_threads_per_sm = 2048;
  m.max_blocks_per_sm = 32;                       // [PG], [OCC]
  m.max_regs_per_thread = 255;
  m.shared_per_sm = 164 * KiB;                    // [PG] cc 8.0: 164 KB
  m.shared_per_block_optin = 163 * KiB;           // [PG] cc 8.0: 163 KB per block
  m.reserved_shared_per_block = 1 * KiB;          // [PG] 1 KB reserved per block (cc 8.x+)
  m.shared_alloc_granularity = 128;               // [OCC]
  m.fp32_lanes_per_sm = 64;                       // [A100] whitepaper: 64 FP32 cores/SM
  m.fp64_lanes_per_sm = 32;                       // [A100] whitepaper: 32 FP64 cores/SM
  m.int32_lanes_per_sm = 64;
  m.sfu_lanes_per_sm = 16;
  m.lsu_lanes_per_sm = 32;
  m.dram_bytes = 80 * GB;
  m.dram_bytes_per_s = 2039 * G;                  // [A100] datasheet 80GB SXM: 2,039 GB/s
  m.l2_bytes = 40 * MiB;                          // [A100] whitepaper: 40 MB L2
  m.l2_bytes_per_clock = 5120;                    // [A100] whitepaper: L2 read bandwidth 5120 B/clk
  m.host_bytes_per_s = 32 * G;                    // [A100] PCIe Gen4: 64 GB/s both directions
  m.dram_latency_cycles = 470;                    // [MB]
  m.l2_latency_cycles = 260;                      // [MB]
  m.shared_latency_cycles = 30;                   // [MB]
  m.fp32_flops = 19.5 * T;                        // [A100] FP32 19.5 TFLOPS
  m.fp64_flops = 9.7 * T;                         // [A100] FP64 9.7 TFLOPS (19.5 with FP64 tensor cores)
  m.fp16_tensor_flops = 312 * T;                  // [A100] FP16 tensor 312 TFLOPS dense
  m.bf16_tensor_flops = 312 * T;                  // [A100] BF16 tensor 312 TFLOPS dense
  m.tf32_tensor_flops = 156 * T;                  // [A100] TF32 tensor 156 TFLOPS dense
  m.int8_tensor_ops = 624 * T;                    // [A100] INT8 624 TOPS dense
  return m;
}

GpuModel make_rtx4090() {
  GpuModel m;
  m.name = "RTX4090";
  m.full_name = "NVIDIA GeForce RTX 4090 (AD102, 24 GB GDDR6X)";
  m.architecture = "Ada Lovelace";
  m.cc_major = 8, m.cc_minor = 9;                 // [PG]
  m.sm_arch = "sm_89", m.ptx_target = "compute_89";
  m.sm_count = 128;                               // [ADA] Appendix A: 128 SMs
  m.boost_clock_hz = 2520e6;                      // [ADA] boost clock 2520 MHz
  m.max_warps_per_sm = 48;                        // [PG] cc 8.9: 1536 threads
  m.max_threads_per_sm = 1536;
  m.max_blocks_per_sm = 24;                       // [PG] cc 8.9, [OCC]
  m.max_regs_per_thread = 255;
  m.shared_per_sm = 100 * KiB;                    // [PG] cc 8.6/8.9: 100 KB
  m.shared_per_block_optin = 99 * KiB;            // [PG] cc 8.6/8.9: 99 KB per block
  m.reserved_shared_per_block = 1 * KiB;          // [PG]
  m.shared_alloc_granularity = 128;               // [OCC]
  m.fp32_lanes_per_sm = 128;                      // [ADA] 16384 CUDA cores / 128 SMs
  m.fp64_lanes_per_sm = 2;                        // [ADA] FP64 at 1/64 of FP32
  m.int32_lanes_per_sm = 64;
  m.sfu_lanes_per_sm = 16;
  m.lsu_lanes_per_sm = 32;
  m.dram_bytes = 24 * GB;
  m.dram_bytes_per_s = 1008 * G;                  // [ADA] 1008 GB/s (21 Gbps, 384-bit)
  m.l2_bytes = 72 * MiB;                          // [ADA] 72 MB L2
  m.l2_bytes_per_clock = 2048;                    // [MB] ~5 TB/s measured
  m.host_bytes_per_s = 32 * G;                    // PCIe Gen4 x16, one direction
  m.dram_latency_cycles = 540;                    // [MB]
  m.l2_latency_cycles = 270;                      // [MB]
  m.shared_latency_cycles = 30;                   // [MB]
  m.fp32_flops = 82.6 * T;                        // [ADA] 82.6 TFLOPS
  m.fp64_flops = 1.29 * T;                        // [ADA] 1.3 TFLOPS (1/64)
  m.fp16_tensor_flops = 165.2 * T;                // [ADA] FP16 with FP32 accumulate: 165.2 dense
                                                  //       (330.3 with FP16 accumulate)
  m.bf16_tensor_flops = 165.2 * T;                // [ADA] BF16 (FP32 accumulate) 165.2 dense
  m.tf32_tensor_flops = 82.6 * T;                 // [ADA] TF32 82.6 dense
  m.int8_tensor_ops = 660.6 * T;                  // [ADA] INT8 660.6 dense
  return m;
}

GpuModel make_h100() {
  GpuModel m;
  m.name = "H100";
  m.full_name = "NVIDIA H100 SXM5 80GB";
  m.architecture = "Hopper";
  m.cc_major = 9, m.cc_minor = 0;                 // [PG]
  m.sm_arch = "sm_90", m.ptx_target = "compute_90";
  m.sm_count = 132;                               // [H100] whitepaper: SXM5 has 132 SMs
  m.boost_clock_hz = 1980e6;                      // [H100] 1980 MHz: 132 x 128 x 2 x 1.98 GHz = 67 TFLOPS
  m.max_warps_per_sm = 64;                        // [PG] cc 9.0: 2048 threads
  m.max_threads_per_sm = 2048;
  m.max_blocks_per_sm = 32;                       // [PG], [OCC]
  m.max_regs_per_thread = 255;
  m.shared_per_sm = 228 * KiB;                    // [PG] cc 9.0: 228 KB
  m.shared_per_block_optin = 227 * KiB;           // [PG] cc 9.0: 227 KB per block
  m.reserved_shared_per_block = 1 * KiB;          // [PG]
  m.shared_alloc_granularity = 128;               // [OCC]
  m.fp32_lanes_per_sm = 128;                      // [H100] whitepaper: 128 FP32 cores/SM
  m.fp64_lanes_per_sm = 64;                       // [H100] whitepaper: 64 FP64 cores/SM
  m.int32_lanes_per_sm = 64;
  m.sfu_lanes_per_sm = 16;
  m.lsu_lanes_per_sm = 32;
  m.dram_bytes = 80 * GB;
  m.dram_bytes_per_s = 3350 * G;                  // [H100] datasheet SXM: 3.35 TB/s HBM3
  m.l2_bytes = 50 * MiB;                          // [H100] whitepaper: 50 MB L2
  m.l2_bytes_per_clock = 5120;                    // [MB] same order as A100's published 5120 B/clk
  m.host_bytes_per_s = 64 * G;                    // [H100] PCIe Gen5: 128 GB/s both directions
  m.dram_latency_cycles = 480;                    // [MB]
  m.l2_latency_cycles = 260;                      // [MB]
  m.shared_latency_cycles = 30;                   // [MB]
  m.fp32_flops = 67 * T;                          // [H100] SXM: 67 TFLOPS
  m.fp64_flops = 34 * T;                          // [H100] SXM: 34 TFLOPS (67 with FP64 tensor cores)
  m.fp16_tensor_flops = 989.4 * T;                // [H100] 1979 with sparsity, 989.4 dense
  m.bf16_tensor_flops = 989.4 * T;                // [H100] same as FP16
  m.tf32_tensor_flops = 494.7 * T;                // [H100] 989 with sparsity, 494.7 dense
  m.int8_tensor_ops = 1979 * T;                   // [H100] 3958 with sparsity
  return m;
}

GpuModel make_h200() {
  // The H200 is the GH100 of the H100 SXM with 141 GB of HBM3e: SM figures
  // and peak rates are the H100's; memory size and bandwidth differ.
  GpuModel m = make_h100();
  m.name = "H200";
  m.full_name = "NVIDIA H200 SXM 141GB";
  m.dram_bytes = 141 * GB;                        // [H200] 141 GB HBM3e
  m.dram_bytes_per_s = 4800 * G;                  // [H200] 4.8 TB/s
  m.dram_latency_cycles = 500;                    // [MB] HBM3e, assumed close to H100
  return m;
}

const std::array<GpuModel, 5>& table() {
  static const std::array<GpuModel, 5> models = {make_t4(), make_a100(), make_rtx4090(), make_h100(),
                                                 make_h200()};
  return models;
}

// Lower case, with spaces, dashes and underscores dropped: "RTX-4090" -> "rtx4090".
std::string canonical(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '-' && c != '_' && c != ' ') out += char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::span<const GpuModel> all_gpu_models() { return table(); }

const GpuModel& gpu_model(std::string_view name) {
  struct Alias {
    const char* alias;
    int index;
  };
  static const Alias aliases[] = {
      {"t4", 0},        {"teslat4", 0},    {"nvidiat4", 0},
      {"a100", 1},      {"a10080gb", 1},   {"a100sxm", 1},     {"a100sxm4", 1}, {"a100sxm480gb", 1},
      {"rtx4090", 2},   {"4090", 2},       {"geforcertx4090", 2}, {"ad102", 2},
      {"h100", 3},      {"h100sxm", 3},    {"h100sxm5", 3},    {"h100sxm580gb", 3},
      {"h200", 4},      {"h200sxm", 4},
  };
  std::string key = canonical(name);
  for (const auto& a : aliases)
    if (key == a.alias) return table()[size_t(a.index)];
  throw UnknownGpu("unknown GPU model '" + std::string(name) + "': choose one of " + gpu_model_names() +
                   " (case-insensitive; 4090 and rtx-4090 also work)");
}

const GpuModel& default_gpu() { return table()[3]; }

std::string gpu_model_names() {
  std::string s;
  for (const auto& m : table()) {
    if (!s.empty()) s += ", ";
    s += m.name;
  }
  return s;
}

}  // namespace lab::sim
