// lab/sim/device.h: the GPU models the lab predicts for, with their published
// figures. Every number here is a fact from a datasheet, a whitepaper or the
// CUDA C++ Programming Guide's "Compute Capabilities" table (sources beside
// each model in device.cpp), except the few marked "microbenchmark", which
// NVIDIA does not publish and which come from published measurements.
//
// `--gpu MODEL` everywhere resolves through gpu_model(): case-insensitive,
// with aliases ("4090", "rtx4090", "rtx-4090", "h100", ...). H100 is the default.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace lab::sim {

struct GpuModel {
  // ---- identity ---------------------------------------------------------------
  std::string_view name;        // short name the lab prints: "H100"
  std::string_view full_name;   // "NVIDIA H100 SXM5 80GB"
  std::string_view architecture;// "Hopper"
  int cc_major = 0, cc_minor = 0;   // compute capability
  std::string_view sm_arch;     // ptxas target: "sm_90"
  std::string_view ptx_target;  // NVRTC virtual architecture: "compute_90"

  // ---- SM resources (CUDA Programming Guide, Compute Capabilities table) -------
  int sm_count = 0;
  double boost_clock_hz = 0;
  int warp_size = 32;
  int max_warps_per_sm = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 1024;
  int max_block_dim[3] = {1024, 1024, 64};
  uint32_t max_grid_dim[3] = {2147483647u, 65535u, 65535u};
  int regs_per_sm = 65536;           // 32-bit registers
  int regs_per_block = 65536;
  int max_regs_per_thread = 255;
  int reg_alloc_unit = 256;          // registers are allocated per warp in units of 256
  int shared_per_sm = 0;             // bytes, the largest carveout
  int shared_per_block = 48 * 1024;  // default per-block limit (no opt-in)
  int shared_per_block_optin = 0;    // with cudaFuncAttributeMaxDynamicSharedMemorySize
  int reserved_shared_per_block = 0; // the driver's 1 KB per block on sm_80+
  int shared_alloc_granularity = 0;  // bytes
  int warp_schedulers_per_sm = 4;    // one warp instruction issued per scheduler per cycle

  // ---- execution units per SM (whitepapers: SM diagrams) ------------------------
  int fp32_lanes_per_sm = 0;   // FP32 FMA lanes ("CUDA cores")
  int fp64_lanes_per_sm = 0;
  int int32_lanes_per_sm = 64;
  int sfu_lanes_per_sm = 16;   // special function units (sin, ex2, rcp, ...)
  int lsu_lanes_per_sm = 32;   // load/store units: a warp's request takes 32 / this cycles (cycle/params.cpp)

