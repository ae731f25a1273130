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
//  [LAB-H200] The lab's own microbenchmarks on an NVIDIA H200, 2026-11-26
//         (docs/fidelity/h200/mech-cuda-2.json, `gpulab bench mechanisms --backend cuda`).
//  [LAB-H100] The same on an NVIDIA H100 80GB HBM3 (SXM), 2026-11-27
//         (docs/fidelity/h100/mech-cuda-memory.json: chase, stream, hiding).
//  [H100P] NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe column (114 SMs,
//         1755 MHz, 2.0 TB/s HBM2e, 51 TFLOPS FP32, 756 TFLOPS FP16 dense).
//  [GB]   D. Ernst, te42kyfo/gpu-benches (Ernst et al., JPDC 2023), raw data:
//         gpu-latency/h100_pcie.txt and a100_80.txt (pointer chases on an
//         H100 PCIe at 1755 MHz and an A100 80GB at 1410 MHz) and
//         gpu-stream/*.txt (STREAM at full occupancy).
//  [V100] NVIDIA Tesla V100 GPU Architecture whitepaper (2017, Table 1: Tesla
//         V100 SXM2) and the NVIDIA V100 Tensor Core GPU datasheet (SXM2 16/32 GB).
//  [GA102] NVIDIA Ampere GA102 GPU Architecture whitepaper v2.1 (2021),
//         Appendix A tables (GeForce RTX 3090, NVIDIA RTX A6000, NVIDIA A10).
//  [3090] NVIDIA GeForce RTX 3090 product specifications page.
//  [A6000] NVIDIA RTX A6000 datasheet (2021).
//  [A10]  NVIDIA A10 Tensor Core GPU datasheet (2021).
//  [L4]   NVIDIA L4 Tensor Core GPU datasheet (2023).
//  [L40S] NVIDIA L40S GPU datasheet (2023) and the Ada whitepaper [ADA] (AD102 SM).
//  [MB-V] Jia, Maggioni, Staiger, Scarpazza, "Dissecting the NVIDIA Volta GPU
//         Architecture via Microbenchmarking" (arXiv:1804.06826, 2018): V100
//         latencies (shared ~19, L2 hit ~193 cycles, global ~400 cycles) and
//         measured L2 bandwidth (~2155 GB/s).
//  Where no microbenchmark of a chip was found (GA102, AD104, the L40S's
//  AD102), latencies are the same SM generation's in this table ([MB]'s
//  rounded Ampere figures for GA102: the A100's own are now its part's
//  chase, [GB]; the RTX 4090's for Ada), and the L2 bandwidth is the
//  RTX 4090's measured 16 B/clk per SM times the SM count; each such line says so.
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
  m.memory_bus_bits = 256;                            // [T4] 256-bit GDDR6
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
  m.memory_bus_bits = 5120;                           // [A100] 5120-bit HBM2e
  m.dram_stream_bytes_per_s = 1759 * G;           // [GB] gpu-stream/a100_80.txt triad
  m.dram_stream_source = "[GB] A100 80GB triad 1759 GB/s measured";
  m.l2_bytes = 40 * MiB;                          // [A100] whitepaper: 40 MB L2
  m.l2_bytes_per_clock = 5120;                    // [A100] whitepaper: L2 read bandwidth 5120 B/clk
  m.host_bytes_per_s = 32 * G;                    // [A100] PCIe Gen4: 64 GB/s both directions
  m.nvlink_bytes_per_s = 300 * G;                 // [A100] datasheet SXM: NVLink 600 GB/s (both directions)
  // [GB] gpu-latency/a100_80.txt, a pointer chase on this part (A100 80GB,
  // 1410 MHz): 211 cycles from 216 KB to 15 MB (L2 hits), 568-572 from 69 MB
  // on (DRAM). Were [MB]'s rounded Ampere figures, 260 and 470 (the chase
  // rows read 22% slow and 18% fast against them).
  m.dram_latency_cycles = 572;
  m.l2_latency_cycles = 211;
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
  m.memory_bus_bits = 384;                            // [ADA] 384-bit
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
  // The architecture-specific target (PTX ISA "sm_90a"): the same code as
  // sm_90 for every instruction, plus wgmma and setmaxnreg, which exist only
  // there, so the GEMM progression's Hopper versions compile for the model.
  m.sm_arch = "sm_90a", m.ptx_target = "compute_90a";
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
  m.memory_bus_bits = 5120;                           // [H100] 5120-bit HBM3 (five stacks)
  // The lab's STREAM kernels on an H100 SXM (docs/fidelity/h100/mech-cuda-memory.json):
  // copy 2941, scale 2926, add 2911, triad 2933 GB/s. (Was 3069: the H100
  // PCIe's measured 1832 of 2000 GB/s [GB], applied to the SXM's 3350.)
  m.dram_stream_bytes_per_s = 2941 * G;
  m.dram_stream_source = "[LAB-H100] STREAM copy 2941 GB/s measured by the lab on an H100 SXM";
  // [LAB-H100] bench mechanisms' dram rows on an H100 SXM
  // (docs/fidelity/h100/mech-cuda-dram.json, 2026-11-27): reads level off
  // at 2774-2778 GB/s from 32 KB in flight per SM on (1x16, 2x16, 4x16 B
  // per thread); write-only 3202 GB/s (1x16 B). The same run's STREAM copy
  // 2880 and triad 2936 GB/s lie where one queue that takes reads at the
  // one rate and writes at the other puts them (2973 and 2904).
  m.dram_read_bytes_per_s = 2777 * G;
  m.dram_write_bytes_per_s = 3202 * G;
  // [LAB-H100] the same sweep at 4 B in flight per thread (8 KB per SM):
  // 2094 GB/s, so by Little's law (132 x 8 KB in flight) a load takes
  // 1022 cycles at u = 2094 / 3350 = 0.63 against the unloaded 687:
  // S = 335 x (1 - u) / u = 201 cycles (the H200's sweep gives 198).
  m.dram_queue_cycles = 201;
  m.l2_bytes = 50 * MiB;                          // [H100] whitepaper: 50 MB L2
  // [LAB-H100] L2 hits on this part: a full grid reading 16 MB past the L1
  // (kernels/mechanisms/l2_read.cu, grid 528 x 256), 2, 10 and 34 passes in
  // 13.3, 30.7 and 83.9 us (medians of 10, docs/fidelity/h100/l2-atomics.txt):
  // the 24 passes beyond 10 read 24 x 16 MiB / 53.2 us = 7.57 TB/s,
  // 7.57e12 / 1.98e9 = 3823 B/clk. The H200 reads its L2 faster (4512 B/clk,
  // make_h200); the H100 PCIe's published sweep ([GB] gpu-l2-cache/h100_pcie.txt,
  // ~7000 GB/s at 8-16 MB, 1755 MHz, 114 SMs) sits near the H200's per SM.
  // (Was the H200's 4512 until 2026-11-28: bench mechanisms' H100 stream/L2
  // read row came out +21% against this part's 6996 GB/s.)
  m.l2_bytes_per_clock = 3823;
  m.host_bytes_per_s = 64 * G;                    // [H100] PCIe Gen5: 128 GB/s both directions
  m.nvlink_bytes_per_s = 450 * G;                 // [H100] datasheet SXM: NVLink 900 GB/s (both directions)
  // [LAB-H100] pointer chases on an H100 SXM, 64 MB at 4 KB steps and 2 MB
  // (docs/fidelity/h100/mech-cuda-memory.json): 687.4 and 280.4 cycles, as
  // on the H200 (685, 280). Were [MB]'s 480 and 260 ([LUO24]'s H800).
  m.dram_latency_cycles = 687;
  m.l2_latency_cycles = 280;
  // [LAB-H100] the same sweep's L1 row, 16 KB at 128-byte steps: 36.4
  // cycles from load to use (the chain's four dependent integer latencies
  // taken off). The model's chase issues the chain as the sm_90 SASS does
  // (ptxas unrolls its loop by four: cycle/unroll.h) and gives this row
  // 0.8 cycles under its L1 input, so 37 reproduces it. (Was 33, [LUO24]'s
  // "33-40" range for Hopper, 11% under the part's own figure.)
  m.l1_latency_cycles = 37;
  // [LAB-H100] bench mechanisms' atomics row, every thread of 132 x 256
  // adding 1 to one address 8 times (REDG.E.ADD, no return): 0.69 updates
  // per clock on an H100 SXM (docs/fidelity/h100/l2-atomics.txt) and on an
  // H200 (0.689, 0.690: docs/fidelity/h200/mech-cuda-2.json, mech-cuda.json).
  // Was [KEP]'s one per clock, Kepler's figure.
  m.same_address_atomics_per_clock = 0.69;
  // [LAB-H100] an empty launch (kernels/mechanisms/chase.cu, one thread, no
  // steps) timed with CUDA events as the lab times every kernel (median of
  // 10 after warm-ups): 3.12, 3.22, 3.25, 3.22 us in four runs
  // (docs/fidelity/h100/mech-cuda-*.json launch_floor_ms), median 3.22 us;
  // the model gives that kernel 17 cycles (0.01 us). Was the lab's 2 us.
  m.launch_overhead_s = 3.21e-6;
  // [LAB-H100] floating-point adds to one address are slower: lesson 9's
  // sum_atomic, 4,194,304 atomicAdd(float*, float) to one word
  // (REDG.E.ADD.F32.FTZ.RN in the sm_90 SASS), took 7.388 ms on an H100 SXM
  // and 7.372 ms on an H200 (`gpulab lesson 09 --before-after --backend
  // cuda`: docs/fidelity/h100/before-after-02-10.txt,
  // docs/fidelity/h200/before-after.txt): 0.287 per clock at 1.98 GHz on
  // both, against 0.69 for the integer add above.
  m.same_address_float_adds_per_clock = 0.287;
  // [LAB-H200] bench mechanisms' blocks rows on an H200 (GH100, this part's
  // chip; docs/fidelity/h200/mech-cuda-blocks-{1,2}.json): nearly empty
  // 128-thread blocks cost 152 and 156 cycles per block per SM more from 32
  // to 64 blocks per SM (two runs), the same for 32- and 256-thread blocks,
  // so a block is placed every 154/132 cycles, GPU-wide: 0.86 per clock.
  // Nsight Compute agrees (docs/fidelity/h200/ncu-blocks.csv: 4,224 more
  // blocks in 2,400 ns, 0.89 per clock) and shows the SMs idle half the
  // launch: the limit is the scheduler that deals blocks out, not the SMs.
  // One block per SM already costs 190-222 cycles over an empty launch.
  m.blocks_dispatched_per_clock = 0.86;
  // [LAB-H200] tools/block_probe on an H200 (docs/fidelity/h200/block-probe.txt,
  // two runs): with one block resident per SM, the SM's clock reads 354-356
  // cycles from a block's last stamp (its thread 0, after its closing
  // __syncthreads) to the first of the next block placed there, for 32-,
  // 128- and 1024-thread blocks and blocks with or without work: retiring a
  // block and starting the next costs that, a slot's time the SM cannot use.
  // (The model's own few cycles from that stamp to the retirement, thread
  // 0's stores and exit, are inside the figure.)
  m.block_turnaround_cycles = 355;
  // [LAB-H200] bench mechanisms' stride rows on an H200 (useful GB/s, the
  // mean of docs/fidelity/h200/mech-cuda.json and mech-cuda-2.json): stride
  // 8 (every 32-byte sector of a line used) 704, stride 16 (every other
  // sector) 391: 1.80x, where moving the requested sectors alone gives 1x
  // and moving 64 bytes for each gives 68 / 36 = 1.89x (the copy's 4
  // written sectors a request included). A missed read sector comes with its
  // 64-byte neighbour. (The driver's cudaLimitMaxL2FetchGranularity hint is
  // the same setting; tools/l2_fetch_probe reads it and sweeps it.)
  m.l2_fetch_bytes = 64;
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
  // [LAB-H200] L2 hits on the H200: a full grid reading 16 MB past the L1,
  // 8 passes beyond 2 (the difference of two runs,
  // docs/fidelity/h200/mech-cuda-l2-difference.json): 8934 GB/s,
  // 8934e9 / 1.98e9 = 4512 B/clk. bench mechanisms' stream/L2 read row holds it.
  m.l2_bytes_per_clock = 4512;
  m.name = "H200";
  m.full_name = "NVIDIA H200 SXM 141GB";
  // [LAB-H200] bench mechanisms' chase/L1 row on an H200
  // (docs/fidelity/h200/mech-cuda-2.json): 30.3 cycles, where the H100 SXM
  // gave 36.4 on the same kernel; each part keeps its own measured figure
  // (31 reproduces it, as 37 the H100's). The two runs' difference is not
  // explained: the SM is the same die.
  m.l1_latency_cycles = 31;
  m.dram_bytes = 141 * GB;                        // [H200] 141 GB HBM3e
  m.dram_bytes_per_s = 4800 * G;                  // [H200] 4.8 TB/s
  m.memory_bus_bits = 6144;                           // [H200] 6144-bit HBM3e (six stacks)
  // The lab's STREAM kernels on an H200 (docs/fidelity/h200/mech-cuda-2.json,
  // `gpulab bench mechanisms --backend cuda`): copy 4072, triad 4081 GB/s.
  // [GB]'s gpu-stream/h200.txt triad is lower (3534 GB/s).
  m.dram_stream_bytes_per_s = 4072 * G;
  m.dram_stream_source = "[LAB-H200] STREAM copy 4072 GB/s measured by the lab on an H200";
  // [LAB-H200] bench mechanisms' dram rows on an H200
  // (docs/fidelity/h200/mech-cuda-dram.json, 2026-11-27): reads level off
  // at 3786-3874 GB/s (2x16, 4x16, 8x16 B per thread), write-only 4361 GB/s
  // (1x16 B); the same run's copy 4090 GB/s. At 4 B in flight per thread
  // 2417 GB/s: 886 cycles a load at u = 0.50 against the unloaded 685, S = 198.
  m.dram_read_bytes_per_s = 3842 * G;
  m.dram_write_bytes_per_s = 4361 * G;
  m.dram_queue_cycles = 198;
  m.nvlink_bytes_per_s = 450 * G;                 // [H200] datasheet SXM: NVLink 900 GB/s, PCIe Gen5 128 GB/s
  m.dram_latency_cycles = 685;                    // [LAB-H200] pointer chase, 64 MB at 4 KB steps: 685 cycles
  m.l2_latency_cycles = 280;                      // [LAB-H200] pointer chase, 2 MB: 280 cycles
  // [LAB-H200] the same empty launch on the H200, seven runs: 2.78-2.98 us
  // (docs/fidelity/h200/mech-cuda*.json launch_floor_ms), median 2.88 us.
  m.launch_overhead_s = 2.87e-6;
  return m;
}

