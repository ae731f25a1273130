// lab/sim/cycle/decode.cpp: unit, latency and register slots per instruction.
#include "lab/sim/cycle/decode.h"

#include <algorithm>

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
  merge_shared_loads(k, dk);
  return dk;
}

void merge_shared_loads(const ptx::Kernel& k, DecodedKernel& dk) {
  // One candidate: a scalar 4-byte plain ld.shared [R + imm].
  auto candidate = [&](size_t pc) {
    const ptx::Instr& in = k.code[pc];
    return in.op == Op::Ld && in.space == ptx::Space::Shared && in.vec == 1 && ptx::type_bytes(in.type) == 4 &&
           !(in.flags & ptx::kFlagVolatile) && in.num_ops >= 2 && in.ops[0].kind == ptx::OperandKind::Reg &&
           in.ops[1].kind == ptx::OperandKind::Addr && in.ops[1].reg < ptx::kSinkReg && in.guard == ptx::kNoReg;
  };
  struct Load { size_t pc; int64_t imm; };
  std::vector<std::pair<uint32_t, std::vector<Load>>> open;  // address register -> its loads so far
  auto close = [&](std::vector<Load>& loads) {
    // Windows of 16 bytes, then of 8, each member present once.
    for (const int width : {16, 8}) {
      for (size_t i = 0; i < loads.size(); ++i) {
        const int64_t base = loads[i].imm;
        if (base % width != 0) continue;
        std::vector<size_t> members;
        for (int64_t off = base; off < base + width; off += 4) {
          size_t found = 0, hits = 0;
          for (size_t j = 0; j < loads.size(); ++j)
            if (loads[j].imm == off && !dk.code[loads[j].pc].merged_away && !dk.code[loads[j].pc].merge)
              found = j, ++hits;
          if (hits != 1) break;
          members.push_back(loads[found].pc);
        }
        if (members.size() != size_t(width / 4)) continue;
        std::sort(members.begin(), members.end());
        dk.code[members[0]].merge = uint8_t(width / 4);
        for (size_t m = 1; m < members.size(); ++m) dk.code[members[m]].merged_away = true;
      }
    }
    loads.clear();
  };
  auto close_all = [&] { for (auto& [reg, loads] : open) close(loads); open.clear(); };
  for (size_t pc = 0; pc < k.code.size(); ++pc) {
    const ptx::Instr& in = k.code[pc];
    const DecodedInstr& d = dk.code[pc];
    if (d.block_start || d.fence || in.op == Op::Bra) close_all();
    // A shared store may alias the loads: ptxas does not merge across it.
    if ((in.op == Op::St || in.op == Op::Atom || in.op == Op::Red) &&
        (in.space == ptx::Space::Shared || in.space == ptx::Space::Generic))
      close_all();
    if (candidate(pc)) {
      const uint32_t reg = in.ops[1].reg;
      auto it = std::find_if(open.begin(), open.end(), [&](const auto& e) { return e.first == reg; });
      if (it == open.end()) open.push_back({reg, {}}), it = open.end() - 1;
      it->second.push_back({pc, in.ops[1].imm});
    }
    // A write to an address register ends its group (the offsets no longer
    // share a base). Written registers are the instruction's destinations.
    for (int i = 0; i < in.num_ops && i < ptx::kMaxOperands; ++i) {
      const ptx::Operand& o = in.ops[i];
      if (o.kind != ptx::OperandKind::Reg || i >= destinations(in)) continue;
      for (auto e = open.begin(); e != open.end();)
        if (e->first == o.reg) { close(e->second); e = open.erase(e); } else ++e;
    }
  }
  close_all();
}

}  // namespace lab::sim::cycle
