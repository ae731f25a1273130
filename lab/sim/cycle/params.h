// lab/sim/cycle/params.h: the cycle model's inputs for one GPU model:
// latencies, pipe throughputs, cache sizes and bandwidths. Derived from
// the GpuModel (device.h); figures a model leaves at 0 fall back to its
// architecture's published microbenchmark values (params.cpp, cited there).
#pragma once

#include <cstdint>
#include <string_view>

#include "lab/ptx/module.h"
#include "lab/sim/device.h"

namespace lab::sim::cycle {

// A launch's fixed cost where no part's empty launch was measured: 2 us, the
// lab's round figure (the H100 and H200 measure 3.2 and 2.9 us timed with
// events: device.cpp).
constexpr double kUnmeasuredLaunchSeconds = 2e-6;

struct CycleParams {
  int schedulers = 4;           // sub-partitions per SM, one warp instruction per cycle each
  int max_warps_per_sm = 64;
  double clock_hz = 1e9;
  // Dependent-issue latencies, cycles (issue of the producer to issue of a consumer).
  int lat_fp32 = 4, lat_int = 4, lat_fp64 = 8, lat_sfu = 18, lat_tensor = 32;
  int lat_shared = 30, lat_l1 = 33, lat_l2 = 260, lat_dram = 480;
  int lat_const = 4;            // ld.param / ld.const hits in the constant cache
  // wgmma: from the tensor pipe's last cycle on the warp's part to the
  // result wait_group sees (params.cpp: measured, cited).
  int lat_wgmma = 26;
  // Integer div/rem by a register: no instruction on the GPU, ptxas emits a
  // sequence (params.cpp: its latency and length, cited).
  int lat_int_div = 71;
  double int_div_instructions = 20;
  // Cycles one warp instruction holds its pipe in a sub-partition (32 lanes / lanes per sub-partition).
  double ii_fp32 = 1, ii_int = 2, ii_fp64 = 2, ii_sfu = 8;
  // The FP32 lanes of a sub-partition as the FMA pipes that hold them: two
  // of 16 lanes (FMAheavy and FMAlite) where it has 32, else one. FP32 goes
  // to either; integer multiply-adds (IMAD) only to the first (params.cpp).
  int fma_pipes = 1;
  double tensor_flops_per_cycle_smsp[4] = {};  // by precision: fp16/bf16, tf32, int8/fp8, fp64 (datasheet)
  double warp_mma[4] = {1, 1, 1, 1};           // the fraction of it mma.sync/wmma reach (warp_mma_fraction)
  double wmma_of_mma = 1;                       // wmma.mma's rate against mma.sync's (wmma_rate_of_mma)
  // What ptxas makes of wmma (params.cpp sass_mma_flops): the flops of one
  // SASS tensor instruction (HMMA/IMMA) by precision as tensor_flops_per_cycle_smsp
  // (0: not known for the architecture, one per PTX instruction), and
  // whether 16-bit A/B fragments load from shared memory with one LDSM.
  double sass_mma_flops[4] = {};
  bool ldmatrix = false;
  // The fraction of the dense peak wgmma reaches, by N: 8, 16, 32, 64, 128, 256 and up (params.cpp [LUO25]).
  double wgmma_of_peak[6] = {1, 1, 1, 1, 1, 1};
  // Memory system.
  uint32_t l1_shared_bytes = 256 * 1024;  // unified capacity per SM (the L1 gets what shared does not)
  double l1_bytes_per_cycle = 128;        // L1 data path, shared by global sectors and shared wavefronts
  // The fewest cycles a warp's global/local request or shared store holds
  // that data path: the SM's LD/ST units take this many cycles for 32
  // threads' addresses (params.cpp).
  uint16_t lsu_request_cycles = 1;
  double l2_bytes_per_cycle = 5120;       // whole GPU
  // Whole GPU, achievable (achievable_dram), not rated: the DRAM queue takes
  // a read sector at the read rate and a written one at the write rate (both
  // the STREAM figure where the GPU model has no split). An access waits
  // S x u / (1 - u) cycles more than lat_dram at utilisation u of the rated
  // bandwidth (dram_queue_cycles = S).
  double dram_read_bytes_per_cycle = 1700, dram_write_bytes_per_cycle = 1700;
  double dram_rated_bytes_per_cycle = 2000;
  double dram_queue_cycles = 0;
  uint64_t l2_bytes = 50ull << 20;
  // Queue depths before a warp is throttled: shared-memory instructions of
  // a sub-partition, global and local ones of the SM, issued and not yet
  // started on the L1/shared data path (engine.cpp RequestQueue; params.cpp
  // says where the depths come from).
  uint32_t lg_queue_entries = 32, mio_queue_entries = 16;
  // The fewest cycles between two of a warp's LSU instructions (decode.h
  // `lsu`): the stall count ptxas writes into the SASS (params.cpp).
  int lsu_issue_interval = 4;
  // The cycles after a warp's branch before it issues again: the stall count
  // ptxas writes on every BRA (params.cpp).
  int branch_stall = 5;
  // The dependency barriers ptxas gives a warp's global loads (engine.cpp
  // LoadBarriers; params.cpp); 0: each load's consumers wait for it alone.
  int load_barriers = 4;
  // Global atomics (atom, red) to one address the L2 applies per cycle,
  // whole GPU: [KEP]'s 1 unless the GPU model has a measurement.
  double atomics_per_cycle = 1;
  // Floating-point adds to one address (atom/red .add.f32/.f64): the GPU
  // model's measurement, else atomics_per_cycle.
  double float_adds_per_cycle = 1;
  // Blocks placed per cycle, whole GPU (the GPU model's measurement); 0:
  // none measured, a block is placed the cycle a slot frees.
  double blocks_per_cycle = 0;
  // Cycles from a block's retirement until its slot starts another block's
  // warps (the GPU model's measurement; 0: none measured, at once).
  uint32_t block_turnaround = 0;
  double launch_overhead_s = kUnmeasuredLaunchSeconds;  // launch_overhead(gpu)
  // Cycles one mma/wmma instruction holds the sub-partition's tensor core.
  double tensor_cycles(const ptx::Instr& in) const;
  // The precision class of a tensor instruction, the index of
  // tensor_flops_per_cycle_smsp, warp_mma and sass_mma_flops: 0 fp16/bf16,
  // 1 tf32 (and f32), 2 int8/fp8, 3 fp64.
  static int tensor_class(const ptx::Instr& in);
};

CycleParams cycle_params(const GpuModel& gpu);

// The DRAM bandwidth a streaming kernel reaches on the GPU (STREAM triad as
// measured, or the measured fraction of rated peak borrowed from the nearest
// measured part), with where that figure is published. The cycle model's
// DRAM queue drains at this rate, never at the rated peak (issue 24: a
// predicted copy at 113% of the rated 3.35 TB/s).
struct AchievableDram {
  double bytes_per_s = 0;
  std::string_view source;  // where the figure is published (device.cpp)
  // Reads and writes apart: the measured rates where the GPU model has
  // them (device.h, with their sources), else both bytes_per_s.
  double read_bytes_per_s = 0, write_bytes_per_s = 0;
};
AchievableDram achievable_dram(const GpuModel& gpu);
// A launch's fixed cost in seconds: the GPU model's measured empty launch, else
// kUnmeasuredLaunchSeconds.
double launch_overhead(const GpuModel& gpu);

// The fraction of the dense tensor peak that mma.sync / wmma reach. Hopper's
// datasheet peak is wgmma's (warpgroup MMA); the warp-level instructions
// reach about two thirds of it.
double warp_mma_fraction(const GpuModel& gpu, ptx::Type operand);

// The fraction of the dense tensor peak wgmma.mma_async .m64nNk16 reaches (Hopper).
double wgmma_fraction(const GpuModel& gpu, uint32_t n);

// wmma.mma's throughput against mma.sync's on the same part. On Hopper the
// lab measured WMMA well below mma.sync (params.cpp [LAB-H200]); 1 elsewhere.
double wmma_rate_of_mma(const GpuModel& gpu);

}  // namespace lab::sim::cycle
