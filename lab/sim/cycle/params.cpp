// lab/sim/cycle/params.cpp: the cycle model's figures per GPU model.
//
// Throughputs come from the datasheet figures already in device.cpp (lanes
// per SM, peak tensor rates, DRAM and L2 bandwidth). Latencies NVIDIA does
// not publish; they are microbenchmark results, rounded, +-20%:
//  [JIA18] Jia, Maggioni, Staiger, Scarpazza, "Dissecting the NVIDIA Volta
//          GPU Architecture via Microbenchmarking" (2018): V100 L1 hit 28
//          cycles, shared 19, L2 hit ~193, FFMA/IADD 4, DFMA 8.
//  [JIA19] Jia, Maggioni, Smith, Scarpazza, "Dissecting the NVidia Turing T4
//          GPU via Microbenchmarking" (2019): T4 L1 hit 32, shared 19-22,
//          L2 ~188.
//  [ABD22] Abdelkhalik, Arafa, Santhi, Badawy, "Demystifying the Nvidia
//          Ampere Architecture through Microbenchmarking and Instruction-level
//          Analysis" (2022): A100 dependent add.f32/fma 4 cycles (2 when
//          independent), L1 hit ~33, mma/wmma latencies of a few tens of cycles.
//  [LUO24] Luo et al., "Benchmarking and Dissecting the Nvidia Hopper GPU
//          Architecture" (IPDPS 2024): H800/A100/RTX4090 L1 ~33-40, L2
//          ~260-270, global ~470-540 cycles (the figures device.cpp carries).
//  [LUO25] Luo et al., "Dissecting the NVIDIA Hopper Architecture through
//          Microbenchmarking and Multiple Level Analysis" (arXiv:2501.12084,
//          2025): on H800, dense FP16 mma.sync m16n8k16 reaches 494.4 of the
//          756.5 TFLOP/s peak (65.3%), wgmma m64n256k16 729.3 (96.4%); "mma
//          instructions on Hopper can only attain an average of 62.9% of the
//          theoretical peak".
//  [GB]    D. Ernst, te42kyfo/gpu-benches (gpu-stream, data of Ernst et al.,
//          JPDC 2023): STREAM triad at full occupancy, V100 PCIe 814 GB/s of
//          900 (90%), A100 80GB 1759 of 2039 (86%), H100 PCIe 1832 of 2000
//          (92%), H200 3534 of 4800 (74%).
//  [BS]    Deakin et al., BabelStream results (UoB-HPC/performance-portability,
//          2020): A100 40GB triad 1398.7 GB/s of 1555 (89.9%).
//  [AR19]  Arafa et al., "Low Overhead Instruction Latency Characterization
//          for NVIDIA GPGPUs" (HPEC 2019), raw output in
//          NMSU-PEARL/GPUs-ISA-Latencies: div.s32 (emulated) 71 cycles on
//          TITAN V (Volta), 79 on TITAN RTX (Turing).
//  [NSVSE] NVIDIA Nsight Visual Studio Edition, "Achieved IOPs": "Integer
//          division and modulo operation are costly: ... below 20
//          instructions on devices of compute capability 2.x and higher".
//  [LAB-H200] The lab's own microbenchmarks run on an NVIDIA H200 (GH100,
//          the H100's SM; 2026-11-26): `gpulab bench mechanisms --backend
//          cuda`, recorded in docs/fidelity/h200/mech-cuda-2.json. WMMA
//          m16n16k16 reached 353.8 TFLOP/s where mma.sync m16n8k16, the same
//          kernel shape in the same run, reached 608.2: 0.582 of it.
//  [YKT-A] YKTian-x2b/AmpereArchViaMicroBenchMark (GitHub, 2023-24): an
//          sm_86 RTX 3060, one 1024-thread block, L1 hits (LDG, ld.global.ca)
//          63.6 B/clk/SM as LDG.32 and 124.7 as LDG.64; shared stores 62.8
//          as STS.32, 126.1 as STS.64, 114.0 as STS.128.
//  [WP]    NVIDIA whitepapers: unified L1/shared per SM 128 KB (Volta GV100),
//          96 KB (Turing), 192 KB (A100), 128 KB (Ada AD102), 256 KB (H100).
#include "lab/sim/cycle/params.h"

