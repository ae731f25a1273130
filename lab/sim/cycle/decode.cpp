// lab/sim/cycle/decode.cpp: unit, latency and register slots per instruction.
#include "lab/sim/cycle/decode.h"

#include "lab/ptx/cfg.h"
#include "lab/sim/timing.h"

namespace lab::sim::cycle {

using ptx::Op;

namespace {

// How many leading operands are destinations (PTX lists destinations first;
// module.h's operand-order table).
int destinations(const ptx::Instr& in) {
  switch (in.op) {
    case Op::St: case Op::Red: case Op::BarSync: case Op::BarArrive: case Op::Bra: case Op::Exit: case Op::Ret:
    case Op::Call: case Op::Membar: case Op::Fence: case Op::Nop: case Op::Prefetch: case Op::CpAsync:
    case Op::CpAsyncCommitGroup: case Op::CpAsyncWaitGroup: case Op::CpAsyncWaitAll: case Op::Stmatrix:
    case Op::WmmaStoreD: case Op::BarWarpSync: case Op::Nanosleep:
      return 0;
    case Op::Setp: case Op::ShflSync:
      return 2;
    default:
      return 1;
  }
}

void operand_slots(const ptx::Kernel& k, const ptx::Operand& o, std::vector<uint32_t>& out) {
  switch (o.kind) {
    case ptx::OperandKind::Reg:
    case ptx::OperandKind::Addr:
      if (o.reg < ptx::kSinkReg) out.push_back(o.reg);
      break;
    case ptx::OperandKind::Vec:
      for (uint32_t i = 0; i < o.vec_len; ++i)
        if (o.reg + i < k.vec_slots.size() && k.vec_slots[o.reg + i] < ptx::kSinkReg) out.push_back(k.vec_slots[o.reg + i]);
      break;
    default: break;
  }
}

}  // namespace

DecodedKernel decode_kernel(const ptx::Kernel& k, const CycleParams& p) {
  DecodedKernel dk;
  dk.num_slots = 0;
  dk.code.resize(k.code.size());
  std::vector<uint32_t> reads, writes, dense;
  for (size_t pc = 0; pc < k.code.size(); ++pc) {
    const ptx::Instr& in = k.code[pc];
    DecodedInstr& d = dk.code[pc];
    reads.clear();
    writes.clear();
    const int nd = destinations(in);
    for (int i = 0; i < in.num_ops && i < ptx::kMaxOperands; ++i) {
      const ptx::Operand& o = in.ops[i];
      // An address operand's register is read even in a destination position (st [a], v).
      if (i < nd && o.kind != ptx::OperandKind::Addr) operand_slots(k, o, writes);
      else operand_slots(k, o, reads);
    }
    if (in.guard < ptx::kSinkReg) reads.push_back(in.guard);
    d.first = uint32_t(dk.slots.size());
    d.reads = uint16_t(reads.size());
    d.writes = uint16_t(writes.size());
    // Dense scoreboard indices: only registers some instruction names get one,
    // so a warp's scoreboard stays small (PTX declares many more).
    for (auto* v : {&reads, &writes})
      for (uint32_t slot : *v) {
        if (slot >= dense.size()) dense.resize(slot + 1, ptx::kNoReg);
        if (dense[slot] == ptx::kNoReg) dense[slot] = dk.num_slots++;
        dk.slots.push_back(dense[slot]);
      }

    switch (classify(in)) {
      case InstrClass::Fp32: d.unit = Unit::Fp32; d.latency = p.lat_fp32; d.hold = p.ii_fp32; break;
      case InstrClass::Int: d.unit = Unit::Int; d.latency = p.lat_int; d.hold = p.ii_int; break;
      case InstrClass::Fp64: d.unit = Unit::Fp64; d.latency = p.lat_fp64; d.hold = p.ii_fp64; break;
      case InstrClass::Sfu:
        d.unit = Unit::Sfu; d.latency = p.lat_sfu; d.hold = p.ii_sfu; d.dep = Stall::ShortScoreboard;
        break;
      case InstrClass::Tensor: {
        d.unit = Unit::Tensor;
        d.hold = p.tensor_cycles(in);
        d.latency = uint32_t(std::max<double>(p.lat_tensor, d.hold));
        break;
      }
      case InstrClass::Memory:
        d.unit = Unit::Memory;
        d.latency = p.lat_const;  // ld.param/ld.const (no L1TEX request); requests set their own
        d.dep = Stall::LongScoreboard;
        d.async_copy = in.op == Op::CpAsync;
        break;
      case InstrClass::Control:
      default:
        d.unit = Unit::Control;
        d.latency = p.lat_int;
        if (in.op == Op::BarSync || in.op == Op::BarRed) d.unit = Unit::Barrier;
        if (in.op == Op::CpAsyncWaitGroup || in.op == Op::CpAsyncWaitAll) d.unit = Unit::AsyncWait;
        // shfl/vote/redux go through the MIO like shared memory (Nsight: short scoreboard).
        if (in.op == Op::ShflSync || in.op == Op::ReduxSync || in.op == Op::MatchSync) {
          d.dep = Stall::ShortScoreboard;
          d.latency = p.lat_shared;
        }
        break;
    }
    d.plain_load = (in.op == Op::Ld || in.op == Op::Ldu) && !(in.flags & ptx::kFlagVolatile);
    d.fence = d.unit == Unit::Barrier || d.unit == Unit::AsyncWait || in.op == Op::BarArrive || in.op == Op::Membar ||
              in.op == Op::Fence || in.op == Op::Call || in.op == Op::Ret || in.op == Op::Exit ||
              in.op == Op::Atom || in.op == Op::Red || (in.op == Op::Bra && in.target >= 0 && size_t(in.target) <= pc);
    // Moves and conversions of memory addresses (cvta) are integer ops.
    if (in.op == Op::Cvta || in.op == Op::Isspacep) { d.unit = Unit::Int; d.latency = p.lat_int; d.hold = p.ii_int; d.dep = Stall::Wait; }
  }
  for (const ptx::BasicBlock& b : ptx::basic_blocks(k))
    if (b.first < dk.code.size()) dk.code[b.first].block_start = true;
  return dk;
}

}  // namespace lab::sim::cycle
