// lab/bench/mechanisms.cpp: the mechanism suite (mechanisms.h).
//
// Index: [RUN] one kernel run, [PUBLISHED] the figures each row is held to,
// [SWEEPS] one function per mechanism, [OUTPUT] tables and JSON.
#include "lab/bench/mechanisms.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lab/cuda/kernel_run.h"
#include "lab/sim/cycle/params.h"
#include "lab/sim/cycle/result.h"
#include "lab/sim/cycle/stall.h"
#include "lab/sim/run.h"

namespace lab::bench {

namespace {

// ---- [RUN] ---------------------------------------------------------------------------
struct Run {
  double cycles = 0;
  double seconds = 0;          // cycles / clock: the kernel itself, launch overhead left out
  uint64_t requests = 0, sectors = 0, wavefronts = 0;
  std::string limiter;
  bool measured = false;  // timed on a GPU (MechanismOptions::measure_on_gpu), not predicted
};

// The GPU side (MechanismOptions::measure_on_gpu): an event pair around one
// launch also times the launch itself, a few microseconds that would swamp
// the one-warp chains. An empty launch (chase.cu with no steps, one thread)
// timed the same way is that floor; it is measured once and taken off.
struct GpuSide {
  std::string device;
  double floor_ms = -1;
};
GpuSide& gpu_side() {
  static GpuSide s;
  return s;
}

std::string kernel_file(const std::string& name) {
  return std::string(GPULAB_SOURCE_DIR) + "/kernels/mechanisms/" + name;
}

Run run(const MechanismOptions& o, const sim::GpuModel& g, const std::string& file, const std::string& kernel,
        sim::Dim3 grid, sim::Dim3 block, std::vector<std::string> args, bool sample_only = false,
        std::vector<std::string> defines = {}, double timed_warp_insts = 0) {
  sim::RunRequest req;
  req.defines = std::move(defines);
  req.file = kernel_file(file);
  req.kernel = kernel;
  req.launch.grid = grid;
  req.launch.block = block;
  req.args = std::move(args);
  req.gpu = &g;
  req.options.gpu = &g;
  req.options.threads = o.threads;
  req.options.timing.mode = sim::TimingMode::Sampled;
  req.options.timing.sample_only = sample_only;
  req.options.timing.timed_warp_insts = timed_warp_insts;
  if (o.measure_on_gpu) {
    GpuSide& side = gpu_side();
    if (side.floor_ms < 0) {
      sim::RunRequest empty = req;
      empty.file = kernel_file("chase.cu");
      empty.kernel = "chase";
      empty.launch.grid = {1, 1, 1};
      empty.launch.block = {1, 1, 1};
      empty.args = {"u32[32]", "u32[1]", "i32=0", "u32=1", "u32=32"};
      lab::cuda::GpuRunOutcome e = lab::cuda::run_kernel_on_gpu(empty);
      side.floor_ms = e.median_ms;
      side.device = e.device;
    }
    lab::cuda::GpuRunOutcome m = lab::cuda::run_kernel_on_gpu(req);
    Run r;
    // Never below a hundredth of the raw time: a kernel as short as the floor
    // is reported as a ceiling of its rate, not as an infinite one.
    r.seconds = std::max(m.median_ms - side.floor_ms, 0.01 * m.median_ms) / 1e3;
    r.cycles = r.seconds * g.boost_clock_hz;
    r.limiter = "measured";
    r.measured = true;
    return r;
  }
  sim::RunOutcome out = sim::run_kernel(req);
  if (!out.result.ok || !out.result.metrics.cycle)
    throw std::runtime_error(fmt::format("{} ({}) on {}: {}", kernel, file, g.name,
                                         out.result.errors.empty() ? "no timing" : out.result.errors[0].message));
  const sim::cycle::CycleResult& c = *out.result.metrics.cycle;
  Run r;
  r.cycles = c.cycles;
  r.seconds = c.cycles / g.boost_clock_hz;
  for (const auto& pc : out.result.metrics.per_pc) {
    r.requests += pc.requests;
    r.sectors += pc.sectors;
    r.wavefronts += pc.wavefronts;
  }
  size_t top = 0;
  uint64_t most = 0;
  for (size_t s = 0; s < c.stall.size(); ++s)
    if (s != size_t(sim::cycle::Stall::Selected) && c.stall[s] > most) most = c.stall[s], top = s;
  r.limiter = most ? sim::cycle::stall_name(sim::cycle::Stall(top)) : "selected";
  return r;
}

std::string n(uint64_t v) { return std::to_string(v); }

// ---- [PUBLISHED] ---------------------------------------------------------------------
// Published figures per GPU model. Each carries its source; a row without
// one shows the rule it follows instead (and says so in the source column).
//  [JIA18] Jia, Maggioni, Staiger, Scarpazza, "Dissecting the NVIDIA Volta GPU
//          Architecture via Microbenchmarking" (2018), tables 3.1 and 4.1.
//  [JIA19] Jia, Maggioni, Smith, Scarpazza, "Dissecting the NVidia Turing T4 GPU
//          via Microbenchmarking" (2019).
//  [ABD22] Abdelkhalik et al., "Demystifying the Nvidia Ampere Architecture
//          through Microbenchmarking and Instruction-level Analysis" (2022).
//  [LUO24] Luo et al., "Benchmarking and Dissecting the Nvidia Hopper GPU
//          Architecture" (IPDPS 2024): H800 / A100 / RTX 4090.
//  [PG]    CUDA C++ Programming Guide, "Shared Memory" (n-way conflicts split
//          into n conflict-free requests) and "SIMT Architecture".
//  [BPG]   CUDA C++ Best Practices Guide, "Strided Accesses".
//  [LUO25] Luo et al., "Dissecting the NVIDIA Hopper Architecture through
//          Microbenchmarking and Multiple Level Analysis" (arXiv:2501.12084).
//  [GB]    te42kyfo/gpu-benches (Ernst et al., JPDC 2023), raw data files:
//          gpu-latency (pointer chase), gpu-stream (STREAM at full occupancy).
//  [KEP]   NVIDIA Kepler GK110 whitepaper (2012): same-address global atomics
//          at one per clock.
//  [YKT-A] YKTian-x2b/AmpereArchViaMicroBenchMark (GitHub): L1 and shared
//          bandwidth on an sm_86 RTX 3060 (lab/sim/cycle/params.cpp).
struct Published {
  double value;
  const char* source;
};
using Key = std::pair<std::string, std::string>;  // (gpu, mechanism/point)

const std::map<Key, Published>& published_table() {
  static const std::map<Key, Published> t = {
      // Pointer-chase latencies, cycles.
      {{"V100", "chase/L1"}, {28, "[JIA18] L1 hit 28 cycles"}},
      {{"V100", "chase/L2"}, {193, "[JIA18] L2 hit ~193 cycles"}},
      {{"V100", "chase/DRAM"}, {400, "[JIA18] global ~400 cycles"}},
      {{"T4", "chase/L1"}, {32, "[JIA19] L1 hit 32 cycles"}},
      {{"T4", "chase/L2"}, {188, "[JIA19] L2 hit ~188 cycles"}},
      {{"A100", "chase/L1"}, {33, "[ABD22] L1 hit ~33 cycles"}},
      // [LAB-H100] measured by the lab on an H100 SXM (docs/fidelity/h100/mech-cuda-memory.json);
      // [LUO24]'s H800 figures were L1 ~33-40, L2 ~260-270, global ~470-540 cycles.
      {{"H100", "chase/L1"}, {36.4, "[LAB-H100] measured on this part"}},
      {{"H100", "chase/L2"}, {280.4, "[LAB-H100] measured on this part"}},
      {{"H100", "chase/DRAM"}, {687.4, "[LAB-H100] measured on this part"}},
      {{"H100", "stream/L2 read"}, {6996, "[LAB-H100] measured on this part"}},
      // [GB] gpu-latency/a100_80.txt (this part, A100 80GB); since
      // 2026-11-29 also the A100 model's latency inputs (device.cpp).
      {{"A100", "chase/L2"}, {211, "[GB] a100_80.txt L2 hit ~211 cycles (the model's input)"}},
      {{"A100", "chase/DRAM"}, {572, "[GB] a100_80.txt DRAM ~572 cycles (the model's input)"}},
      // Dependent-issue latency, cycles.
      {{"V100", "dependent/FP32"}, {4, "[JIA18] FFMA 4 cycles"}},
      {{"V100", "dependent/INT"}, {4, "[JIA18] IADD3/IMAD 4 cycles"}},
      {{"V100", "dependent/FP64"}, {8, "[JIA18] DFMA 8 cycles"}},
      // Arafa et al., "Low Overhead Instruction Latency Characterization for
      // NVIDIA GPGPUs" (HPEC 2019), TITAN V (GV100) and TITAN RTX (TU102).
      {{"V100", "dependent/MUFU"}, {16, "[AR19] TITAN V ex2 sequence 16 cycles"}},
      {{"T4", "dependent/INT"}, {4, "[AR19] TITAN RTX IADD/IMUL 4 cycles"}},
      {{"T4", "dependent/MUFU"}, {16, "[AR19] TITAN RTX ex2 sequence 16 cycles"}},
      {{"T4", "dependent/FP64"}, {45, "[AR19] TITAN RTX DFMA 45 cycles"}},
      // A link is x / d + a: the division's sequence and one add (4 cycles).
      {{"V100", "dependent/INT div"}, {71 + 4, "[AR19] TITAN V div.s32 71 cycles, + the add"}},
      {{"T4", "dependent/INT div"}, {79 + 4, "[AR19] TITAN RTX div.s32 79 cycles, + the add"}},
      {{"T4", "dependent/FP32"}, {4, "[JIA19] FFMA 4 cycles"}},
      {{"A100", "dependent/FP32"}, {4, "[ABD22] fma.f32 4 cycles dependent"}},
      {{"H100", "dependent/FP32"}, {4, "[LUO24] H800 FFMA 4 cycles"}},
      // [LAB-H200] measured by the lab on an H200 (GH100, the H100's SM):
      // docs/fidelity/h200/mech-cuda-2.json, `gpulab bench mechanisms --backend cuda`.
      {{"H100", "dependent/INT div"}, {209.9, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "dependent/MUFU"}, {16.8, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "dependent/FP64"}, {8.03, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "dependent/tensor"}, {26.1, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H200", "dependent/FP32"}, {4.05, "[LAB-H200] measured on this part"}},
      {{"H200", "dependent/INT"}, {3.88, "[LAB-H200] measured on this part"}},
      {{"H200", "dependent/INT div"}, {209.9, "[LAB-H200] measured on this part"}},
      {{"H200", "dependent/MUFU"}, {16.8, "[LAB-H200] measured on this part"}},
      {{"H200", "dependent/FP64"}, {8.03, "[LAB-H200] measured on this part"}},
      {{"H200", "dependent/tensor"}, {26.1, "[LAB-H200] measured on this part"}},
      // Hopper's asynchronous units, docs/fidelity/h200/mech-cuda-hopper.json.
      {{"H100", "dependent/wgmma m64n128k16"}, {129.0, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "dependent/wgmma m64n256k16"}, {213.0, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H200", "dependent/wgmma m64n128k16"}, {129.0, "[LAB-H200] measured on this part"}},
      {{"H200", "dependent/wgmma m64n256k16"}, {213.0, "[LAB-H200] measured on this part"}},
      {{"H200", "chase/bulk copy 1 KB"}, {379.8, "[LAB-H200] measured on this part"}},
      {{"H200", "chase/bulk copy 16 KB"}, {519.0, "[LAB-H200] measured on this part"}},
      // docs/fidelity/h200/mech-cuda-l2.json: 32 passes over 16 MB, the first from DRAM.
      {{"H200", "stream/L2 read"}, {8202, "[LAB-H200] measured on this part"}},
      {{"H200", "chase/L1"}, {30.3, "[LAB-H200] measured on this part"}},
      {{"H200", "chase/L2"}, {280, "[LAB-H200] measured on this part"}},
      {{"H200", "chase/DRAM"}, {685, "[LAB-H200] measured on this part"}},
      // Same-address atomics, the whole GPU's updates per clock: the H100's
      // docs/fidelity/h100/l2-atomics.txt, the H200's mech-cuda-2.json.
      {{"H100", "atomics/one address"}, {0.69, "[LAB-H100] measured on this part"}},
      // Floating-point adds to one address: lesson 9's sum_atomic, 4,194,304
      // of them in 7.388 ms (H100) and 7.372 ms (H200) at 1.98 GHz
      // (docs/fidelity/h100/before-after-02-10.txt, h200/before-after.txt).
      {{"H100", "atomics/one address, f32 add"}, {0.287, "[LAB-H100] lesson 9's sum_atomic measured on this part"}},
      {{"H200", "atomics/one address, f32 add"}, {0.287, "[LAB-H200] lesson 9's sum_atomic measured on this part"}},
      // The dram rows (DRAM against bytes in flight), measured by the lab:
      // docs/fidelity/h100/mech-cuda-dram.json and mech-cuda-dram-copy.json,
      // docs/fidelity/h200/mech-cuda-dram.json (2026-11-27).
      {{"H100", "dram/read 1x4 B"}, {2094, "[LAB-H100] measured on this part"}},
      {{"H100", "dram/read 1x8 B"}, {2607, "[LAB-H100] measured on this part"}},
      {{"H100", "dram/read 4x4 B"}, {2750, "[LAB-H100] measured on this part"}},
      {{"H100", "dram/read 1x16 B"}, {2774, "[LAB-H100] measured on this part"}},
      {{"H100", "dram/read 2x16 B"}, {2778, "[LAB-H100] measured on this part"}},
      {{"H100", "dram/read 4x16 B"}, {2778, "[LAB-H100] measured on this part"}},
      {{"H100", "dram/read 8x16 B"}, {2759, "[LAB-H100] measured on this part"}},
      {{"H100", "dram/write 1x4 B"}, {3106, "[LAB-H100] measured on this part"}},
      {{"H100", "dram/write 1x16 B"}, {3202, "[LAB-H100] measured on this part"}},
      {{"H100", "dram/copy 1x4 B"}, {2367, "[LAB-H100] measured on this part"}},
      {{"H100", "dram/copy 1x8 B"}, {2801, "[LAB-H100] measured on this part"}},
      {{"H100", "dram/copy 1x16 B"}, {2837, "[LAB-H100] measured on this part"}},
      {{"H100", "dram/copy 4x16 B"}, {2827, "[LAB-H100] measured on this part"}},
      {{"H200", "dram/read 1x4 B"}, {2417, "[LAB-H200] measured on this part"}},
      {{"H200", "dram/read 1x8 B"}, {3446, "[LAB-H200] measured on this part"}},
      {{"H200", "dram/read 4x4 B"}, {3722, "[LAB-H200] measured on this part"}},
      {{"H200", "dram/read 1x16 B"}, {3774, "[LAB-H200] measured on this part"}},
      {{"H200", "dram/read 2x16 B"}, {3874, "[LAB-H200] measured on this part"}},
      {{"H200", "dram/read 4x16 B"}, {3786, "[LAB-H200] measured on this part"}},
      {{"H200", "dram/read 8x16 B"}, {3866, "[LAB-H200] measured on this part"}},
      {{"H200", "dram/write 1x4 B"}, {4059, "[LAB-H200] measured on this part"}},
      {{"H200", "dram/write 1x16 B"}, {4361, "[LAB-H200] measured on this part"}},
      {{"H200", "atomics/one address"}, {0.69, "[LAB-H200] measured on this part"}},
      // The l1 rows (L1 hits against warps per SM) and the pages rows (DRAM
      // against how far apart neighbouring warps' lines lie), measured by the
      // lab on an H200 (2026-11-28, docs/fidelity/h200/mech-cuda-l1-pages.json);
      // the H100 has the same SM, not the same DRAM.
      {{"H100", "l1/coalesced 4 B, 1 warps/SM"}, {0.0871, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/coalesced 4 B, 2 warps/SM"}, {0.173, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/coalesced 4 B, 4 warps/SM"}, {0.341, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/coalesced 4 B, 8 warps/SM"}, {0.595, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/coalesced 4 B, 16 warps/SM"}, {0.887, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/coalesced 4 B, 32 warps/SM"}, {0.91, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/coalesced 4 B, 64 warps/SM"}, {0.943, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/broadcast, 1 warps/SM"}, {0.0871, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/broadcast, 4 warps/SM"}, {0.342, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/broadcast, 64 warps/SM"}, {0.934, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/broadcast + coalesced, 4 warps/SM"}, {0.407, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/broadcast + coalesced, 32 warps/SM"}, {0.896, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/broadcast + coalesced, 64 warps/SM"}, {0.939, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/coalesced 16 B, 1 warps/SM"}, {0.0393, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/coalesced 16 B, 4 warps/SM"}, {0.144, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H100", "l1/coalesced 16 B, 64 warps/SM"}, {0.245, "[LAB-H200] measured on an H200 (same SM)"}},
      {{"H200", "l1/coalesced 4 B, 1 warps/SM"}, {0.0871, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/coalesced 4 B, 2 warps/SM"}, {0.173, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/coalesced 4 B, 4 warps/SM"}, {0.341, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/coalesced 4 B, 8 warps/SM"}, {0.595, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/coalesced 4 B, 16 warps/SM"}, {0.887, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/coalesced 4 B, 32 warps/SM"}, {0.91, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/coalesced 4 B, 64 warps/SM"}, {0.943, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/broadcast, 1 warps/SM"}, {0.0871, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/broadcast, 4 warps/SM"}, {0.342, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/broadcast, 64 warps/SM"}, {0.934, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/broadcast + coalesced, 4 warps/SM"}, {0.407, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/broadcast + coalesced, 32 warps/SM"}, {0.896, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/broadcast + coalesced, 64 warps/SM"}, {0.939, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/coalesced 16 B, 1 warps/SM"}, {0.0393, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/coalesced 16 B, 4 warps/SM"}, {0.144, "[LAB-H200] measured on this part"}},
      {{"H200", "l1/coalesced 16 B, 64 warps/SM"}, {0.245, "[LAB-H200] measured on this part"}},
      // [YKT-A]: 32 warps of LDG.32 L1 hits, 63.6 B/clk/SM: 0.497 of a
      // 128-byte warp load a cycle. The RTX 3090's GA102 has the same SM
      // (4 LD/ST units per sub-partition).
      {{"RTX3090", "l1/coalesced 4 B, 32 warps/SM"}, {0.497, "[YKT-A] measured on an RTX 3060 (sm_86, same SM)"}},
      {{"H200", "pages/read, lines 128 B apart"}, {3683, "[LAB-H200] measured on this part"}},
      {{"H200", "pages/read, lines 1024 B apart"}, {3433, "[LAB-H200] measured on this part"}},
      {{"H200", "pages/read, lines 4096 B apart"}, {3371, "[LAB-H200] measured on this part"}},
      {{"H200", "pages/read, lines 16384 B apart"}, {3422, "[LAB-H200] measured on this part"}},
      {{"H200", "pages/read, lines 131072 B apart"}, {3366, "[LAB-H200] measured on this part"}},
      {{"H200", "pages/write, lines 128 B apart"}, {3735, "[LAB-H200] measured on this part"}},
      {{"H200", "pages/write, lines 4096 B apart"}, {3495, "[LAB-H200] measured on this part"}},
      {{"H200", "pages/write, lines 16384 B apart"}, {3526, "[LAB-H200] measured on this part"}},
      {{"H200", "pages/write, lines 131072 B apart"}, {3465, "[LAB-H200] measured on this part"}},
      // The stride rows measured by the lab on an H200 (useful GB/s, the mean
      // of docs/fidelity/h200/mech-cuda.json and mech-cuda-2.json, 2026-11-26):
      // they replace the sector rule as the reference where measured.
      {{"H200", "stride/stride 1"}, {2061, "[LAB-H200] measured on this part"}},
      {{"H200", "stride/stride 2"}, {1722, "[LAB-H200] measured on this part"}},
      {{"H200", "stride/stride 4"}, {1184, "[LAB-H200] measured on this part"}},
      {{"H200", "stride/stride 8"}, {704, "[LAB-H200] measured on this part"}},
      {{"H200", "stride/stride 16"}, {391, "[LAB-H200] measured on this part"}},
      {{"H200", "stride/stride 32"}, {330, "[LAB-H200] measured on this part"}},
      // The hiding rows measured by the lab on an H200 (loads per kcycle per
      // SM, the mean of docs/fidelity/h200/mech-cuda.json and mech-cuda-2.json,
      // 2026-11-26): they replace Little's-law rule as the reference where
      // measured. The GPU's step time grows from 782 to 862 cycles from 1 to 32
      // warps per SM, where the model's falls (its L2 hits: chains of different
      // warps share lines).
      {{"H200", "hiding/1 warps/SM"}, {1.28, "[LAB-H200] measured on this part"}},
      {{"H200", "hiding/2 warps/SM"}, {2.51, "[LAB-H200] measured on this part"}},
      {{"H200", "hiding/4 warps/SM"}, {4.94, "[LAB-H200] measured on this part"}},
      {{"H200", "hiding/8 warps/SM"}, {9.54, "[LAB-H200] measured on this part"}},
      {{"H200", "hiding/16 warps/SM"}, {19.0, "[LAB-H200] measured on this part"}},
      {{"H200", "hiding/32 warps/SM"}, {37.1, "[LAB-H200] measured on this part"}},
      // The blocks rows (nearly empty blocks against blocks per SM and threads
      // per block; blocks that read and end), measured by the lab on an H200,
      // the mean of two runs (2026-11-28, docs/fidelity/h200/mech-cuda-blocks-1.json
      // and -2.json; the few-block points move with the empty launch taken
      // off, 2.94 and 3.17 us in the two runs). The H100 has the same chip, not
      // the same DRAM: the short reads are the H200's alone.
      {{"H100", "blocks/1 blocks/SM"}, {205.9, "[LAB-H200] measured on an H200 (same chip)"}},
      {{"H100", "blocks/8 blocks/SM"}, {154.4, "[LAB-H200] measured on an H200 (same chip)"}},
      {{"H100", "blocks/32 blocks/SM"}, {164.8, "[LAB-H200] measured on an H200 (same chip)"}},
      {{"H100", "blocks/64 blocks/SM"}, {159.4, "[LAB-H200] measured on an H200 (same chip)"}},
      {{"H100", "blocks/64 blocks/SM of 32 threads"}, {158.2, "[LAB-H200] measured on an H200 (same chip)"}},
      {{"H100", "blocks/64 blocks/SM of 256 threads"}, {160.9, "[LAB-H200] measured on an H200 (same chip)"}},
      {{"H100", "blocks/32 blocks/SM of 1024 threads"}, {202.5, "[LAB-H200] measured on an H200 (same chip)"}},
      {{"H200", "blocks/1 blocks/SM"}, {205.9, "[LAB-H200] measured on this part"}},
      {{"H200", "blocks/8 blocks/SM"}, {154.4, "[LAB-H200] measured on this part"}},
      {{"H200", "blocks/32 blocks/SM"}, {164.8, "[LAB-H200] measured on this part"}},
      {{"H200", "blocks/64 blocks/SM"}, {159.4, "[LAB-H200] measured on this part"}},
      {{"H200", "blocks/64 blocks/SM of 32 threads"}, {158.2, "[LAB-H200] measured on this part"}},
      {{"H200", "blocks/64 blocks/SM of 256 threads"}, {160.9, "[LAB-H200] measured on this part"}},
      {{"H200", "blocks/32 blocks/SM of 1024 threads"}, {202.5, "[LAB-H200] measured on this part"}},
      {{"H200", "blocks/short reads 1x4 B, 256-thread blocks"}, {1645, "[LAB-H200] measured on this part"}},
      {{"H200", "blocks/short reads 4x4 B, 256-thread blocks"}, {3945, "[LAB-H200] measured on this part"}},
      {{"H200", "blocks/short reads 1x4 B, 1024-thread blocks"}, {1475, "[LAB-H200] measured on this part"}},
  };
  return t;
}

void cite(MechanismRow& r, const std::string& point_key) {
  const auto& t = published_table();
  if (auto it = t.find({r.gpu, r.mechanism + "/" + point_key}); it != t.end()) {
    r.published = it->second.value;
    r.source = it->second.source;
  }
}

// ---- [SWEEPS] ------------------------------------------------------------------------
using Rows = std::vector<MechanismRow>;

MechanismRow row(const sim::GpuModel& g, const char* mech, std::string point, double x, double value,
                 const char* unit, const Run& r) {
  MechanismRow m;
  m.gpu = g.name;
  m.mechanism = mech;
  m.point = std::move(point);
  m.x = x;
  m.value = value;
  m.unit = unit;
  m.cycles = r.cycles;
  m.wavefronts_per_request = r.requests ? double(r.wavefronts) / double(r.requests) : 0;
  m.sectors_per_request = r.requests ? double(r.sectors) / double(r.requests) : 0;
  m.limiter = r.limiter;
  m.measured = r.measured;
  return m;
}

// Bank conflicts: 32 warps per SM on every SM, 256 shared loads each. The SM's
// shared data path serves one wavefront per cycle (32 banks x 4 bytes = 128
// bytes per clock per SM, Volta-to-Hopper whitepapers), so once conflicts
// dominate, an n-way load costs n SM cycles.
void banks(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  const int reps = 256, warps = 32;
  const uint32_t blocks = uint32_t(g.sm_count);
  for (int ways : {1, 2, 4, 8, 16, 32}) {
    Run r = run(o, g, "banks.cu", "shared_ways", {blocks, 1, 1}, {32u * warps, 1, 1},
                {"f32[" + n(uint64_t(blocks) * 32 * warps) + "]", "i32=" + n(ways), "i32=" + n(reps)});
    MechanismRow m = row(g, "banks", fmt::format("{}-way", ways), ways, r.cycles / (warps * reps), "SM cycles/load", r);
    m.published = ways;
    m.source = "[PG] n-way = n wavefronts at 1 per SM cycle (128 B/clk/SM, whitepapers)";
    out.push_back(m);
  }
}

// Global stride: 2^20 threads, thread i copies word i * stride. Useful
// bandwidth falls as the sectors per request rise: 4, 8, 16, then 32.
void stride(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  const uint64_t threads = 1ull << 20;
  double base = 0;
  for (int s : {1, 2, 4, 8, 16, 32}) {
    Run r = run(o, g, "stride.cu", "strided_copy", {uint32_t(threads / 256), 1, 1}, {256, 1, 1},
                {"f32[" + n(threads * uint64_t(s)) + "]", "f32[" + n(threads) + "]", "i32=" + n(s)}, true);
    const double gbs = double(threads) * 8 / r.seconds / 1e9;  // useful bytes: 4 read + 4 written per thread
    if (s == 1) base = gbs;
    MechanismRow m = row(g, "stride", fmt::format("stride {}", s), s, gbs, "useful GB/s", r);
    // Reads move min(32, 4s) sectors per request, writes 4: useful bytes per
    // sector moved fall by (4 + 4) / (min(32, 4s) + 4). Where the L2 fetches
    // 64 bytes a missed sector (device.h l2_fetch_bytes), lanes 64 bytes or
    // more apart move twice their sectors from DRAM.
    const double fetched = double(std::min(32, 4 * s)) * (g.l2_fetch_bytes >= 64 && 4 * s >= 64 ? 2 : 1);
    m.published = base * 8.0 / (fetched + 4.0);
    m.source = "[BPG] rule: bandwidth x 8 / (read sectors fetched + 4) of stride 1";
    cite(m, m.point);
    out.push_back(m);
  }
}

// Chains of one-at-a-time operations (dependent.cu, hopper_latency.cu):
// kChainShort and kChainLong links (the kernel's CHAIN), one block; the
// difference over the extra links is the time per link, with the launch (on
// a GPU a few microseconds, more than the short chain itself) and the
// chain's fixed part cancelled. `last` is the long run.
constexpr int kChainShort = 256, kChainLong = 2304;
struct ChainTime {
  double per_link = 0;
  Run last;
};
ChainTime chain_time(const MechanismOptions& o, const sim::GpuModel& g, const std::string& file,
                     const std::string& kernel, uint32_t threads, const std::vector<std::string>& args,
                     std::vector<std::string> defines = {}) {
  double c[2];
  ChainTime t;
  for (int k = 0; k < 2; ++k) {
    std::vector<std::string> d = defines;
    d.push_back("CHAIN=" + n(k ? kChainLong : kChainShort));
    t.last = run(o, g, file, kernel, {1, 1, 1}, {threads, 1, 1}, args, false, std::move(d));
    c[k] = t.last.cycles;
  }
  t.per_link = (c[1] - c[0]) / double(kChainLong - kChainShort);
  return t;
}

// Pointer chase: one thread, steps S then 2S; the difference over S steps is
// the time per dependent load with warm-up cancelled. The chain holds the
// load and 5 dependent integer instructions in PTX (add, add, and, mul.wide,
// add: see chase.cu's PTX), 4 in the SASS and as the model issues them
// (ptxas folds the add of the mul.wide's product into IMAD.WIDE:
// cycle/decode.h, mark_fused); their latency, the dependent-INT row's
// figure, is subtracted to give the load-to-use latency.
void chase(const MechanismOptions& o, const sim::GpuModel& g, double int_latency, Rows& out) {
  struct Level { const char* name; uint64_t span_words, step_words; int steps; };
  const Level levels[] = {
      {"L1", 4096, 32, 512},                 // 16 KB: every SM's L1 holds it
      {"L2", 512 * 1024, 32, 16384},         // 2 MB: larger than any L1, smaller than any L2
      {"DRAM", 16ull << 20, 1024, 2048},     // 64 MB, 4 KB apart: every step a new line, never reused
  };
  for (const Level& L : levels) {
    double c[2];
    Run last;
    for (int k = 0; k < 2; ++k) {
      last = run(o, g, "chase.cu", "chase", {1, 1, 1}, {1, 1, 1},
                 {"u32[" + n(L.span_words) + "]", "u32[1]", "i32=" + n(uint64_t(L.steps) * (k + 1)),
                  "u32=" + n(L.step_words), "u32=" + n(L.span_words)});
      c[k] = last.cycles;
    }
    const double per_step = (c[1] - c[0]) / L.steps;
    MechanismRow m = row(g, "chase", L.name, 0, per_step - 4 * int_latency, "cycles", last);
    cite(m, L.name);
    out.push_back(m);
  }
  if (g.cc_major < 9) return;
  // Hopper's copy engine (what TMA drives): one cp.async.bulk of B bytes at a
  // time, each waited for on its mbarrier. The source walks kChainShort
  // copies' worth of bytes, so the short chain brings them into L2 and the
  // long chain's extra links are L2 hits: the difference is the L2-to-shared
  // latency of one copy of B bytes.
  for (uint64_t bytes : {1024ull, 16384ull}) {
    const uint64_t span = bytes * kChainShort;
    const ChainTime c = chain_time(o, g, "hopper_latency.cu", "chain_bulk_copy", 32,
                                   {"u8[" + n(span) + "]", "f32[32]", "u32=" + n(span)}, {"BYTES=" + n(bytes)});
    const std::string point = fmt::format("bulk copy {} KB", bytes / 1024);
    MechanismRow m = row(g, "chase", point, double(bytes), c.per_link, "cycles", c.last);
    cite(m, point);
    out.push_back(m);
  }
}

// Dependent issue: one warp per class, a chain of the class's operations
// (chain_time), and on Hopper one warpgroup's wgmma chain.
double dependent(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  struct Class { const char* name; const char* kernel; std::vector<std::string> args; };
  const std::vector<Class> classes = {
      {"FP32", "chain_fp32", {"f32[32]", "f32=1.0001", "f32=0.5"}},
      {"INT", "chain_int", {"i32[32]", "i32=3", "i32=1"}},
      {"INT div", "chain_idiv", {"i32[32]", "i32=1", "i32=1"}},
      {"MUFU", "chain_mufu", {"f32[32]"}},
      {"FP64", "chain_fp64", {"f64[32]", "f64=1.0001", "f64=0.5"}},
      {"tensor", "chain_mma", {"f32[32]"}},
  };
  double int_latency = 0;
  for (const Class& k : classes) {
    const ChainTime c = chain_time(o, g, "dependent.cu", k.kernel, 32, k.args);
    MechanismRow m = row(g, "dependent", k.name, 0, c.per_link, "cycles", c.last);
    cite(m, k.name);
    if (std::string(k.name) == "INT") int_latency = std::floor(c.per_link + 0.5);
    out.push_back(m);
  }
  if (g.cc_major >= 9) {
    // Hopper's warpgroup MMA, one warpgroup: issue, commit, wait_group 0 per
    // link (hopper_latency.cu), as a loop that does not pipeline its wgmmas pays.
    for (int wg_n : {128, 256}) {
      const std::string point = fmt::format("wgmma m64n{}k16", wg_n);
      const ChainTime c = chain_time(o, g, "hopper_latency.cu", fmt::format("chain_wgmma_n{}", wg_n), 128, {"f32[128]"});
      MechanismRow m = row(g, "dependent", point, wg_n, c.per_link, "cycles", c.last);
      cite(m, point);
      out.push_back(m);
    }
  }
  return int_latency;
}

// Peak rates: FP32 FMA and the tensor cores (mma.sync, WMMA and on Hopper wgmma), every SM busy.
void peak(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  {
    const uint32_t blocks = uint32_t(g.sm_count) * 4;
    const int reps = 512;
    // Only the timed blocks run (sample_only): a rate, no output to keep; the
    // prediction is the same, the interpreter's work a sixteenth.
    Run r = run(o, g, "peak.cu", "fp32_peak", {blocks, 1, 1}, {256, 1, 1},
                {"f32[" + n(uint64_t(blocks) * 256) + "]", "f32=1.0001", "f32=0.5", "i32=" + n(reps)}, true);
    const double flops = double(blocks) * 256 * reps * 8 * 2;
    MechanismRow m = row(g, "peak", "FP32 FMA", 0, flops / r.seconds / 1e12, "TFLOP/s", r);
    m.rated = g.fp32_flops / 1e12;
    m.source = "rated peak (datasheet)";
    out.push_back(m);
  }
  if (g.fp16_tensor_flops <= 0) return;
  const uint32_t blocks = uint32_t(g.sm_count) * 4;
  const uint64_t warps = uint64_t(blocks) * 4;
  {
    const int reps = 1024;  // about 60 us on an H100: the launch is lost beside it
    Run r = run(o, g, "peak.cu", "mma_peak", {blocks, 1, 1}, {128, 1, 1},
                {"f32[" + n(uint64_t(blocks) * 128) + "]", "i32=" + n(reps)}, true);
    const double flops = double(warps) * reps * 4 * 2.0 * 16 * 8 * 16;
    MechanismRow m = row(g, "peak", "mma.sync f16", 0, flops / r.seconds / 1e12, "TFLOP/s", r);
    m.rated = g.fp16_tensor_flops / 1e12;
    if (g.cc_major >= 9) {
      m.published = m.rated * 494.4 / 756.5;
      m.source = "[LUO25] H800 mma.sync m16n8k16 at 65.3% of the dense peak (wgmma's), applied to the rated peak";
    } else {
      m.source = "rated dense FP16 tensor peak (datasheet)";
    }
    out.push_back(m);
  }
  if (g.cc_major >= 7) {
    const int reps = 512;  // as long as the mma.sync row's run
    Run r = run(o, g, "wmma_peak.cu", "wmma_peak", {blocks, 1, 1}, {128, 1, 1},
                {"f16[256]=fill:1", "f32[" + n(warps * 256) + "]", "i32=" + n(reps)}, true);
    const double flops = double(warps) * reps * 4 * 2.0 * 16 * 16 * 16;
    MechanismRow m = row(g, "peak", "wmma f16", 0, flops / r.seconds / 1e12, "TFLOP/s", r);
    m.rated = g.fp16_tensor_flops / 1e12;
    if (g.cc_major >= 9) {
      m.published = m.rated * 353.8 / 989.4;
      m.source = "[LAB-H200] this kernel at 353.8 of 989.4 TFLOP/s on an H200, applied to the rated peak";
    } else {
      m.source = "rated dense FP16 tensor peak (datasheet)";
    }
    out.push_back(m);
  }
  if (g.cc_major >= 9) {
    // Hopper's warpgroup MMA: one warpgroup per block, two blocks per SM.
    const uint32_t wg_blocks = uint32_t(g.sm_count) * 2;
    const int reps = 256;  // about 80 us on an H100: the launch is lost beside it
    // Only the timed blocks run (a rate, no output to keep): each wgmma is a
    // 16 x 256 x 16 product per warp for the interpreter.
    Run r = run(o, g, "wgmma_peak.cu", "wgmma_peak", {wg_blocks, 1, 1}, {128, 1, 1},
                {"f32[" + n(uint64_t(wg_blocks) * 128) + "]", "i32=" + n(reps)}, true);
    const double flops = double(wg_blocks) * reps * 2.0 * 64 * 256 * 16;
    MechanismRow m = row(g, "peak", "wgmma f16", 0, flops / r.seconds / 1e12, "TFLOP/s", r);
    m.rated = g.fp16_tensor_flops / 1e12;
    m.published = m.rated * 665.4 / 756.5;
    m.source = "[LUO25] H800 wgmma m64n256k16 (shared-memory operands, random data) at 88.0% of the dense peak, "
               "applied to the rated peak";
    out.push_back(m);
  }
}

// STREAM on 64 MB float4 arrays (larger than every model's L2), timed on a
// sample of blocks.
void stream(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  const uint64_t elems = 1ull << 22;  // float4 elements: 64 MB per array
  const uint32_t blocks = uint32_t(elems / 256);
  const std::string arr = "f32[" + n(elems * 4) + "]";
  struct K { const char* name; const char* kernel; std::vector<std::string> args; int arrays; };
  const std::vector<K> ks = {
      {"copy", "stream_copy", {arr, arr}, 2},
      {"scale", "stream_scale", {arr, arr, "f32=3"}, 2},
      {"add", "stream_add", {arr, arr, arr}, 3},
      {"triad", "stream_triad", {arr, arr, arr, "f32=3"}, 3},
  };
  for (const K& k : ks) {
    Run r = run(o, g, "stream.cu", k.kernel, {blocks, 1, 1}, {256, 1, 1}, k.args, true);
    const double gbs = double(elems) * 16 * k.arrays / r.seconds / 1e9;
    MechanismRow m = row(g, "stream", k.name, 0, gbs, "GB/s", r);
    m.rated = double(g.dram_bytes_per_s) / 1e9;
    const sim::cycle::AchievableDram a = sim::cycle::achievable_dram(g);
    m.published = a.bytes_per_s / 1e9;
    m.source = std::string(a.source);
    out.push_back(m);
  }
}

// The L2's read bandwidth: a full grid reads a 16 MB buffer (in every
// model's L2 once the first pass has brought it from DRAM) past the L1, 32
// passes. The rate counts all 32 over the whole time, the first pass's DRAM
// reads and the launch included: a few percent under the L2's own rate,
// never above it (a difference of two pass counts, as the chains take, came
// out above the model's own L2 rate: the long run overlaps its DRAM pass).
void l2_read(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  if (g.l2_bytes < (32ull << 20)) return;  // the buffer would not stay in L2
  const uint64_t elems = 1ull << 20;        // float4s: 16 MB
  const uint32_t blocks = uint32_t(g.sm_count) * 4;
  const int reps = 32;
  Run r = run(o, g, "l2_read.cu", "l2_read", {blocks, 1, 1}, {256, 1, 1},
              {"f32[" + n(elems * 4) + "]", "f32[" + n(uint64_t(blocks) * 256) + "]", "u32=" + n(elems),
               "i32=" + n(reps)},
              true);
  MechanismRow m = row(g, "stream", "L2 read", 0, double(elems) * 16 * reps / r.seconds / 1e9, "GB/s", r);
  m.rated = g.l2_bytes_per_clock * g.boost_clock_hz / 1e9;  // the model's input (on Hopper itself from this row)
  cite(m, "L2 read");
  out.push_back(m);
}

// DRAM reads against the bytes each thread keeps in flight, and writes
// (dram_flight.cu): one full wave of 256-thread blocks over a 256 MB array,
// larger than every model's L2. Reads rise with the bytes in flight (Little's
// law) until the DRAM's read rate caps them; writes need no reply, so one
// store per thread meets the write rate. The GPU's figures are the reference
// where the lab measured them (docs/fidelity/h100/mech-cuda-dram.json).
void dram(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  const uint64_t bytes = 256ull << 20;
  const uint32_t per_sm = uint32_t(std::max(1, g.max_threads_per_sm / 256));
  const uint32_t blocks = uint32_t(g.sm_count) * per_sm;
  const uint64_t threads = uint64_t(blocks) * 256;
  struct P { std::string kind; const char* vec; int width, loads; };  // kind: read, write, copy
  const P points[] = {{"read", "float", 4, 1},   {"read", "float2", 8, 1}, {"read", "float", 4, 4},
                      {"read", "float4", 16, 1}, {"read", "float4", 16, 2}, {"read", "float4", 16, 4},
                      {"read", "float4", 16, 8}, {"write", "float", 4, 1},  {"write", "float4", 16, 1},
                      {"copy", "float", 4, 1},   {"copy", "float2", 8, 1},  {"copy", "float4", 16, 1},
                      {"copy", "float4", 16, 4}};
  for (const P& p : points) {
    const uint64_t per_pass = threads * uint64_t(p.loads) * uint64_t(p.width);
    const std::string& kind = p.kind;
    // A copy reads one 128 MB array and writes another: 256 MB moved.
    const uint64_t array = kind == "copy" ? bytes / 2 : bytes;
    const int passes = int(array / per_pass);
    // Zeros (a sum of them is never `never`): the values do not matter, and
    // drawing 256 MB of random ones took longer than the timed slice.
    std::vector<std::string> args = {"f32[" + n(array / 4) + "]"};
    if (kind == "read") args.insert(args.end(), {"f32[" + n(threads) + "]", "i32=" + n(passes), "f32=-1"});
    if (kind == "write") args.insert(args.end(), {"i32=" + n(passes), "f32=2"});
    if (kind == "copy") args.insert(args.end(), {"f32[" + n(array / 4) + "]", "i32=" + n(passes)});
    Run r = run(o, g, "dram_flight.cu", "dram_" + kind, {blocks, 1, 1}, {256, 1, 1}, args, true,
                {"VEC=" + std::string(p.vec), "LOADS=" + n(p.loads)});
    const double moved = double(per_pass) * passes * (kind == "copy" ? 2 : 1);
    const double gbs = moved / r.seconds / 1e9;
    const std::string point = fmt::format("{} {}x{} B", kind, p.loads, p.width);
    // x: the bytes a full SM keeps in flight (writes: those one pass issues).
    MechanismRow m = row(g, "dram", point, double(per_sm) * 256 * p.loads * p.width / 1024, gbs, "GB/s", r);
    m.rated = double(g.dram_bytes_per_s) / 1e9;
    cite(m, point);
    out.push_back(m);
  }
}

// Loads that hit in the L1 (l1_hits.cu): warp loads an SM serves per cycle
// against the warps it holds. Up to 8 warps an SM holds one block, so one,
// two and four warps sit on one, two and four sub-partitions (a block's warp
// w on sub-partition w mod 4): whether a sub-partition issues a load a cycle
// or the SM's L1 is the only limit shows between 1 and 4 warps; many warps
// show the L1's own rate (one tag lookup, 128 bytes, a cycle: [VOLTA]'s
// 128 B/clk/SM; the coalesced GEMM's H100 measurement, 0.76 of it, is the
// figure this sweep was made to explain).
// The hits are the SM's own: a slice of an eighth of the default budget
// (2 of 31 SMs at 64 warps per SM) times the same rate as the full one.
constexpr double kL1TimedWarpInsts = sim::kDefaultTimedWarpInsts / 8;

void l1(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  struct P { const char* name; int mode, loads, loads_per_step; std::vector<int> warps; };
  const P points[] = {{"coalesced 4 B", 0, 16, 1, {1, 2, 4, 8, 16, 32, 64}},
                      {"broadcast", 1, 16, 1, {1, 4, 64}},
                      {"broadcast + coalesced", 2, 8, 2, {4, 32, 64}},
                      {"coalesced 16 B", 3, 4, 1, {1, 4, 64}}};
  const int max_warps = g.max_threads_per_sm / 32;
  for (const P& p : points)
    for (int w : p.warps) {
      if (w > max_warps) continue;
      const uint32_t block = uint32_t(std::min(w, 8) * 32);
      const uint32_t blocks = uint32_t(g.sm_count) * uint32_t(w * 32 / block);
      const int reps = std::max(256, 2048 / w);
      Run r = run(o, g, "l1_hits.cu", "l1_hits", {blocks, 1, 1}, {block, 1, 1},
                  {"f32[4096]=rand", "f32[" + n(uint64_t(blocks) * block) + "]", "i32=" + n(reps), "f32=-1"}, true,
                  {"MODE=" + n(p.mode), "LOADS=" + n(p.loads)}, kL1TimedWarpInsts);
      const double loads = double(w) * reps * p.loads * p.loads_per_step;
      const std::string point = fmt::format("{}, {} warps/SM", p.name, w);
      MechanismRow m = row(g, "l1", point, w, loads / r.cycles, "loads/cycle/SM", r);
      cite(m, point);
      out.push_back(m);
    }
}

// DRAM pages (dram_pages.cu): a full wave reads (or writes) a 256 MB array
// once, a 128-byte line per warp access, 4 in flight per thread; neighbouring
// warps' lines are STRIDE lines apart. The same sectors either way; on the
// GPU the order decides how many DRAM pages the accesses in flight open.
void pages(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  const unsigned segs_log2 = 21;  // 2^21 lines of 128 bytes: 256 MB
  const uint32_t per_sm = uint32_t(std::max(1, g.max_threads_per_sm / 256));
  const uint32_t blocks = uint32_t(g.sm_count) * per_sm;
  const uint64_t warps = uint64_t(blocks) * 8, loads = 4;
  const uint64_t moved = ((1ull << segs_log2) / (warps * loads)) * warps * loads * 128;
  struct P { const char* kind; int stride_log2; };
  const P points[] = {{"read", 0}, {"read", 3}, {"read", 5}, {"read", 7}, {"read", 10},
                      {"write", 0}, {"write", 5}, {"write", 7}, {"write", 10}};
  for (const P& p : points) {
    const bool read = std::string(p.kind) == "read";
    std::vector<std::string> args = {"f32[" + n((1ull << segs_log2) * 32) + "]"};  // zeros, as in dram()
    if (read) args.insert(args.end(), {"f32[" + n(uint64_t(blocks) * 256) + "]", "u32=" + n(segs_log2), "f32=-1"});
    else args.insert(args.end(), {"u32=" + n(segs_log2), "f32=2"});
    Run r = run(o, g, "dram_pages.cu", read ? "pages_read" : "pages_write", {blocks, 1, 1}, {256, 1, 1}, args, true,
                {"LOADS=" + n(loads), "STRIDE_LOG2=" + n(uint64_t(p.stride_log2))});
    const std::string point = fmt::format("{}, lines {} B apart", p.kind, 128ull << p.stride_log2);
    MechanismRow m = row(g, "pages", point, double(128ull << p.stride_log2), double(moved) / r.seconds / 1e9, "GB/s", r);
    m.rated = double(g.dram_bytes_per_s) / 1e9;
    cite(m, point);
    out.push_back(m);
  }
  // Few loads in flight: one warp per SM, a group of loads then their sum,
  // group after group; the cycles a group takes against how far apart its
  // lines lie (one stretch, or a DRAM page each).
  const int groups = 512;
  const uint64_t per_warp_floats = (1ull << 20) / 4;
  struct L { int group; unsigned apart; };
  for (const L l : {L{16, 1}, L{16, 8}, L{16, 128}, L{4, 1}, L{4, 128}}) {
    const uint32_t blocks = uint32_t(g.sm_count);
    Run r = run(o, g, "dram_pages.cu", "pages_latency", {blocks, 1, 1}, {32, 1, 1},
                {"f32[" + n(uint64_t(blocks) * per_warp_floats) + "]", "f32[" + n(uint64_t(blocks) * 32) + "]",
                 "u32=" + n(l.apart), "i32=" + n(uint64_t(groups)), "f32=-1"},
                true, {"GROUP=" + n(uint64_t(l.group))});
    const std::string point = fmt::format("{} loads in flight, lines {} B apart", l.group, 128ull * l.apart);
    MechanismRow m = row(g, "pages", point, double(128ull * l.apart), r.cycles / groups, "cycles/group", r);
    cite(m, point);
    out.push_back(m);
  }
}

// Divergence: the same two paths split by lane parity (every warp runs both)
// or by warp (each runs one). The ratio is 2 by the SIMT rule [PG].
void divergence(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  const uint32_t blocks = uint32_t(g.sm_count) * 4;
  double t[2];
  Run r[2];
  for (int split = 0; split < 2; ++split) {
    r[split] = run(o, g, "divergence.cu", "two_paths", {blocks, 1, 1}, {256, 1, 1},
                   {"f32[" + n(uint64_t(blocks) * 256) + "]", "i32=" + n(split), "f32=1.0001", "f32=0.5", "i32=64"});
    t[split] = r[split].cycles;
  }
  MechanismRow m = row(g, "divergence", "split / uniform", 2, t[1] / t[0], "x time", r[1]);
  m.published = 2;
  m.source = "[PG] rule: a warp runs each taken path in turn";
  out.push_back(m);
}

// Latency hiding: W warps per SM, each a chain of dependent loads that miss
// L1. Loads per SM per cycle grow with W (Little's law) until the DRAM
// bandwidth share of the SM caps them. warp_chase's chains cross (some
// loads hit L2 from 16 warps per SM on); warp_chase_distinct's never do.
void hiding(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  const int steps = 32;
  const uint64_t span = 16ull << 20;  // 64 MB of words
  // One sweep: `kernel` at each count of warps per SM, the reference Little's
  // law on its own one-warp rate (or a measurement where the table has one).
  auto sweep = [&](const char* kernel, std::initializer_list<int> warps, const char* suffix) {
    double one = 0;
    for (int w : warps) {
      const uint32_t blocks = uint32_t(g.sm_count);
      Run r = run(o, g, "latency_hiding.cu", kernel, {blocks, 1, 1}, {uint32_t(32 * w), 1, 1},
                  {"u32[" + n(span) + "]", "u32[" + n(uint64_t(blocks) * 32 * w) + "]", "i32=" + n(steps),
                   "u32=" + n(span)});
      const double loads_per_cycle = double(w) * steps / r.cycles;
      if (w == 1) one = loads_per_cycle;
      MechanismRow m = row(g, "hiding", fmt::format("{} warps/SM{}", w, suffix), w, loads_per_cycle * 1000,
                           "loads/kcycle/SM", r);
      m.published = one * w * 1000;
      m.source = "rule: Little's law, W x the 1-warp rate (Volkov 2016)";
      cite(m, m.point);
      out.push_back(m);
    }
  };
  sweep("warp_chase", {1, 2, 4, 8, 16, 32}, "");
  // Chains that share no line: every load goes to DRAM, Little's law over
  // the DRAM latency alone.
  sweep("warp_chase_distinct", {1, 8, 32}, ", no line shared");
}

// Atomics: every thread to one address, or each to its own.
void atomics(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  const uint32_t blocks = uint32_t(g.sm_count);
  const uint64_t threads = uint64_t(blocks) * 256;
  const int reps = 8;
  for (int spread = 0; spread < 2; ++spread) {
    Run r = run(o, g, "atomics.cu", "atomic_add", {blocks, 1, 1}, {256, 1, 1},
                {"u32[" + n(threads) + "]", "i32=" + n(spread), "i32=" + n(reps)});
    const double per_cycle = double(threads) * reps / r.cycles;
    MechanismRow m = row(g, "atomics", spread ? "distinct addresses" : "one address", spread, per_cycle,
                         "updates/cycle", r);
    if (!spread) {
      m.published = 1;
      m.source = "[KEP] same-address atomics at one per clock";
      cite(m, "one address");  // the lab's measurement, where the model takes its input from it
    }
    out.push_back(m);
  }
  // Floating-point adds to one address: their own rate where it was measured.
  Run r = run(o, g, "atomics.cu", "atomic_add_f32", {blocks, 1, 1}, {256, 1, 1},
              {"f32[" + n(threads) + "]", "i32=0", "i32=" + n(reps)});
  MechanismRow m = row(g, "atomics", "one address, f32 add", 0, double(threads) * reps / r.cycles, "updates/cycle", r);
  cite(m, "one address, f32 add");
  out.push_back(m);
}

// Blocks placed: grids of 1 to 64 nearly empty 128-thread blocks per SM, and
// 32-, 256- and 1024-thread ones. The time per block per SM is what placing,
// running and retiring one costs where the block itself does next to
// nothing. Then blocks that read one line per warp and end (short_read), the
// shape of a reduction's first pass: the DRAM rate they reach beside the
// dram rows' one long-lived wave. The model places a block the cycle a slot
// frees; on a GPU (`--measure`) the rows time what the GPU takes, the empty
// launch taken off. No figure is published for these parts
// (arabel1a/gpu-micro-bench's sweep on an RTX 3090 times blocks that do
// work: docs/fidelity.md, fifteenth round).
void blocks(const MechanismOptions& o, const sim::GpuModel& g, Rows& out) {
  const char* none = "none published for this part: `bench mechanisms --only blocks --backend cuda` on the GPU times it";
  struct P { uint32_t per_sm, threads; };
  for (P p : {P{1, 128}, P{8, 128}, P{32, 128}, P{64, 128}, P{64, 32}, P{64, 256}, P{32, 1024}}) {
    const uint32_t grid = uint32_t(g.sm_count) * p.per_sm;
    Run r = run(o, g, "blocks.cu", "one_store", {grid, 1, 1}, {p.threads, 1, 1}, {"u32[" + n(grid) + "]"});
    const std::string point = p.threads == 128 ? fmt::format("{} blocks/SM", p.per_sm)
                                               : fmt::format("{} blocks/SM of {} threads", p.per_sm, p.threads);
    MechanismRow m = row(g, "blocks", point, p.per_sm, r.cycles / p.per_sm, "cycles/block/SM", r);
    m.source = none;
    cite(m, point);
    out.push_back(m);
  }
  // Short reads over 256 MB (beyond every model's L2), one block per
  // LOADS x threads x 4 bytes: 65,536 to 262,144 blocks.
  const uint64_t bytes = 256ull << 20;
  struct R { uint32_t loads, threads; };
  for (R p : {R{1, 256}, R{4, 256}, R{1, 1024}}) {
    const uint32_t grid = uint32_t(bytes / (uint64_t(p.loads) * p.threads * 4));
    Run r = run(o, g, "blocks.cu", "short_read", {grid, 1, 1}, {p.threads, 1, 1},
                {"f32[" + n(bytes / 4) + "]", "f32[" + n(p.threads) + "]", "f32=-1"}, true,  // zeros, as in dram()
                {"LOADS=" + n(p.loads)});
    const std::string point = fmt::format("short reads {}x4 B, {}-thread blocks", p.loads, p.threads);
    MechanismRow m = row(g, "blocks", point, double(p.loads) * p.threads * 4, double(bytes) / r.seconds / 1e9, "GB/s", r);
    m.rated = double(g.dram_bytes_per_s) / 1e9;
    m.source = none;
    cite(m, point);
    out.push_back(m);
  }
}

}  // namespace

const std::vector<std::string>& mechanism_keys() {
  static const std::vector<std::string> k = {"banks", "stride", "chase",  "dependent", "peak",
                                             "stream", "dram", "divergence", "hiding", "atomics",
                                             "l1",     "pages",  "blocks"};
  return k;
}

MechanismReport run_mechanisms(const MechanismOptions& o) {
  for (const auto& k : o.only)
    if (std::find(mechanism_keys().begin(), mechanism_keys().end(), k) == mechanism_keys().end())
      throw std::runtime_error(fmt::format("no mechanism named '{}' (known: {})", k, fmt::join(mechanism_keys(), ", ")));
  auto want = [&](const char* k) { return o.only.empty() || std::find(o.only.begin(), o.only.end(), k) != o.only.end(); };
  std::vector<const sim::GpuModel*> gpus = o.gpus;
  if (gpus.empty())
    for (const char* name : {"H100", "A100", "V100", "T4"}) gpus.push_back(&sim::gpu_model(name));
  MechanismReport rep;
  for (const sim::GpuModel* g : gpus) {
    auto step = [&](const char* k) { if (o.progress) o.progress(fmt::format("mechanisms: {} on {} ...", k, g->name)); };
    double int_latency = 4;
    if (want("dependent") || want("chase")) {
      step("dependent");
      Rows tmp;
      int_latency = dependent(o, *g, tmp);
      if (want("dependent")) rep.rows.insert(rep.rows.end(), tmp.begin(), tmp.end());
    }
    if (want("banks")) step("banks"), banks(o, *g, rep.rows);
    if (want("stride")) step("stride"), stride(o, *g, rep.rows);
    if (want("chase")) step("chase"), chase(o, *g, int_latency, rep.rows);
    if (want("peak")) step("peak"), peak(o, *g, rep.rows);
    if (want("stream")) step("stream"), stream(o, *g, rep.rows), l2_read(o, *g, rep.rows);
    if (want("dram")) step("dram"), dram(o, *g, rep.rows);
    if (want("divergence")) step("divergence"), divergence(o, *g, rep.rows);
    if (want("hiding")) step("hiding"), hiding(o, *g, rep.rows);
    if (want("atomics")) step("atomics"), atomics(o, *g, rep.rows);
    if (want("l1")) step("l1"), l1(o, *g, rep.rows);
    if (want("pages")) step("pages"), pages(o, *g, rep.rows);
    if (want("blocks")) step("blocks"), blocks(o, *g, rep.rows);
  }
  if (o.measure_on_gpu) {
    rep.device = gpu_side().device;
    rep.launch_floor_ms = gpu_side().floor_ms;
  }
  return rep;
}

// ---- [OUTPUT] ------------------------------------------------------------------------
namespace {
std::string num(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}
std::string vs(const MechanismRow& r) {
  if (!r.published || *r.published == 0) return "";
  return fmt::format("{:+.0f}%", (r.value / *r.published - 1) * 100);
}
}  // namespace

std::string format_mechanisms(const MechanismReport& rep) {
  std::string s;
  std::string gpu;
  size_t w = 20;  // the point column, as wide as the longest point
  for (const auto& r : rep.rows) w = std::max(w, r.point.size());
  for (const auto& r : rep.rows) {
    if (r.gpu != gpu) {
      gpu = r.gpu;
      s += r.measured ? fmt::format("\n{} model, MEASURED on {} (events, less a {:.4f} ms empty launch)\n", gpu,
                                    rep.device, rep.launch_floor_ms)
                      : fmt::format("\n{} (every figure a prediction of the cycle model)\n", gpu);
      s += fmt::format("  {:<11} {:<{}} {:>9} {:<16} {:>9} {:>6} {:>8}  {:<16} {}\n", "mechanism", "point", w, "lab",
                       "unit", "reference", "error", "rated", "limiter", "source of the reference");
    }
    s += fmt::format("  {:<11} {:<{}} {:>9} {:<16} {:>9} {:>6} {:>8}  {:<16} {}\n", r.mechanism, r.point, w, num(r.value),
                     r.unit, r.published ? num(*r.published) : "-", vs(r), r.rated > 0 ? num(r.rated) : "",
                     r.limiter, r.source);
  }
  return s;
}

std::string mechanisms_markdown(const MechanismReport& rep) {
  const bool measured = !rep.rows.empty() && rep.rows.front().measured;
  std::string s = std::string("| GPU | mechanism | point | ") + (measured ? "measured on " + rep.device : "lab (predicted)") +
                  " | unit | reference | error | rated peak | source |\n"
                  "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : rep.rows)
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r.gpu, r.mechanism, r.point, num(r.value),
                     r.unit, r.published ? num(*r.published) : "-", vs(r), r.rated > 0 ? num(r.rated) : "", r.source);
  return s;
}

nlohmann::json mechanisms_json(const MechanismReport& rep) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : rep.rows) {
    nlohmann::json j = {{"gpu", r.gpu},       {"mechanism", r.mechanism}, {"point", r.point},
                        {"x", r.x},           {"value", r.value},         {"unit", r.unit},
                        {"cycles", r.cycles}, {"limiter", r.limiter},     {"source", r.source},
                        {"wavefronts_per_request", r.wavefronts_per_request},
                        {"sectors_per_request", r.sectors_per_request},   {"predicted", !r.measured}};
    j["published"] = r.published ? nlohmann::json(*r.published) : nlohmann::json(nullptr);
    j["rated"] = r.rated > 0 ? nlohmann::json(r.rated) : nlohmann::json(nullptr);
    rows.push_back(j);
  }
  nlohmann::json j = {{"rows", rows}};
  if (!rep.device.empty()) j["device"] = rep.device, j["launch_floor_ms"] = rep.launch_floor_ms;
  return j;
}

}  // namespace lab::bench