#include <algorithm>

#include "lab/sim/fragments.h"
#include "lab/sim/timing.h"

namespace lab::sim::cycle {

namespace {

struct ArchDefaults {
  int l1, fp64, sfu, tensor, unified_kb;
};

ArchDefaults arch_defaults(const GpuModel& g) {
  const int cc = g.cc_major * 10 + g.cc_minor;
  // {L1 hit, DFMA, MUFU, mma, unified L1+shared KB}
  if (cc < 75) return {28, 8, 18, 32, 128};    // Volta: [JIA18] L1 28, DFMA 8; [WP] 128 KB
  if (cc < 80) return {32, 48, 18, 32, 96};    // Turing: [JIA19] L1 32; FP64 at 1/32 rate is slow; [WP] 96 KB
  if (cc == 80) return {33, 8, 18, 32, 192};   // A100: [ABD22] L1 ~33, DFMA 8; [WP] 192 KB
  if (cc < 90) return {33, 48, 18, 32, 128};   // GA10x/Ada: [LUO24] L1 ~33 (RTX 4090); [WP] 128 KB
  // Hopper: [LUO24] L1 ~33-40; [WP] 256 KB; [LAB-H200] dependent mma.sync
  // m16n8k16 26.1 cycles (the model had 32, the Ampere figure).
  return {33, 8, 18, 26, 256};
}

}  // namespace

AchievableDram achievable_dram(const GpuModel& g) {
  const double rated = g.dram_bytes_per_s > 0 ? g.dram_bytes_per_s : 500e9;
  AchievableDram a;
  if (g.dram_stream_bytes_per_s > 0) {
    a.bytes_per_s = g.dram_stream_bytes_per_s;
    a.source = g.dram_stream_source;
  } else {
    // No STREAM figure found for this part (device.cpp): the median measured
    // fraction of rated peak over the parts that have one and [BS]'s A100 40GB
    // (0.86-0.92).
    a.bytes_per_s = rated * 0.90;
    a.source = "no measurement found: 90%, the median measured triad fraction ([GB], [BS])";
  }
  const bool split = g.dram_read_bytes_per_s > 0 && g.dram_write_bytes_per_s > 0;
  a.read_bytes_per_s = split ? g.dram_read_bytes_per_s : a.bytes_per_s;
  a.write_bytes_per_s = split ? g.dram_write_bytes_per_s : a.bytes_per_s;
  return a;
}

double launch_overhead(const GpuModel& g) {
  return g.launch_overhead_s > 0 ? g.launch_overhead_s : kUnmeasuredLaunchSeconds;
}

double warp_mma_fraction(const GpuModel& g, ptx::Type t) {
  if (g.cc_major < 9) return 1.0;  // before Hopper the datasheet peak is mma.sync's own
  return t == ptx::Type::F16 || t == ptx::Type::BF16 ? 494.4 / 756.5 : 0.629;  // [LUO25]
}

double wgmma_fraction(const GpuModel& g, uint32_t n) {
  if (g.cc_major < 9) return 1.0;
  // [LUO25] dense FP16 -> FP32 wgmma with both operands in shared memory on
  // H800, TFLOP/s of the 756.5 peak. With random operands (a GEMM's):
  // m64n256k16 665.4, m64n128k16 659.8, m64n64k16 648.3 (with zeros:
  // 728.5, 728.5, 719.6); narrower shapes, measured with zeros only:
  // m64n32k16 477.3, m64n16k16 287.0, m64n8k16 158.2 (the shared-memory
  // operand path limits them).
  const double tflops = n >= 256 ? 665.4 : n >= 128 ? 659.8 : n >= 64 ? 648.3 : n >= 32 ? 477.3 : n >= 16 ? 287.0 : 158.2;
  return tflops / 756.5;
}

static void sass_mma_flops(const GpuModel& g, double out[4]) {
  // The tensor instruction ptxas issues per architecture, read off its own
  // output (CUDA 13.0 ptxas, nvdisasm; kernels/ and lessons/13-attention/
  // tensor_core.cu compiled for each): sm_80, sm_89 and sm_90 make a
  // wmma.mma m16n16k16 .f16/.bf16 two HMMA.16816 (m16n8k16), .s8 two
  // IMMA.16816, m16n16k8 .tf32 four HMMA.1684 (m16n8k4); sm_75 makes the
  // m16n16k16 .f16 four HMMA.1688 (m16n8k8). CUDA 13 has no sm_70 (Volta):
  // unknown there, one SASS instruction per wmma.mma.
  for (int k = 0; k < 4; ++k) out[k] = 0;
  if (g.cc_major >= 8) {
    out[0] = 2.0 * 16 * 8 * 16;  // fp16/bf16
    out[1] = 2.0 * 16 * 8 * 4;   // tf32
    out[2] = 2.0 * 16 * 8 * 16;  // int8
  } else if (g.cc_major == 7 && g.cc_minor >= 5) {
    out[0] = 2.0 * 16 * 8 * 8;
  }
}

double wmma_rate_of_mma(const GpuModel& g) {
  return g.cc_major >= 9 ? 353.8 / 608.2 : 1.0;  // [LAB-H200]; no measurement before Hopper
}

namespace {
// wgmma_of_peak's index of an N: 0 for N < 16, 1 for 16 .. 31, ..., 5 for 256.
uint32_t wgmma_n_class(uint32_t n) {
  uint32_t c = 0;
  while (c < 5 && (16u << c) <= n) ++c;
  return c;
}
}  // namespace

int CycleParams::tensor_class(const ptx::Instr& in) {
  switch (in.type2 != ptx::Type::None ? in.type2 : in.type) {
    case ptx::Type::TF32: case ptx::Type::F32: return 1;
    case ptx::Type::S8: case ptx::Type::U8: case ptx::Type::E4M3: case ptx::Type::E5M2: case ptx::Type::B8: return 2;
    case ptx::Type::F64: return 3;
    default: return 0;
  }
}

double CycleParams::tensor_cycles(const ptx::Instr& in) const {
  const int k = tensor_class(in);
  const double peak = tensor_flops_per_cycle_smsp[k] > 0 ? tensor_flops_per_cycle_smsp[k] : tensor_flops_per_cycle_smsp[0];
  const double rate = in.op == ptx::Op::WgmmaMmaAsync
                          ? peak * wgmma_of_peak[wgmma_n_class(in.shape_n)]
                          : peak * warp_mma[k] * (in.op == ptx::Op::WmmaMma ? wmma_of_mma : 1.0);
  const double flops = double(frag::tensor_flops(in));
  return rate > 0 ? std::max(1.0, flops / rate) : 16.0;
}

CycleParams cycle_params(const GpuModel& g) {
  CycleParams p;
  const ArchDefaults d = arch_defaults(g);
  p.schedulers = std::max(1, g.warp_schedulers_per_sm);
  p.max_warps_per_sm = std::max(1, g.max_warps_per_sm);
  p.clock_hz = g.boost_clock_hz > 0 ? g.boost_clock_hz : 1.5e9;
  p.lat_fp32 = g.fp32_latency_cycles > 0 ? g.fp32_latency_cycles : 4;  // [JIA18], [ABD22]: 4 cycles dependent
  p.lat_int = g.int_latency_cycles > 0 ? g.int_latency_cycles : 4;     // [JIA18]: IADD3/IMAD 4 (IMAD 4-5)
  p.lat_fp64 = g.fp64_latency_cycles > 0 ? g.fp64_latency_cycles : d.fp64;
  p.lat_sfu = g.sfu_latency_cycles > 0 ? g.sfu_latency_cycles : d.sfu;
  p.lat_tensor = g.tensor_latency_cycles > 0 ? g.tensor_latency_cycles : d.tensor;
  // [LAB-H200] one warpgroup's chain of wgmma, commit, wait_group 0 (bench
  // mechanisms, dependent/wgmma; docs/fidelity/h200/mech-cuda-hopper.json):
  // 129.0 cycles per m64n128k16 and 213.0 per m64n256k16. The model's pipe
  // and operand time is 83 and 161 of them; 49 more fits both within 3%.
  p.lat_wgmma = 49;
  p.lat_shared = g.shared_latency_cycles > 0 ? g.shared_latency_cycles : 30;
  p.lat_l1 = g.l1_latency_cycles > 0 ? g.l1_latency_cycles : d.l1;
  p.lat_l2 = g.l2_latency_cycles > 0 ? g.l2_latency_cycles : 260;
  p.lat_dram = g.dram_latency_cycles > 0 ? g.dram_latency_cycles : 480;
  // [AR19] Turing's 79, Volta's 71; Hopper [LAB-H200]: a dependent
  // x = x / d + a link took 210 cycles on an H200 (CUDA 13's ptxas
  // sequence), 206 without the add. Ampere and Ada keep Volta's (no
  // measurement found).
  p.lat_int_div = g.cc_major == 7 && g.cc_minor == 5 ? 79 : g.cc_major >= 9 ? 206 : 71;
  p.int_div_instructions = 20;  // [NSVSE]: below 20 instructions
  // [LAB-SASS] ptxas 13.0's control codes (stall count, bits 105-108 of each
  // 128-bit instruction) for sm_75, sm_80, sm_86, sm_89 and sm_90: two of a
  // warp's LDG/LDS/STG/STS are never less than 4 cycles apart (a run of
  // loads carries stall 4 on each; between loads, the other instructions'
  // stalls add up to at least 4), in bench mechanisms' l1_hits.cu and the
  // GEMM versions. On an H200 one warp per SM with 16 independent L1 hits in
  // flight loads 0.087 a cycle, four warps (one per sub-partition) 0.341:
  // each sub-partition alike, so a warp's own spacing, not the SM's L1
  // (bench mechanisms' l1 rows, docs/fidelity.md). sm_70 is not in CUDA 13;
  // Volta is taken to be alike.
  p.lsu_issue_interval = 4;
  // [LAB-H200] A warp with a memory instruction waits (mio_throttle,
  // lg_throttle) while its queue holds this many instructions issued and
  // not yet started on the L1/shared data path (engine.cpp RequestQueue):
  // shared-memory instructions queue per sub-partition (Nsight Compute's
  // "MIO instruction queue", a stall each sub-partition's scheduler
  // reports), global and local ones in the SM's "L1 instruction queue for
  // local and global (LG) memory operations" (the Kernel Profiling Guide's
  // warp stall reasons). NVIDIA publishes no sizes; the GPU's own stall
  // reasons set them (Nsight Compute on an H200 for twelve kernels:
  // docs/fidelity/h200/ncu-stalls-2026-11-27.csv). The queues count
  // instructions, not the work each carries: 06's LDS.128 (4 wavefronts
  // each) show mio_throttle at 0.2% of warp cycles where lesson 13's LDS.32
  // tiles show 40-50%, and lesson 13's tc_scores, whose loads span 8 lines
  // each, keeps the L1 100% busy with lg_throttle at 3.8%. The earlier
  // queues, counted in cycles of data-path work per SM (16 and 32), gave 06
  // 5.5% mio_throttle, tc_scores 80% lg_throttle, and bank conflicts that
  // cost more than their wavefronts (bench mechanisms' 2-way row +25%).
  // MIO 16 gives the twelve kernels' stall shares their smallest summed
  // error (flat from 8 to 16; docs/fidelity.md, eighteenth round); LG 32
  // keeps the H200's measured L1 rate at 16 warps per SM (bench mechanisms'
  // l1 rows; 32 per sub-partition made it +11%).
  p.mio_queue_entries = 16;
  p.lg_queue_entries = 32;
  // The SM's LD/ST units take one thread's address each a cycle: where the
  // whitepaper diagrams give 16 per SM (4 per sub-partition: Turing, GA10x,
  // Ada; device.cpp lsu_lanes_per_sm) a warp's global request or shared
  // store holds the L1/shared data path 2 cycles however few lines or
  // wavefronts it needs. [YKT-A], 32 warps of L1 hits or shared stores on
  // an sm_86 GPU: LDG.32 63.6 B/clk/SM and STS.32 62.8
  // (2.0 cycles a request), LDG.64 124.7 and STS.64 126.1 (2.0-2.05),
  // STS.128 114.0 (4.5 for its 4 wavefronts). Shared loads keep a
  // wavefront a cycle: no LDS measurement was found, and a 2-cycle LDS.32
  // would put wangzyon's shared-memory GEMM (2 LDS per FFMA) on the RTX 3090
  // 50% slower than measured (docs/fidelity.md). Turing and Ada are taken to
  // be alike by their diagrams.
  p.lsu_request_cycles = uint16_t(g.lsu_lanes_per_sm > 0 && g.lsu_lanes_per_sm < 32 ? 32 / g.lsu_lanes_per_sm : 1);
  // [LAB-SASS] the same control codes on every BRA: of the 1,613 BRA (other
  // than the self-branch after EXIT) that ptxas 13.0 makes for sm_90 of the
  // lab's GEMM versions, mechanism kernels and lessons' kernels (nvcc -cubin
  // -O3, tools/sass_control.py), none has a stall count below 5: 1,172 carry
  // 5, 279 carry 6, the rest 7-15 (waiting out a result). A warp issues
  // nothing for 5 cycles after a branch, taken or not.
  p.branch_stall = 5;
  // [LAB-SASS] the same control codes' write barriers (bits 110-112) and
  // wait masks (116-121): a loop body's global loads use barriers SB2-SB5,
  // the loads one instruction first waits for on one barrier (GEMM 02's
  // pair of loads per FFMA: 2,2,3,3,4,4,5,5); with more first consumers
  // than four, every later load shares SB5 (bench mechanisms' l1_hits.cu,
  // lesson 10's one-warp col_sum: 16 LDG on 2,3,4,5,5,...,5), so the
  // fourth add waits for the sixteenth load.
  p.load_barriers = 4;
  // A sub-partition has a quarter of the SM's lanes (whitepaper SM diagrams);
  // a 32-lane warp instruction holds a pipe of L lanes for 32/L cycles.
  auto interval = [&](int lanes_per_sm, double fallback) {
    return lanes_per_sm > 0 ? std::max(1.0, 32.0 / (double(lanes_per_sm) / p.schedulers)) : fallback;
  };
  p.ii_fp32 = interval(g.fp32_lanes_per_sm, 2);
  // GA10x, Ada and GH100 split a sub-partition's 32 FP32 lanes into two
  // 16-lane pipes, FMAheavy (FP32, IMAD, IDP) and FMAlite (FP32 only);
  // GV100 and GA100 have one 16-lane FMA pipe for FP32 and IMAD (NVIDIA's
  // Greg Smith on the NVIDIA developer forums, "Separate CUDA core pipeline
  // for FP16 and FP32", 2024, and "INT32 and FP64 can be used concurrently
  // in the Volta architecture", 2019: "It takes 2 cycles to dispatch a warp
  // to each of these pipes (16 cores)"). So an IMAD holds its pipe 2 cycles
  // on every one of them, half the FP32 rate where there are two.
  p.fma_pipes = g.fp32_lanes_per_sm >= 32 * p.schedulers ? 2 : 1;
  p.ii_int = interval(g.int32_lanes_per_sm, 2);
  p.ii_fp64 = interval(g.fp64_lanes_per_sm, 64);
  p.ii_sfu = interval(g.sfu_lanes_per_sm, 8);
  // Tensor rates per sub-partition per cycle from the datasheet peaks.
  const double per = g.sm_count > 0 ? 1.0 / (double(g.sm_count) * p.clock_hz * p.schedulers) : 0;
  p.tensor_flops_per_cycle_smsp[0] = g.fp16_tensor_flops * per;
  p.tensor_flops_per_cycle_smsp[1] = (g.tf32_tensor_flops > 0 ? g.tf32_tensor_flops : g.fp32_flops) * per;
  p.tensor_flops_per_cycle_smsp[2] = g.int8_tensor_ops * per;
  p.tensor_flops_per_cycle_smsp[3] = tensor_peak(g, ptx::Type::F64) * per;
  // The warp-level instructions (mma.sync, wmma) at their measured fraction;
  // wgmma at its own.
  p.warp_mma[0] = warp_mma_fraction(g, ptx::Type::F16);
  p.warp_mma[1] = p.warp_mma[2] = p.warp_mma[3] = warp_mma_fraction(g, ptx::Type::F32);
  p.wmma_of_mma = wmma_rate_of_mma(g);
  sass_mma_flops(g, p.sass_mma_flops);
  // ldmatrix (LDSM) needs sm_75 (PTX ISA, "ldmatrix": requires sm_75 or
  // higher); ptxas loads a 16-bit wmma A or B fragment from shared memory
  // with one LDSM.16.M88.4 (MT88 transposed) on sm_90 (nvdisasm of
  // kernels/gemm/08_tensor_core_wmma.cu).
  p.ldmatrix = g.cc_major > 7 || (g.cc_major == 7 && g.cc_minor >= 5);
  for (uint32_t i = 0; i < 6; ++i) p.wgmma_of_peak[i] = wgmma_fraction(g, 8u << i);  // N = 8, 16, ..., 256
  p.l1_shared_bytes = uint32_t(g.l1_shared_bytes_per_sm > 0 ? g.l1_shared_bytes_per_sm : d.unified_kb * 1024);
  p.l2_bytes_per_cycle = g.l2_bytes_per_clock > 0 ? g.l2_bytes_per_clock : 2048;
  const AchievableDram dram = achievable_dram(g);
  p.dram_read_bytes_per_cycle = dram.read_bytes_per_s / p.clock_hz;
  p.dram_write_bytes_per_cycle = dram.write_bytes_per_s / p.clock_hz;
  p.dram_rated_bytes_per_cycle = (g.dram_bytes_per_s > 0 ? g.dram_bytes_per_s : 500e9) / p.clock_hz;
  p.dram_queue_cycles = g.dram_queue_cycles;
  p.l2_bytes = g.l2_bytes ? g.l2_bytes : 50ull << 20;
  // [KEP] (NVIDIA Kepler GK110 whitepaper, 2012): same-address global
  // atomics at one per clock, the only published figure; device.cpp has
  // the lab's measurement where it made one.
  p.atomics_per_cycle = g.same_address_atomics_per_clock > 0 ? g.same_address_atomics_per_clock : 1.0;
  p.float_adds_per_cycle =
      g.same_address_float_adds_per_clock > 0 ? g.same_address_float_adds_per_clock : p.atomics_per_cycle;
  p.blocks_per_cycle = g.blocks_dispatched_per_clock;
  p.block_turnaround = uint32_t(std::max(0, g.block_turnaround_cycles));
  p.launch_overhead_s = launch_overhead(g);
  return p;
}

}  // namespace lab::sim::cycle