  // ---- memory system -------------------------------------------------------------
  uint64_t dram_bytes = 0;           // capacity
  double dram_bytes_per_s = 0;       // peak DRAM bandwidth
  int memory_bus_bits = 0;           // DRAM interface width (datasheet); cudaDevAttrGlobalMemoryBusWidth
  // What a streaming kernel reaches (STREAM triad, measured), and where that
  // is published; 0 where none was found (cycle/params.cpp achievable_dram()).
  double dram_stream_bytes_per_s = 0;
  std::string_view dram_stream_source;
  // Reads and writes apart, where the lab measured them (bench mechanisms'
  // dram rows): the read rate with every SM's loads in flight and the
  // write-only rate. 0 where not measured: both are the STREAM figure.
  double dram_read_bytes_per_s = 0, dram_write_bytes_per_s = 0;
  // A DRAM access waits longer as the DRAM gets busier: S x u / (1 - u)
  // cycles more than the unloaded latency at utilisation u of the rated
  // bandwidth. S in cycles, fitted to the lab's read sweep; 0 where not
  // measured (the unloaded latency alone).
  double dram_queue_cycles = 0;
  uint64_t l2_bytes = 0;
  double l2_bytes_per_clock = 0;     // aggregate L2 bandwidth (whitepaper or microbenchmark)
  double host_bytes_per_s = 0;       // PCIe, one direction
  // GPU to GPU over NVLink, one direction, all of the GPU's links together
  // (half the datasheet's bidirectional figure); 0: the model has no NVLink,
  // and peer copies go over PCIe (host_bytes_per_s). lab/runtime/devices.cpp.
  double nvlink_bytes_per_s = 0;
  // Global atomics to one address the L2 applies per clock, whole GPU
  // (microbenchmark); 0: [KEP]'s one per clock (lab/sim/cycle/params.cpp).
  double same_address_atomics_per_clock = 0;
  // The same for floating-point adds (RED/ATOM .ADD.F32), where measured;
  // 0: same_address_atomics_per_clock.
  double same_address_float_adds_per_clock = 0;
  // Blocks the GPU's block scheduler places per clock, whole GPU, where the
  // lab measured it (bench mechanisms' blocks rows: nearly empty blocks);
  // 0: not measured, a block is placed the cycle a slot frees.
  double blocks_dispatched_per_clock = 0;
  // SM cycles from a block's last instruction until the next block placed
  // in its slot issues its first, where the lab measured it
  // (tools/block_probe); 0: not measured, at once.
  int block_turnaround_cycles = 0;
  // Bytes the L2 fetches from DRAM for one missed 32-byte read sector, where
  // the lab measured it (64: the sector and its 64-byte neighbour); 0: the
  // sector alone.
  uint32_t l2_fetch_bytes = 0;
  // A launch's fixed cost, seconds: an empty kernel timed with CUDA events
  // as the lab times every kernel (bench mechanisms' launch floor), less the
  // model's own time for that kernel; 0: the lab's 2 us where none was
  // measured (lab/sim/cycle/params.cpp launch_overhead).
  double launch_overhead_s = 0;
  // Latencies in SM cycles (microbenchmark figures; NVIDIA does not publish them).
  int dram_latency_cycles = 0;
  int l2_latency_cycles = 0;
  int shared_latency_cycles = 0;
  int fp32_latency_cycles = 4;       // dependent FP32 FMA (microbenchmark)
  // Cycle model (lab/sim/cycle). 0 = the architecture's default, cited in
  // lab/sim/cycle/params.cpp; a model sets them where a measurement exists.
  int l1_latency_cycles = 0;         // L1 data-cache hit, load to use
  int int_latency_cycles = 0;        // dependent IADD3/IMAD
  int fp64_latency_cycles = 0;       // dependent DFMA
  int sfu_latency_cycles = 0;        // MUFU (rcp, sqrt, ex2, sin, ...)
  int tensor_latency_cycles = 0;     // one mma.sync, issue to dependent issue
  int l1_shared_bytes_per_sm = 0;    // unified L1 data cache + shared memory capacity

  // ---- peak rates, dense (datasheets) -------------------------------------------
  double fp32_flops = 0;             // non-tensor FP32
  double fp64_flops = 0;             // non-tensor FP64
  double fp16_tensor_flops = 0;      // FP16 inputs, FP32 accumulate, dense
  double bf16_tensor_flops = 0;      // BF16 inputs, FP32 accumulate, dense (0: no support)
  double tf32_tensor_flops = 0;      // dense (0: no support)
  double int8_tensor_ops = 0;        // dense

  // Derived figures.
  int max_active_threads() const { return sm_count * max_threads_per_sm; }
  double sm_clock_period_s() const { return 1.0 / boost_clock_hz; }
};

// All models, in a stable order (T4, A100, RTX 4090, H100, H200, V100,
// V100-16GB, RTX 3090, RTX A6000, A10, L4, L40S).
std::span<const GpuModel> all_gpu_models();

// The model `name` names: case-insensitive, aliases accepted ("4090",
// "rtx4090", "rtx-4090", "a100", "h100", "h200", "t4", "a100-sxm4-80gb", ...).
// Throws UnknownGpu, whose message lists the valid names.
const GpuModel& gpu_model(std::string_view name);
const GpuModel& default_gpu();  // H100

// Valid names for messages and --help: "T4, A100, RTX4090, H100, H200, V100, ...".
std::string gpu_model_names();

struct UnknownGpu : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

}  // namespace lab::sim
