// lab/sim/timing.cpp: the timing model (equations in docs/timing-model.md).
//
// Per SM and per wave of resident blocks, the time is the larger of
//   * throughput: for each shared resource (issue slots, FP32/FP64/INT/SFU
//     pipes, tensor cores, the L1/shared data path, L2 and DRAM bandwidth),
//     the resident blocks' work divided by the resource's rate; the busiest
//     resource sets the pace when enough warps hide latency;
//   * latency: one warp's own dependency chain (memory latencies it waits
//     for, instruction latencies), which no amount of other warps shortens.
// Waves run one after another; the last wave holds fewer blocks per SM.
#include "lab/sim/timing.h"

#include "lab/ptx/cfg.h"
#include "lab/sim/cycle/params.h"
#include "lab/sim/fragments.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace lab::sim {

using ptx::Op;
using ptx::Type;

const char* instr_class_name(InstrClass c) {
  switch (c) {
    case InstrClass::Fp32: return "fp32";
    case InstrClass::Fp64: return "fp64";
    case InstrClass::Int: return "int";
    case InstrClass::Sfu: return "sfu";
    case InstrClass::Memory: return "memory";
    case InstrClass::Tensor: return "tensor";
    case InstrClass::Control: return "control";
    default: return "?";
  }
}

// The pipe comes from the opcode table (lab/ptx/opcodes.def); the type picks
// between the fp64, fp32 and integer pipes.
InstrClass classify(const ptx::Instr& in) {
  const bool f64 = in.type == Type::F64;
  const bool fp = ptx::type_is_float(in.type);
  switch (ptx::op_info(in.op).pipe) {
    case ptx::OpPipe::Memory: return InstrClass::Memory;
    case ptx::OpPipe::Tensor: return InstrClass::Tensor;
    case ptx::OpPipe::Control: return InstrClass::Control;
    // The multi-function unit: transcendentals and reciprocals (MUFU).
    case ptx::OpPipe::Sfu: return f64 ? InstrClass::Fp64 : InstrClass::Sfu;
    case ptx::OpPipe::Div: return f64 ? InstrClass::Fp64 : fp ? InstrClass::Sfu : InstrClass::Int;
    case ptx::OpPipe::Move: return f64 ? InstrClass::Fp64 : InstrClass::Int;
    case ptx::OpPipe::Alu: break;
  }
  return f64 ? InstrClass::Fp64 : fp ? InstrClass::Fp32 : InstrClass::Int;
}

double flops_per_lane(const ptx::Instr& in) {
  if (const uint64_t f = frag::tensor_flops(in)) return double(f) / 32.0;
  if (!ptx::type_is_float(in.type)) return 0;
  double pack = (in.type == Type::F16x2 || in.type == Type::BF16x2) ? 2 : 1;
  switch (in.op) {
    case Op::Fma: case Op::Mad: return 2 * pack;
    case Op::Add: case Op::Sub: case Op::Mul: return 1 * pack;
    default: return 0;
  }
}

double tensor_peak(const GpuModel& g, Type t) {
  switch (t) {
    case Type::F16: case Type::F16x2: return g.fp16_tensor_flops;
    case Type::BF16: case Type::BF16x2: return g.bf16_tensor_flops ? g.bf16_tensor_flops : g.fp16_tensor_flops;
    case Type::TF32: case Type::F32: return g.tf32_tensor_flops ? g.tf32_tensor_flops : g.fp32_flops;
    case Type::F64: return g.cc_major >= 8 && g.fp64_lanes_per_sm >= 32 ? 2 * g.fp64_flops : g.fp64_flops;
    case Type::S8: case Type::U8: case Type::E4M3: case Type::E5M2: case Type::B8:
      return g.int8_tensor_ops;
    default: return g.fp16_tensor_flops;
  }
}