GpuModel make_h100_pcie() {
  // The PCIe card: the same GH100 SM with 114 SMs enabled, a lower clock and
  // HBM2e. The lab's tables measured on an H100 PCIe (docs/fidelity.md) run on it.
  GpuModel m = make_h100();
  m.name = "H100-PCIe";
  m.full_name = "NVIDIA H100 PCIe 80GB";
  m.sm_count = 114;                               // [H100P] 14,592 FP32 cores / 128 per SM
  m.boost_clock_hz = 1755e6;                      // [H100P] max boost 1755 MHz: 114 x 128 x 2 x 1.755 GHz = 51.2 TFLOPS
  m.dram_bytes_per_s = 2000 * G;                  // [H100P] 2.0 TB/s HBM2e
  m.memory_bus_bits = 5120;                           // [H100P] 5120-bit HBM2e
  m.dram_stream_bytes_per_s = 1832 * G;           // [GB] gpu-stream/h100_pcie.txt triad
  m.dram_stream_source = "[GB] H100 PCIe triad 1832 GB/s measured";
  // No read/write split or loaded latency measured on the PCIe card: one
  // rate (the triad's) and the unloaded latency. The SXM's do not carry
  // over: [GB]'s read kernel reaches 1942 GB/s here, 97% of the rated
  // 2000 against the SXM's 83% (HBM2e, not HBM3).
  m.dram_read_bytes_per_s = m.dram_write_bytes_per_s = 0;
  m.dram_queue_cycles = 0;
  m.nvlink_bytes_per_s = 300 * G;                 // [H100P] NVLink bridge 600 GB/s (both directions)
  m.dram_latency_cycles = 640;                    // [GB] gpu-latency/h100_pcie.txt: DRAM ~626-658 cycles
  // launch_overhead_s: the SXM's measured empty launch (no PCIe card's was measured).
  m.l2_latency_cycles = 265;                      // [GB] gpu-latency/h100_pcie.txt: L2 hit ~265 cycles
  // The H200's per-SM figure (the L2 slices serve the SMs): 6839 GB/s at
  // 1755 MHz, against [GB] gpu-l2-cache/h100_pcie.txt's ~7000 at 8-16 MB.
  m.l2_bytes_per_clock = 4512 * 114 / 132;
  m.fp32_flops = 51 * T;                          // [H100P] 51 TFLOPS
  m.fp64_flops = 26 * T;                          // [H100P] 26 TFLOPS
  m.fp16_tensor_flops = 756 * T;                  // [H100P] 1513 with sparsity, 756 dense
  m.bf16_tensor_flops = 756 * T;                  // [H100P] same as FP16
  m.tf32_tensor_flops = 378 * T;                  // [H100P] 756 with sparsity
  m.int8_tensor_ops = 1513 * T;                   // [H100P] 3026 with sparsity
  return m;
}


