// lab/sim/timing.h: a PREDICTION of a kernel's time on a GPU model, from
// the work the simulator counted. The equations and their assumptions are in
// docs/timing-model.md; every number this produces is labelled a prediction.
#pragma once

#include <cstdint>
#include <string>

#include "lab/ptx/module.h"
#include "lab/sim/device.h"
#include "lab/sim/launch.h"
#include "lab/sim/schedule.h"

namespace lab::sim {

// Which SM pipe a warp instruction occupies.
enum class InstrClass : uint8_t { Fp32, Fp64, Int, Sfu, Memory, Tensor, Control, Count_ };
const char* instr_class_name(InstrClass c);  // "fp32", "fp64", "int", "sfu", "memory", "tensor", "control"
InstrClass classify(const ptx::Instr& in);

// Floating-point operations one guard-true lane of `in` performs (Nsight's
// convention: FMA = 2, add/mul = 1, f16x2 doubles; mma/wmma: 2*m*n*k per warp,
// so 2*m*n*k/32 per lane). Transcendentals and integer ops count 0.
double flops_per_lane(const ptx::Instr& in);

// Peak tensor FLOP/s of `gpu` for an mma/wmma with A/B type `t` (0 if unsupported).
double tensor_peak(const GpuModel& gpu, ptx::Type t);

struct Prediction {
  std::string gpu;
  double time_s = 0, time_ms = 0;
  std::string bound;    // "memory", "compute" or "latency"
  std::string limiter;  // the dominant term: dram, l2, l1_shared, issue, fp32, fp64, int, sfu, tensor, latency
  // Work the model used (whole kernel).
  double flops = 0, tensor_flops = 0;
  double dram_bytes = 0;
  uint64_t warp_insts_by_class[size_t(InstrClass::Count_)] = {};
  // Roofline.
  double arithmetic_intensity = 0;  // flops / DRAM byte (0 when no DRAM traffic: see ai_defined)
  bool ai_defined = false;
  double peak_flops = 0;            // the compute ceiling for this kernel's precision
  std::string peak_kind;            // "fp32", "fp64", "tensor_fp16", ...
  double attainable_flops = 0;      // min(peak, AI x DRAM bandwidth)
  double predicted_flops = 0;       // flops / time_s
  double ridge_intensity = 0;       // peak / DRAM bandwidth
  // Cycles per SM of each term for the busiest wave (what the bound compares).
  double c_issue = 0, c_fp32 = 0, c_fp64 = 0, c_int = 0, c_sfu = 0, c_tensor = 0;
  double c_l1_shared = 0, c_l2 = 0, c_dram = 0, c_latency = 0;
  double wave_cycles = 0;           // the full wave's cycles
  double total_cycles = 0;
  double launch_overhead_s = 0;
  std::string explanation;
};

Prediction predict_time(const ptx::Kernel& kernel, const KernelMetrics& metrics, const GpuModel& gpu,
                        const Schedule& schedule);

}  // namespace lab::sim