namespace {

// Where a batch of loads that wait together starts: the first instruction
// of each basic block (lab/ptx/cfg), and the instruction after a barrier,
// since loads behind a barrier cannot be issued before it.
std::vector<bool> batch_starts(const ptx::Kernel& k) {
  std::vector<bool> start(k.code.size() + 1, false);
  for (const ptx::BasicBlock& b : ptx::basic_blocks(k)) start[b.first] = true;
  for (size_t i = 0; i < k.code.size(); ++i)
    if (ptx::op_info(k.code[i].op).flags & ptx::kOpBarrier) start[i + 1] = true;
  return start;
}

// An access whose data the warp waits for: loads and value-returning atomics
// (not cp.async or red, which the warp does not wait on).
bool is_load_like(const ptx::Instr& in) {
  const ptx::OpInfo& op = ptx::op_info(in.op);
  return (op.mem == ptx::MemDir::Load || op.mem == ptx::MemDir::Atomic) && !(op.flags & ptx::kOpAsync);
}

}  // namespace

Prediction predict_time(const ptx::Kernel& kernel, const KernelMetrics& m, const GpuModel& g, const Schedule& s) {
  Prediction p;
  p.gpu = std::string(g.name);
  const double clock = g.boost_clock_hz;
  const size_t n = std::min(kernel.code.size(), m.per_pc.size());
  const std::vector<bool> bb = batch_starts(kernel);

  // ---- totals over the kernel ----------------------------------------------------
  double warp_by_class[size_t(InstrClass::Count_)] = {};
  double total_warp_insts = 0, global_sectors = 0, shared_wavefronts = 0, dram_bytes = 0;
  double fp64_flops = 0;
  double tensor_cycles_sm = 0;  // tensor-core cycles, summed over the kernel, per SM-cycle of rate
  double chain_cycles = 0;      // summed over all warps; divided by warp count below
  // Latency of a global load: L2 hit latency plus the DRAM share of the
  // misses (from the L2 model's per-pc DRAM bytes).
  bool batch_has_global = false, batch_has_shared = false;
  for (size_t pc = 0; pc < n; ++pc) {
    const auto& in = kernel.code[pc];
    const PcCounters& c = m.per_pc[pc];
    if (bb[pc]) batch_has_global = batch_has_shared = false;
    if (!c.warp_insts) continue;
    InstrClass cls = classify(in);
    warp_by_class[size_t(cls)] += double(c.warp_insts);
    p.warp_insts_by_class[size_t(cls)] += c.warp_insts;
    total_warp_insts += double(c.warp_insts);
    double f = flops_per_lane(in) * double(c.thread_insts);
    p.flops += f;
    if (cls == InstrClass::Tensor) {
      p.tensor_flops += f;
      double peak = tensor_peak(g, in.type2 != Type::None ? in.type2 : in.type);
      if (peak > 0) tensor_cycles_sm += f / (peak / (g.sm_count * clock));
    } else if (in.type == Type::F64) {
      fp64_flops += f;
    }
    global_sectors += double(c.sectors);
    shared_wavefronts += double(c.wavefronts);
    dram_bytes += double(c.dram_read_bytes + c.dram_write_bytes);

    // Latency chain. Loads of one basic block are issued back to back and
    // wait together (memory-level parallelism within a warp), so only the
    // first global and the first shared load of a block pay their latency.
    double lat = 1;  // issue
    if (is_load_like(in) && (c.sectors || c.wavefronts)) {
      if (c.sectors && !batch_has_global) {
        double miss = c.sectors ? std::min(1.0, double(c.dram_read_bytes) / (32.0 * double(c.sectors))) : 0;
        lat = g.l2_latency_cycles + miss * (g.dram_latency_cycles - g.l2_latency_cycles);
        batch_has_global = true;
      } else if (c.wavefronts && !c.sectors && !batch_has_shared) {
        lat = g.shared_latency_cycles;
        batch_has_shared = true;
      }
    } else if (cls == InstrClass::Fp32 || cls == InstrClass::Int) {
      lat = 1;  // issue; compiled loops interleave independent chains (unrolled k, register tiles)
    } else if (cls == InstrClass::Fp64 || cls == InstrClass::Sfu) {
      lat = 8;
    } else if (cls == InstrClass::Tensor) {
      lat = 16;
    } else if (in.op == Op::BarSync) {
      lat = 20;
    }
    chain_cycles += lat * double(c.warp_insts);
  }
  p.dram_bytes = dram_bytes;

  // ---- per block, per SM rates -----------------------------------------------------------
  const double blocks = std::max<double>(1, double(s.blocks));
  const double warps = std::max<double>(1, double(m.warps ? m.warps : s.blocks * s.warps_per_block));
  const double per_block = 1.0 / blocks;
  const double chain_per_warp = chain_cycles / warps;
  auto wave = [&](double k, double active_sms) {
    // Cycles for one SM running k resident blocks' work.
    const double w = k * per_block;
    Prediction q;
    q.c_issue = total_warp_insts * w / g.warp_schedulers_per_sm;
    q.c_fp32 = warp_by_class[size_t(InstrClass::Fp32)] * w / (g.fp32_lanes_per_sm / 32.0);
    q.c_fp64 = warp_by_class[size_t(InstrClass::Fp64)] * w / std::max(1.0 / 16, g.fp64_lanes_per_sm / 32.0);
    q.c_int = warp_by_class[size_t(InstrClass::Int)] * w / (g.int32_lanes_per_sm / 32.0);
    q.c_sfu = warp_by_class[size_t(InstrClass::Sfu)] * w / (g.sfu_lanes_per_sm / 32.0);
    q.c_tensor = tensor_cycles_sm * w;
    // L1/shared data path: 128 bytes per cycle = 4 global sectors or 1 shared wavefront.
    q.c_l1_shared = (global_sectors / 4.0 + shared_wavefronts) * w;
    // L2 and DRAM bandwidth are shared by the SMs that are busy.
    double sms = std::max(1.0, active_sms);
    q.c_l2 = global_sectors * 32.0 * w / (g.l2_bytes_per_clock / sms);
    q.c_dram = dram_bytes * w / (g.dram_bytes_per_s / clock / sms);
    q.c_latency = chain_per_warp;
    return q;
  };
  auto longest = [](const Prediction& q, std::string* which) {
    const std::pair<const char*, double> terms[] = {
        {"issue", q.c_issue}, {"fp32", q.c_fp32}, {"fp64", q.c_fp64},   {"int", q.c_int},
        {"sfu", q.c_sfu},     {"tensor", q.c_tensor}, {"l1_shared", q.c_l1_shared}, {"l2", q.c_l2},
        {"dram", q.c_dram},   {"latency", q.c_latency}};
    double best = 0;
    for (auto [name, v] : terms)
      if (v > best) best = v, *which = name;
    return best;
  };

  const double full_sms = std::min<double>(g.sm_count, double(s.blocks));
  Prediction full = wave(s.blocks_per_sm, full_sms);
  std::string full_limiter = "latency";
  double full_cycles = longest(full, &full_limiter);
  const double tail_sms = std::min<double>(g.sm_count, double(s.tail_blocks));
  Prediction tail = wave(s.last_wave_blocks_per_sm, tail_sms);
  std::string tail_limiter = "latency";
  double tail_cycles = longest(tail, &tail_limiter);
  double full_waves = s.waves ? double(s.waves - 1) : 0;
  p.total_cycles = full_waves * full_cycles + tail_cycles;

  // Report the terms of the wave that dominates the time.
  const Prediction& shown = full_waves * full_cycles >= tail_cycles ? full : tail;
  p.limiter = full_waves * full_cycles >= tail_cycles ? full_limiter : tail_limiter;
  p.c_issue = shown.c_issue, p.c_fp32 = shown.c_fp32, p.c_fp64 = shown.c_fp64, p.c_int = shown.c_int;
  p.c_sfu = shown.c_sfu, p.c_tensor = shown.c_tensor, p.c_l1_shared = shown.c_l1_shared;
  p.c_l2 = shown.c_l2, p.c_dram = shown.c_dram, p.c_latency = shown.c_latency;
  p.wave_cycles = full_waves * full_cycles >= tail_cycles ? full_cycles : tail_cycles;
  if (p.limiter == "latency") p.bound = "latency";
  else if (p.limiter == "dram" || p.limiter == "l2" || p.limiter == "l1_shared") p.bound = "memory";
  else p.bound = "compute";

  // A launch costs a few microseconds even when empty (kernel launch and
  // drain): the GPU model's measured empty launch, else 2 us (cycle/params.h).
  p.launch_overhead_s = cycle::launch_overhead(g);
  p.time_s = p.total_cycles / clock + p.launch_overhead_s;
  p.time_ms = p.time_s * 1e3;

  // ---- roofline -------------------------------------------------------------------
  if (p.tensor_flops > 0.5 * p.flops && p.tensor_flops > 0) {
    // Ceiling: the precision of the first tensor instruction.
    Type t = Type::F16;
    for (size_t pc = 0; pc < n; ++pc)
      if (classify(kernel.code[pc]) == InstrClass::Tensor && m.per_pc[pc].warp_insts) {
        t = kernel.code[pc].type2 != Type::None ? kernel.code[pc].type2 : kernel.code[pc].type;
        break;
      }
    p.peak_flops = tensor_peak(g, t);
    p.peak_kind = std::string("tensor_") + std::string(ptx::type_name(t) + 1);
  } else if (fp64_flops > 0.5 * p.flops && fp64_flops > 0) {
    p.peak_flops = g.fp64_flops, p.peak_kind = "fp64";
  } else {
    p.peak_flops = g.fp32_flops, p.peak_kind = "fp32";
  }
  p.ridge_intensity = p.peak_flops / g.dram_bytes_per_s;
  p.ai_defined = dram_bytes > 0;
  p.arithmetic_intensity = p.ai_defined ? p.flops / dram_bytes : 0;
  p.attainable_flops = p.ai_defined ? std::min(p.peak_flops, p.arithmetic_intensity * g.dram_bytes_per_s) : p.peak_flops;
  p.predicted_flops = p.time_s > 0 ? p.flops / p.time_s : 0;

  std::string what;
  if (p.limiter == "latency")
    what = fmt::format("each warp waits on its own chain of {:.0f} cycles (memory latency, dependent instructions) "
                       "and {} resident warps per SM are too few to hide it",
                       p.c_latency, s.blocks_per_sm * s.warps_per_block);
  else if (p.limiter == "dram") what = "DRAM bandwidth: the bytes that miss L2 set the pace";
  else if (p.limiter == "l2") what = "L2 bandwidth: every 32-byte sector a request touches crosses from L2 to the SM";
  else if (p.limiter == "l1_shared") what = "the L1/shared-memory data path: global sectors and shared wavefronts, 128 bytes per cycle per SM";
  else if (p.limiter == "issue") what = "instruction issue: 4 warp instructions per cycle per SM";
  else if (p.limiter == "tensor") what = "the tensor cores' peak rate";
  else what = fmt::format("the {} pipe's throughput", p.limiter);
  p.explanation = fmt::format(
      "PREDICTED (model, not a measurement) for {}: {:.4g} ms, {}-bound, limited by {}. {} wave{} of up to {} "
      "blocks ({} per SM); {:.0f} cycles per wave.",
      g.name, p.time_ms, p.bound, what, s.waves, s.waves == 1 ? "" : "s", s.blocks_per_wave, s.blocks_per_sm,
      p.wave_cycles);
  return p;
}

}  // namespace lab::sim