GpuModel make_v100() {
  GpuModel m;
  m.name = "V100";
  m.full_name = "NVIDIA Tesla V100 SXM2 32GB";
  m.architecture = "Volta";
  m.cc_major = 7, m.cc_minor = 0;                 // [PG]
  // CUDA 13.0, the lab's toolkit, dropped sm_70 as a compilation target
  // (CUDA 13.0 release notes: Maxwell, Pascal and Volta removed from
  // NVRTC/ptxas). Kernels are compiled for sm_75, the nearest target of the
  // same SM 7.x instruction set, and ptxas's register counts are sm_75's;
  // limits and occupancy use compute capability 7.0 above.
  m.sm_arch = "sm_75", m.ptx_target = "compute_75";
  m.sm_count = 80;                                // [V100] Table 1: 80 SMs (5120 FP32 cores)
  m.boost_clock_hz = 1530e6;                      // [V100] Table 1: GPU boost clock 1530 MHz
  m.max_warps_per_sm = 64;                        // [PG] cc 7.0: 2048 threads per SM
  m.max_threads_per_sm = 2048;
  m.max_blocks_per_sm = 32;                       // [PG] cc 7.0, [OCC]
  m.max_regs_per_thread = 255;                    // [PG]
  m.shared_per_sm = 96 * KiB;                     // [PG] cc 7.0: 96 KB
  m.shared_per_block_optin = 96 * KiB;            // [PG] cc 7.0: 96 KB with opt-in
  m.reserved_shared_per_block = 0;                // [PG] reservation starts at cc 8.0
  m.shared_alloc_granularity = 256;               // [OCC] cc 7.x
  m.fp32_lanes_per_sm = 64;                       // [V100] Volta SM: 64 FP32 cores
  m.fp64_lanes_per_sm = 32;                       // [V100] Volta SM: 32 FP64 cores
  m.int32_lanes_per_sm = 64;                      // [V100] Volta SM: 64 INT32 cores
  m.sfu_lanes_per_sm = 16;                        // [V100] SM diagram: 4 SFU per partition
  m.lsu_lanes_per_sm = 32;                        // [V100] SM diagram: 8 LD/ST per partition
  m.dram_bytes = 32 * GB;                         // [V100] datasheet: 32 GB HBM2 (16 GB model: V100-16GB)
  m.dram_bytes_per_s = 900 * G;                   // [V100] 900 GB/s HBM2
  m.memory_bus_bits = 4096;                           // [V100] 4096-bit HBM2
  m.dram_stream_bytes_per_s = 814 * G;            // [GB] gpu-stream/v100.txt triad (V100 PCIe, the same 900 GB/s HBM2)
  m.dram_stream_source = "[GB] V100 triad 814 GB/s measured";
  m.l2_bytes = 6 * MiB;                           // [V100] Table 1: 6144 KB L2
  m.l2_bytes_per_clock = 1408;                    // [MB-V] 2155 GB/s measured / 1.53 GHz
  m.host_bytes_per_s = 16 * G;                    // PCIe Gen3 x16 host link, one direction (NVLink is GPU-GPU)
  m.nvlink_bytes_per_s = 150 * G;                 // [V100] datasheet SXM2: NVLink 300 GB/s (both directions)
  m.dram_latency_cycles = 400;                    // [MB-V] global memory, TLB hit
  m.l2_latency_cycles = 193;                      // [MB-V]
  m.shared_latency_cycles = 19;                   // [MB-V]
  m.fp32_flops = 15.7 * T;                        // [V100] SXM2: 15.7 TFLOPS
  m.fp64_flops = 7.8 * T;                         // [V100] SXM2: 7.8 TFLOPS
  m.fp16_tensor_flops = 125 * T;                  // [V100] SXM2: 125 tensor TFLOPS (FP16 in, FP32 accumulate)
  m.bf16_tensor_flops = 0;                        // no BF16 tensor cores before Ampere
  m.tf32_tensor_flops = 0;                        // no TF32 before Ampere
  m.int8_tensor_ops = 0;                          // Volta tensor cores have no INT8 mode (dp4a is not a tensor op)
  return m;
}

GpuModel make_v100_16gb() {
  // The 16 GB V100 SXM2 differs from the 32 GB one only in capacity.
  GpuModel m = make_v100();
  m.name = "V100-16GB";
  m.full_name = "NVIDIA Tesla V100 SXM2 16GB";
  m.dram_bytes = 16 * GB;                         // [V100] datasheet: 16 GB HBM2
  return m;
}

// The GA102 cards share the cc 8.6 SM: 128 FP32 lanes (64 dedicated + 64
// shared with INT32), 2 FP64 units (1/64 rate), 4 LD/ST and 4 SFU per partition.
GpuModel ga102_common() {
  GpuModel m;
  m.architecture = "Ampere";
  m.cc_major = 8, m.cc_minor = 6;                 // [PG]
  m.sm_arch = "sm_86", m.ptx_target = "compute_86";
  m.max_warps_per_sm = 48;                        // [PG] cc 8.6: 1536 threads per SM
  m.max_threads_per_sm = 1536;
  m.max_blocks_per_sm = 16;                       // [PG] cc 8.6, [OCC]
  m.max_regs_per_thread = 255;
  m.shared_per_sm = 100 * KiB;                    // [PG] cc 8.6: 100 KB
  m.shared_per_block_optin = 99 * KiB;            // [PG] cc 8.6: 99 KB per block
  m.reserved_shared_per_block = 1 * KiB;          // [PG]
  m.shared_alloc_granularity = 128;               // [OCC]
  m.fp32_lanes_per_sm = 128;                      // [GA102] SM: 128 FP32 cores
  m.fp64_lanes_per_sm = 2;                        // [GA102] 2 FP64 units per SM (1/64 of FP32)
  m.int32_lanes_per_sm = 64;                      // [GA102] 16 INT32 per partition
  m.sfu_lanes_per_sm = 16;                        // [GA102] SM diagram: 4 SFU per partition
  m.lsu_lanes_per_sm = 16;                        // [GA102] SM diagram: 4 LD/ST per partition
  m.l2_bytes = 6 * MiB;                           // [GA102] 6144 KB L2 (full GA102)
  m.host_bytes_per_s = 32 * G;                    // PCIe Gen4 x16, one direction
  m.dram_latency_cycles = 470;                    // [MB] Ampere (no GA102 chase found; see header)
  m.l2_latency_cycles = 260;                      // [MB] Ampere (see header)
  m.shared_latency_cycles = 30;                   // [MB] Ampere (see header)
  return m;
}

GpuModel make_rtx3090() {
  GpuModel m = ga102_common();
  m.name = "RTX3090";
  m.full_name = "NVIDIA GeForce RTX 3090 (GA102, 24 GB GDDR6X)";
  m.sm_count = 82;                                // [GA102] Appendix A: 82 SMs (10496 CUDA cores)
  m.boost_clock_hz = 1695e6;                      // [3090] boost clock 1.70 GHz; [GA102] 1695 MHz
  m.dram_bytes = 24 * GB;                         // [3090] 24 GB GDDR6X
  m.dram_bytes_per_s = 936 * G;                   // [GA102] 936 GB/s (19.5 Gbps, 384-bit)
  m.memory_bus_bits = 384;                            // [GA102] 384-bit
  m.l2_bytes_per_clock = 1312;                    // 16 B/clk/SM x 82 (see header)
  m.fp32_flops = 35.6 * T;                        // [GA102] peak FP32 35.6 TFLOPS
  m.fp64_flops = 0.556 * T;                       // 82 SM x 2 x 2 x 1.695 GHz (1/64 of FP32)
  m.fp16_tensor_flops = 71 * T;                   // [GA102] FP16 with FP32 accumulate: 71 dense
                                                  //         (142 with FP16 accumulate)
  m.bf16_tensor_flops = 71 * T;                   // [GA102] BF16 (FP32 accumulate) 71 dense
  m.tf32_tensor_flops = 35.6 * T;                 // [GA102] TF32 35.6 dense
  m.int8_tensor_ops = 284 * T;                    // [GA102] INT8 284 dense
  return m;
}

GpuModel make_a6000() {
  GpuModel m = ga102_common();
  m.name = "A6000";
  m.full_name = "NVIDIA RTX A6000 (GA102, 48 GB GDDR6)";
  m.sm_count = 84;                                // [A6000] 10752 CUDA cores / 128 per SM
  m.boost_clock_hz = 1800e6;                      // [GA102] RTX A6000 boost clock 1800 MHz
  m.dram_bytes = 48 * GB;                         // [A6000] 48 GB GDDR6 with ECC
  m.dram_bytes_per_s = 768 * G;                   // [A6000] 768 GB/s
  m.memory_bus_bits = 384;                            // [A6000] 384-bit GDDR6
  m.l2_bytes_per_clock = 1344;                    // 16 B/clk/SM x 84 (see header)
  m.fp32_flops = 38.7 * T;                        // [A6000] single precision 38.7 TFLOPS
  m.fp64_flops = 0.605 * T;                       // 84 SM x 2 x 2 x 1.8 GHz (1/64 of FP32)
  m.fp16_tensor_flops = 154.8 * T;                // [A6000] tensor 309.7 TFLOPS with sparsity, 154.8 dense;
                                                  //   professional GA102: FP32 accumulate at full rate [GA102]
  m.bf16_tensor_flops = 154.8 * T;                // [GA102] same rate as FP16
  m.tf32_tensor_flops = 77.4 * T;                 // [GA102] half the FP16 rate
  m.int8_tensor_ops = 309.7 * T;                  // [GA102] twice the FP16 rate, dense
  return m;
}

GpuModel make_a10() {
  GpuModel m = ga102_common();
  m.name = "A10";
  m.full_name = "NVIDIA A10 (GA102, 24 GB GDDR6)";
  m.sm_count = 72;                                // [A10] 9216 CUDA cores / 128 per SM
  m.boost_clock_hz = 1695e6;                      // [GA102] A10 boost clock 1695 MHz
  m.dram_bytes = 24 * GB;                         // [A10] 24 GB GDDR6
  m.dram_bytes_per_s = 600 * G;                   // [A10] 600 GB/s
  m.memory_bus_bits = 384;                            // [A10] 384-bit GDDR6
  m.l2_bytes_per_clock = 1152;                    // 16 B/clk/SM x 72 (see header)
  m.fp32_flops = 31.2 * T;                        // [A10] FP32 31.2 TFLOPS
  m.fp64_flops = 0.488 * T;                       // 72 SM x 2 x 2 x 1.695 GHz (1/64 of FP32)
  m.fp16_tensor_flops = 125 * T;                  // [A10] FP16 tensor 125 dense (250 with sparsity)
  m.bf16_tensor_flops = 125 * T;                  // [A10] BF16 tensor 125 dense
  m.tf32_tensor_flops = 62.5 * T;                 // [A10] TF32 62.5 dense
  m.int8_tensor_ops = 250 * T;                    // [A10] INT8 250 dense
  return m;
}

// The Ada cards share the cc 8.9 SM of the RTX 4090 entry above.
GpuModel ada_common() {
  GpuModel m = make_rtx4090();
  m.lsu_lanes_per_sm = 16;                        // [ADA] SM diagram: 4 LD/ST per partition
  return m;
}

GpuModel make_l4() {
  GpuModel m = ada_common();
  m.name = "L4";
  m.full_name = "NVIDIA L4 (AD104, 24 GB GDDR6)";
  m.sm_count = 58;                                // [L4] 7424 CUDA cores / 128 per SM
  m.boost_clock_hz = 2040e6;                      // [L4] max boost 2040 MHz
  m.dram_bytes = 24 * GB;                         // [L4] 24 GB GDDR6
  m.dram_bytes_per_s = 300 * G;                   // [L4] 300 GB/s
  m.memory_bus_bits = 192;                            // [L4] 192-bit GDDR6
  m.l2_bytes = 48 * MiB;                          // [L4] 48 MB L2
  m.l2_bytes_per_clock = 928;                     // 16 B/clk/SM x 58 (see header)
  m.host_bytes_per_s = 32 * G;                    // [L4] PCIe Gen4 x16: 64 GB/s both directions
  m.fp32_flops = 30.3 * T;                        // [L4] FP32 30.3 TFLOPS
  m.fp64_flops = 0.473 * T;                       // 58 SM x 2 x 2 x 2.04 GHz (1/64 of FP32)
  m.fp16_tensor_flops = 121 * T;                  // [L4] FP16 tensor 242 with sparsity, 121 dense
  m.bf16_tensor_flops = 121 * T;                  // [L4] BF16 tensor 242 with sparsity
  m.tf32_tensor_flops = 60 * T;                   // [L4] TF32 120 with sparsity
  m.int8_tensor_ops = 242.5 * T;                  // [L4] INT8 485 with sparsity
  return m;
}

GpuModel make_l40s() {
  GpuModel m = ada_common();
  m.name = "L40S";
  m.full_name = "NVIDIA L40S (AD102, 48 GB GDDR6)";
  m.sm_count = 142;                               // [L40S] 18176 CUDA cores / 128 per SM
  m.boost_clock_hz = 2520e6;                      // [L40S] max boost 2520 MHz
  m.dram_bytes = 48 * GB;                         // [L40S] 48 GB GDDR6 with ECC
  m.dram_bytes_per_s = 864 * G;                   // [L40S] 864 GB/s
  m.memory_bus_bits = 384;                            // [L40S] 384-bit GDDR6
  m.l2_bytes = 96 * MiB;                          // [L40S] 96 MB L2
  m.l2_bytes_per_clock = 2272;                    // 16 B/clk/SM x 142 (see header)
  m.host_bytes_per_s = 32 * G;                    // [L40S] PCIe Gen4 x16: 64 GB/s both directions
  m.fp32_flops = 91.6 * T;                        // [L40S] FP32 91.6 TFLOPS
  m.fp64_flops = 1.43 * T;                        // 142 SM x 2 x 2 x 2.52 GHz (1/64 of FP32)
  m.fp16_tensor_flops = 362.05 * T;               // [L40S] FP16 733 with sparsity, 362.05 dense
                                                  //   (data-center Ada: FP32 accumulate at full rate)
  m.bf16_tensor_flops = 362.05 * T;               // [L40S] BF16 362.05 dense
  m.tf32_tensor_flops = 183 * T;                  // [L40S] TF32 366 with sparsity
  m.int8_tensor_ops = 733 * T;                    // [L40S] INT8 1466 with sparsity
  return m;
}

// Appended in the order they came; indices are used by the alias table below.
const std::array<GpuModel, 13>& table() {
  static const std::array<GpuModel, 13> models = {make_t4(),      make_a100(),  make_rtx4090(), make_h100(),
                                                  make_h200(),    make_v100(),  make_v100_16gb(), make_rtx3090(),
                                                  make_a6000(),   make_a10(),   make_l4(),      make_l40s(), make_h100_pcie()};
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
      {"v100", 5},      {"v100sxm2", 5},   {"v10032gb", 5},    {"v100sxm232gb", 5}, {"teslav100", 5},
      {"v10016gb", 6},  {"v100sxm216gb", 6},
      {"rtx3090", 7},   {"3090", 7},       {"geforcertx3090", 7},
      {"a6000", 8},     {"rtxa6000", 8},   {"nvidiartxa6000", 8},
      {"a10", 9},       {"nvidiaa10", 9},  {"a1024gb", 9},
      {"l4", 10},       {"nvidial4", 10},
      {"l40s", 11},     {"nvidial40s", 11},
      {"h100pcie", 12}, {"h100pcie80gb", 12},
  };
  std::string key = canonical(name);
  for (const auto& a : aliases)
    if (key == a.alias) return table()[size_t(a.index)];
  throw UnknownGpu("unknown GPU model '" + std::string(name) + "': choose one of " + gpu_model_names() +
                   " (case-insensitive; 4090, rtx-4090, 3090, rtx-a6000 also work)");
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
