// lab/sim/cycle/decode.cpp: unit, latency and register slots per instruction.
#include "lab/sim/cycle/decode.h"
#include "lab/sim/cycle/unroll.h"

#include <algorithm>
#include <cmath>
#include <bit>
#include <unordered_map>

#include "lab/ptx/cfg.h"
#include "lab/sim/fragments.h"
#include "lab/sim/timing.h"

namespace lab::sim::cycle {

using ptx::Op;

// How many leading operands are destinations (PTX lists destinations first;
// module.h's operand-order table).
int destinations(const ptx::Instr& in) {
  switch (in.op) {
    case Op::St: case Op::Red: case Op::BarSync: case Op::BarArrive: case Op::Bra: case Op::Exit: case Op::Ret:
    case Op::Call: case Op::Membar: case Op::Fence: case Op::Nop: case Op::Prefetch: case Op::CpAsync:
    case Op::CpAsyncCommitGroup: case Op::CpAsyncWaitGroup: case Op::CpAsyncWaitAll: case Op::Stmatrix:
    case Op::WmmaStoreD: case Op::BarWarpSync: case Op::Nanosleep:
    case Op::MbarrierInit: case Op::MbarrierExpectTx: case Op::MbarrierCompleteTx: case Op::MbarrierInval:
    case Op::CpAsyncMbarrierArrive: case Op::CpAsyncBulk: case Op::CpAsyncBulkTensor: case Op::Setmaxnreg:
    // wgmma writes its accumulators asynchronously: the scoreboard does not
    // wait for them (back-to-back wgmmas on one accumulator pipeline on the
    // tensor core); wgmma.wait_group does (engine.cpp).
    case Op::WgmmaMmaAsync: case Op::WgmmaFence: case Op::WgmmaCommitGroup: case Op::WgmmaWaitGroup:
      return 0;
    case Op::Setp: case Op::ShflSync:
      return 2;
    default:
      return 1;
  }
}

namespace {

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

bool is_mbarrier(Op op) {
  switch (op) {
    case Op::MbarrierInit: case Op::MbarrierArrive: case Op::MbarrierExpectTx: case Op::MbarrierCompleteTx:
    case Op::MbarrierTestWait: case Op::MbarrierTryWait: case Op::MbarrierInval: case Op::CpAsyncMbarrierArrive:
    case Op::CpAsyncBulk: case Op::CpAsyncBulkTensor:  // issued to the copy engine through the MIO (engine.cpp times the copy)
      return true;
    default:
      return false;  // mbarrier.pending_count only reads a register: an integer op's latency
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
        d.lsu = in.space != ptx::Space::Param && in.space != ptx::Space::Const;
        d.float_add = in.atom == ptx::AtomOp::Add && ptx::type_is_float(in.type);
        break;
      case InstrClass::Control:
      default:
        d.unit = Unit::Control;
        d.latency = p.lat_int;
        d.branch = in.op == Op::Bra;
        if (in.op == Op::BarSync || in.op == Op::BarRed) d.unit = Unit::Barrier;
        if (in.op == Op::CpAsyncWaitGroup || in.op == Op::CpAsyncWaitAll) d.unit = Unit::AsyncWait;
        // shfl/vote/redux go through the MIO like shared memory (Nsight: short scoreboard).
        // So do the mbarrier operations: each is an atomic read-modify-write
        // (or read) of a 64-bit object in shared memory (PTX ISA 9.7.13.15),
        // which the SM's shared-memory unit performs, so they take the
        // shared-memory latency and the short scoreboard like the other
        // MIO operations here. A try_wait's wait for other warps is the
        // interpreter's (it parks the warp), not timed beyond one issue.
        if (in.op == Op::ShflSync || in.op == Op::ReduxSync || in.op == Op::MatchSync || is_mbarrier(in.op)) {
          d.dep = Stall::ShortScoreboard;
          d.latency = p.lat_shared;
        }
        break;
    }
    // wmma.mma: the SASS tensor instructions ptxas splits it into (params.cpp
    // sass_mma_flops), each an issue slot; the pipe's hold is the whole
    // operation's either way.
    if (in.op == Op::WmmaMma) {
      const int k = CycleParams::tensor_class(in);
      if (p.sass_mma_flops[k] > 0)
        d.issue_slots = uint16_t(std::max(1L, std::lround(double(frag::tensor_flops(in)) / p.sass_mma_flops[k])));
    }
    if (in.op == Op::WmmaLoadA || in.op == Op::WmmaLoadB || in.op == Op::WmmaLoadC || in.op == Op::WmmaStoreD) {
      d.wmma_memory = true;
      const bool ab = in.op == Op::WmmaLoadA || in.op == Op::WmmaLoadB;
      const bool half = ptx::type_bytes(in.type) == 2;  // .f16 / .bf16
      d.ldsm = ab && half && p.ldmatrix;
      const bool col_major = in.layout_a == 1;
      // 16 x 16 halves over 32 lanes, two to a register: 4 registers to transpose.
      if (ab && half && (in.op == Op::WmmaLoadA) == col_major)
        d.movm = uint8_t(in.shape_k * (in.op == Op::WmmaLoadA ? in.shape_m : in.shape_n) / 32 / 2);
    }
    if (in.op == Op::WgmmaMmaAsync) {
      d.wgmma = WgmmaStep::Issue;
      // 16 rows of A (m64 / 4 warps) and a quarter of B, k16 of 2-byte elements.
      d.smem_bytes = 16.0 * in.shape_k * 2 + double(in.shape_n) * in.shape_k * 2 / 4;
    }
    if (in.op == Op::WgmmaCommitGroup) d.wgmma = WgmmaStep::Commit;
    if (in.op == Op::WgmmaWaitGroup) {
      d.wgmma = WgmmaStep::Wait;
      d.wait_groups = uint8_t(std::clamp<int64_t>(in.ops[0].imm, 0, 255));
    }
    d.plain_load = (in.op == Op::Ld || in.op == Op::Ldu) && !(in.flags & ptx::kFlagVolatile);
    d.fence = d.unit == Unit::Barrier || d.unit == Unit::AsyncWait || d.wgmma == WgmmaStep::Wait ||
              in.op == Op::MbarrierTryWait || in.op == Op::MbarrierTestWait || in.op == Op::BarArrive || in.op == Op::Membar ||
              in.op == Op::Fence || in.op == Op::Call || in.op == Op::Ret || in.op == Op::Exit ||
              in.op == Op::Atom || in.op == Op::Red || (in.op == Op::Bra && in.target >= 0 && size_t(in.target) <= pc);
    // Integer div/rem by a register is a ptxas-emitted sequence of about 20
    // instructions (params.cpp [NSVSE], [AR19]): each takes an issue slot of
    // the sub-partition, it holds the integer pipe for them, and it delivers
    // its result after the measured latency. By an immediate the front end
    // or ptxas uses a multiply and shifts.
    if ((in.op == Op::Div || in.op == Op::Rem) && !ptx::type_is_float(in.type) && in.num_ops > 2 &&
        in.ops[2].kind == ptx::OperandKind::Reg) {
      d.unit = Unit::Int;
      d.latency = uint32_t(p.lat_int_div);
      d.hold = p.int_div_instructions;
      d.issue_slots = uint16_t(std::lround(p.int_div_instructions));
      d.dep = Stall::Wait;
    }
    // Integer multiplies and multiply-adds (IMAD, IMAD.WIDE, IMAD.HI) run on
    // the FMA pipe with FP32, not on the integer ALU pipe (NVIDIA's Greg
    // Smith on the NVIDIA developer forums, "Separate CUDA core pipeline for
    // FP16 and FP32", 2024: "FMAheavy pipe handles IMAD, IDP, and FP32
    // operations" on GA10x and GH100, "FMA pipe handles IMAD ... and FP32"
    // on GA100; Nsight Compute's `fma` pipe likewise).
    if ((in.op == Op::Mul || in.op == Op::Mad) && !ptx::type_is_float(in.type) && d.unit == Unit::Int) {
      d.unit = Unit::Fp32; d.latency = p.lat_fp32; d.hold = p.ii_fp32; d.imad = true;
    }
    // ptxas issues some integer adds, moves and shifts as IMAD.IADD,
    // IMAD.MOV.U32 and IMAD.SHL.U32 (lesson 6's fp32_cores.cu for sm_90 has
    // all three beside IADD3, MOV and SHF), which balances the two pipes.
    if (d.unit == Unit::Int && !ptx::type_is_float(in.type) && ptx::type_bytes(in.type) == 4 &&
        (in.op == Op::Add || in.op == Op::Sub || in.op == Op::Shl || (in.op == Op::Mov && in.ops[1].kind != ptx::OperandKind::Special)))
      d.either_pipe = true;
    // Moves and conversions of memory addresses (cvta) are integer ops.
    if (in.op == Op::Cvta || in.op == Op::Isspacep) { d.unit = Unit::Int; d.latency = p.lat_int; d.hold = p.ii_int; d.dep = Stall::Wait; }
  }
  for (const ptx::BasicBlock& b : ptx::basic_blocks(k))
    if (b.first < dk.code.size()) dk.code[b.first].block_start = dk.code[b.first].region_start = true;
  mark_if_conversions(k, dk);
  mark_fused(k, dk);
  dk.zero_low_bits = known_zero_low_bits(k);
  merge_shared_loads(k, dk);
  dk.unrolled = find_unrolled_loops(k, dk);
  find_first_uses(k, dk);
  dk.read_bits.assign(dk.code.size(), 0);
  dk.write_bits.assign(dk.code.size(), 0);
  for (size_t i = 0; i < dk.code.size(); ++i) {
    const DecodedInstr& d = dk.code[i];
    for (uint32_t r = 0; r < d.reads; ++r) dk.read_bits[i] |= 1ull << (dk.slots[d.first + r] % 64);
    for (uint32_t w = 0; w < d.writes; ++w) dk.write_bits[i] |= 1ull << (dk.slots[d.first + d.reads + w] % 64);
  }
  return dk;
}

// decode.h first_use: for each load that may read global or local memory,
// the first instruction in program order that reads or overwrites what it
// loaded, looking no further than a branch back (a loop's back edge), a
// return or an exit. Forward branches are looked through: ptxas predicates
// short bodies (mark_if_conversions), and a consumer beyond one is still
// the first to wait.
void find_first_uses(const ptx::Kernel& k, DecodedKernel& dk) {
  const size_t n = dk.code.size();
  for (size_t pc = 0; pc < n; ++pc) {
    DecodedInstr& d = dk.code[pc];
    const ptx::Instr& in = k.code[pc];
    if (!d.plain_load || d.writes == 0 || in.space == ptx::Space::Shared || in.space == ptx::Space::Param ||
        in.space == ptx::Space::Const)
      continue;
    const uint32_t* dst = dk.slots.data() + d.first + d.reads;
    for (size_t j = pc + 1; j < n; ++j) {
      const DecodedInstr& e = dk.code[j];
      const uint32_t* sl = dk.slots.data() + e.first;
      bool uses = false;
      for (uint32_t a = 0; a < uint32_t(e.reads) + e.writes && !uses; ++a)
        for (uint32_t b = 0; b < d.writes && !uses; ++b) uses = sl[a] == dst[b];
      if (uses) {
        d.first_use = uint32_t(j);
        break;
      }
      const ptx::Op op = k.code[j].op;
      if (op == ptx::Op::Ret || op == ptx::Op::Exit || (op == ptx::Op::Bra && k.code[j].target >= 0 && size_t(k.code[j].target) <= j))
        break;
    }
  }
}

void mark_if_conversions(const ptx::Kernel& k, DecodedKernel& dk) {
  const size_t n = std::min(k.code.size(), dk.code.size());
  std::vector<uint32_t> incoming(n + 1, 0);  // branches that target each instruction
  for (size_t i = 0; i < n; ++i)
    if (k.code[i].op == Op::Bra && k.code[i].target >= 0 && size_t(k.code[i].target) <= n) ++incoming[size_t(k.code[i].target)];
  auto unconditional = [&](size_t i) { return i < n && k.code[i].op == Op::Bra && k.code[i].guard == ptx::kNoReg && k.code[i].target >= 0; };
  // [from, to): short, no branch, nothing a load may not cross, and no
  // branch target but `from`.
  auto straight = [&](size_t from, size_t to) {
    if (to < from || to - from > kIfConvertMaxBody) return false;
    for (size_t x = from; x < to; ++x) {
      const ptx::Op op = k.code[x].op;
      if ((x > from && incoming[x] != 0) || op == Op::Bra || dk.code[x].fence || dk.code[x].unit == Unit::Barrier) return false;
    }
    return true;
  };
  // A jump from any of `branches` stays in the region that ends at `join`.
  auto convert = [&](std::initializer_list<size_t> branches, std::initializer_list<size_t> leaders, size_t join) {
    const bool exits = join < n && (k.code[join].op == Op::Ret || k.code[join].op == Op::Exit);
    for (size_t b : branches) dk.code[b].if_converted_to = int32_t(join), dk.code[b].predicated = !exits;
    for (size_t l : leaders)
      if (l < n) dk.code[l].region_start = false;
  };
  for (size_t b = 0; b < n; ++b) {
    const ptx::Instr& br = k.code[b];
    if (br.op != Op::Bra || br.guard == ptx::kNoReg || br.target < 0 || dk.code[b].if_converted_to >= 0) continue;
    const size_t t = size_t(br.target);
    if (t <= b + 1 || t > n || incoming[t] != 1) continue;
    // NVRTC's inverted form, `@p bra T; bra E; T: ...`: the conditional
    // branch is over one unconditional branch to the else side.
    size_t c = b, e = t;
    if (t == b + 2 && unconditional(b + 1) && size_t(k.code[b + 1].target) > t) c = b + 1, e = size_t(k.code[b + 1].target);
    if (e > n || incoming[e] != 1) continue;
    // if-then: `@p bra E; body; E:`.
    if (c == b && straight(b + 1, e) && incoming[b + 1] == 0) {
      convert({b}, {b + 1, e}, e);
      continue;
    }
    if (c != b && straight(c + 1, e)) {
      convert({b, c}, {c, c + 1, e}, e);
      continue;
    }
    // if-then-else: `@p bra E; then; bra J; E: else; J:` (or the inverted
    // form): both sides predicated, one region (the sm_90 SASS of lesson
    // 6's fp32_cores.cu: each guarded tile load is `@P1 LDG`, its zero
    // default `@!P1 PRMT`, no branch).
    const size_t j_bra = e - 1;
    if (!unconditional(j_bra) || j_bra <= c) continue;
    const size_t j = size_t(k.code[j_bra].target);
    if (j <= e || j > n || incoming[j] != 1 || !straight(c + 1, j_bra) || !straight(e, j)) continue;
    if (c != b && incoming[c + 1] != 1) continue;  // T: the conditional branch's target, nothing else's
    if (c == b && incoming[c + 1] != 0) continue;
    if (c == b) convert({b, j_bra}, {b + 1, e, j}, j);
    else convert({b, c, j_bra}, {c, c + 1, e, j}, j);
  }
}

void mark_fused(const ptx::Kernel& k, DecodedKernel& dk) {
  const size_t n = std::min(k.code.size(), dk.code.size());
  // Static reads of each scoreboard slot, and within a basic block the
  // instruction that last wrote it.
  std::vector<uint32_t> uses(dk.num_slots, 0);
  for (size_t pc = 0; pc < n; ++pc) {
    const DecodedInstr& d = dk.code[pc];
    for (uint32_t i = 0; i < d.reads; ++i) ++uses[dk.slots[d.first + i]];
  }
  // Static writes of each slot, and whether every reader of it takes an
  // immediate operand in SASS (an ALU op or a shuffle, not a memory access).
  std::vector<uint32_t> defs(dk.num_slots, 0);
  std::vector<uint8_t> alu_reads_only(dk.num_slots, 1);
  for (size_t pc = 0; pc < n; ++pc) {
    const DecodedInstr& d = dk.code[pc];
    for (uint32_t i = 0; i < d.writes; ++i) ++defs[dk.slots[d.first + d.reads + i]];
    const bool alu = d.unit == Unit::Int || d.unit == Unit::Fp32 || k.code[pc].op == Op::ShflSync;
    if (!alu || k.code[pc].guard != ptx::kNoReg)
      for (uint32_t i = 0; i < d.reads; ++i) alu_reads_only[dk.slots[d.first + i]] = 0;
  }
  std::vector<int64_t> writer(dk.num_slots, -1);
  std::vector<size_t> written;  // slots `writer` names, to forget at a block's start
  // The one instruction that reads the value `pc` wrote, when `pc` writes one
  // slot, nothing else reads it and `pc` is in the reader's block.
  auto sole_producer = [&](uint32_t slot, auto&& is_producer) -> int64_t {
    const int64_t w = writer[slot];
    if (w < 0 || uses[slot] != 1 || dk.code[size_t(w)].writes != 1 || dk.code[size_t(w)].fused) return -1;
    return is_producer(k.code[size_t(w)]) ? w : -1;
  };
  for (size_t pc = 0; pc < n; ++pc) {
    DecodedInstr& d = dk.code[pc];
    const ptx::Instr& in = k.code[pc];
    if (d.block_start) {
      for (size_t s : written) writer[s] = -1;
      written.clear();
    }
    const bool plain = in.guard == ptx::kNoReg;
    if (in.op == Op::Bra && d.predicated) {
      // A branch ptxas predicates: its predicate guards the body instead.
      d.fused = true;
    } else if (in.op == Op::Cvta && in.cvta_to && in.space == ptx::Space::Global && plain) {
      // Generic and global addresses are the same on sm_70 and later: no SASS.
      d.fused = true;
    } else if (in.op == Op::Mov && plain && in.num_ops == 2 && d.writes == 1 &&
               (in.type == ptx::Type::B32 || in.type == ptx::Type::B64) && in.ops[1].kind == ptx::OperandKind::Reg) {
      // mov.b32 between a .f32 and a .b32 register (the bit casts around
      // every shfl.sync): SASS registers are untyped (lesson 9's sum_shuffle:
      // SHFL.DOWN, FADD, nothing between).
      d.fused = true;
    } else if (in.op == Op::Mov && plain && in.num_ops == 2 && d.writes == 1 && in.ops[1].kind == ptx::OperandKind::Imm) {
      // A constant only ALU ops and shuffles read, set once: their SASS
      // takes it as an immediate (`SHFL.DOWN PT, R5, R8, 0x10, 0x1f`).
      const uint32_t slot = dk.slots[d.first + d.reads];
      d.fused = defs[slot] == 1 && uses[slot] > 0 && alu_reads_only[slot];
    } else if ((in.op == Op::And || in.op == Op::Or) && in.type == ptx::Type::Pred && plain) {
      // setp then and.pred / or.pred: one ISETP with the combine
      // (`ISETP.GE.OR P0, PT, R21, R2, P0` in 03's sm_90 SASS).
      for (uint32_t i = 0; i < d.reads && !d.fused; ++i)
        d.fused = sole_producer(dk.slots[d.first + i], [](const ptx::Instr& p) { return p.op == Op::Setp; }) >= 0;
    } else if (in.op == Op::Add && !ptx::type_is_float(in.type) && plain && !(in.flags & ptx::kFlagCarryOut)) {
      // mul.wide + add.s64: IMAD.WIDE; mul.lo + add: IMAD; shl.b32 by a
      // constant + add.s32: LEA (03's and fp32_cores.cu's sm_90 SASS).
      const bool wide = ptx::type_bytes(in.type) == 8;
      auto folds_into_add = [wide](const ptx::Instr& p) {
        if (p.op == Op::Mul && p.mul == ptx::MulMode::Wide) return wide;
        if (p.op == Op::Mul && p.mul == ptx::MulMode::Lo) return !wide && !ptx::type_is_float(p.type);
        if (p.op == Op::Shl) return !wide && p.num_ops > 2 && p.ops[2].kind == ptx::OperandKind::Imm;
        return false;
      };
      for (uint32_t i = 0; i < d.reads && !d.fused; ++i)
        d.fused = sole_producer(dk.slots[d.first + i], folds_into_add) >= 0;
    }
    for (uint32_t i = 0; i < d.writes; ++i) {
      const uint32_t slot = dk.slots[d.first + d.reads + i];
      writer[slot] = int64_t(pc);
      written.push_back(slot);
    }
  }
}

namespace {

// An address as ptxas sees it within a basic block: a symbolic part (a hash
// of how it was computed from registers the block did not define; 0 for
// none) plus a constant byte offset, and how many low bits of the symbolic
// part are known zero (-1: not known, a register live into the block).
// Enough to see that `or r, base8, 3` is base8 + 3 and that
// base + 4 * (i | 1) is base + 4 * i + 4, as ptxas does when it merges
// loads; anything else is a new symbol.
struct AddrVal {
  uint64_t sym = 0;
  int64_t off = 0;
  int asym = -1;
};

uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));
  return h ? h : 1;
}
int trailing_zeros(int64_t v) { return v == 0 ? 63 : std::countr_zero(uint64_t(v)); }
// Known-zero low bits of the whole value (symbolic part and offset).
int full_align(const AddrVal& v) {
  const int s = v.sym == 0 ? 63 : v.asym < 0 ? 0 : v.asym;
  return std::min(s, trailing_zeros(v.off));
}

}  // namespace

std::vector<uint8_t> known_zero_low_bits(const ptx::Kernel& k, const UnrolledLoop* loop) {
  using ptx::OperandKind;
  std::vector<uint8_t> z(k.num_slots, 63);
  // A register nothing writes (or only a multi-result or vector instruction
  // writes) has no bits known.
  std::vector<uint8_t> plain_def(k.num_slots, 0);
  for (const ptx::Instr& in : k.code) {
    const int nd = destinations(in);
    for (int i = 0; i < nd && i < in.num_ops; ++i) {
      const ptx::Operand& o = in.ops[i];
      if (o.kind == OperandKind::Reg && o.reg < z.size()) plain_def[o.reg] |= uint8_t(nd == 1 ? 1 : 2);
      if (o.kind == OperandKind::Vec)
        for (uint32_t v = 0; v < o.vec_len; ++v)
          if (o.reg + v < k.vec_slots.size() && k.vec_slots[o.reg + v] < z.size()) plain_def[k.vec_slots[o.reg + v]] |= 2;
    }
  }
  for (size_t r = 0; r < z.size(); ++r)
    if (plain_def[r] != 1) z[r] = 0;
  auto bits = [&](const ptx::Operand& o) -> int {
    if (o.kind == OperandKind::Imm || o.kind == OperandKind::Symbol) return trailing_zeros(o.imm);
    if (o.kind == OperandKind::Reg && o.reg < z.size()) return z[o.reg];
    return 0;
  };
  // What one instruction's result keeps, from its sources' figures.
  auto result = [&](const ptx::Instr& in) -> int {
    if (ptx::type_is_float(in.type) || (in.op == Op::Cvt && ptx::type_is_float(in.type2))) return 0;
    const int a = in.num_ops > 1 ? bits(in.ops[1]) : 0, b = in.num_ops > 2 ? bits(in.ops[2]) : 0;
    const int c = in.num_ops > 3 ? bits(in.ops[3]) : 0;
    const bool low = in.mul == ptx::MulMode::Lo || in.mul == ptx::MulMode::Wide;
    switch (in.op) {
      case Op::Mov: case Op::Cvt: case Op::Cvta: return a;
      case Op::Add: case Op::Sub: case Op::Or: case Op::Xor: case Op::Selp: return std::min(a, b);
      case Op::And: return std::max(a, b);
      case Op::Shl: return in.ops[2].kind == OperandKind::Imm && in.ops[2].imm >= 0 && in.ops[2].imm < 64 ? a + int(in.ops[2].imm) : 0;
      case Op::Mul: return low ? a + b : 0;           // tz(x y) = tz(x) + tz(y)
      case Op::Mad: return low ? std::min(a + b, c) : 0;
      default: return 0;
    }
  };
  // The greatest fixed point: start from "all known" and lower each
  // register to what every write to it keeps, until nothing moves.
  for (bool moved = true; moved;) {
    moved = false;
    for (size_t pc = 0; pc < k.code.size(); ++pc) {
      const ptx::Instr& in = k.code[pc];
      if (destinations(in) != 1 || in.num_ops < 1 || in.ops[0].kind != OperandKind::Reg || in.ops[0].reg >= z.size()) continue;
      int r = result(in);
      if (loop && pc >= loop->head && pc <= loop->back && in.op == Op::Add && in.num_ops > 2 &&
          in.ops[1].kind == OperandKind::Reg && in.ops[1].reg == in.ops[0].reg && in.ops[2].kind == OperandKind::Imm)
        r = std::min(int(z[in.ops[0].reg]), trailing_zeros(in.ops[2].imm * int64_t(loop->trip)));
      const uint8_t v = uint8_t(std::min(63, r));
      if (v < z[in.ops[0].reg]) z[in.ops[0].reg] = v, moved = true;
    }
  }
  return z;
}

std::vector<MergeFlag> merge_sequence(const ptx::Kernel& k, const DecodedKernel& dk, const std::vector<uint32_t>& seq,
                                      const std::vector<uint8_t>& starts, const std::vector<uint8_t>& open_branch,
                                      const std::vector<uint8_t>& zero_low_bits) {
  std::vector<MergeFlag> flags(seq.size());
  // One candidate: a scalar 4- or 2-byte plain ld.shared [R + imm], no guard.
  // A plain ld.shared [R + imm] (scalar or vector), no guard.
  auto plain_shared_load = [&](const ptx::Instr& in) {
    return in.op == Op::Ld && in.space == ptx::Space::Shared && !(in.flags & ptx::kFlagVolatile) &&
           in.num_ops >= 2 && in.ops[1].kind == ptx::OperandKind::Addr && in.guard == ptx::kNoReg &&
           (in.ops[0].kind == ptx::OperandKind::Reg || in.ops[0].kind == ptx::OperandKind::Vec);
  };
  auto candidate = [&](size_t pc) {
    const ptx::Instr& in = k.code[pc];
    return plain_shared_load(in) && in.vec == 1 && in.ops[0].kind == ptx::OperandKind::Reg &&
           (ptx::type_bytes(in.type) == 4 || ptx::type_bytes(in.type) == 2);
  };
  std::unordered_map<uint32_t, AddrVal> vals;  // registers defined in this block so far
  // What the whole kernel proves of a register (known_zero_low_bits).
  auto known = [&](uint32_t reg) { return reg < zero_low_bits.size() ? int(zero_low_bits[reg]) : 0; };
  auto val = [&](const ptx::Operand& o) -> AddrVal {
    if (o.kind == ptx::OperandKind::Imm || o.kind == ptx::OperandKind::Symbol) return {0, o.imm, 63};
    if (o.kind != ptx::OperandKind::Reg || o.reg >= ptx::kSinkReg) return {mix(0xbad, o.reg), 0, 0};
    if (auto it = vals.find(o.reg); it != vals.end()) return it->second;
    return {mix(0x1e, o.reg), 0, known(o.reg)};  // live into the block
  };
  // A load's address [R + imm] as far as address arithmetic goes.
  auto address_of = [&](const ptx::Instr& in) {
    const ptx::Operand& ao = in.ops[1];
    AddrVal a = ao.reg < ptx::kSinkReg ? val(ptx::Operand{ptx::OperandKind::Reg, 0, ptx::Space::Generic, false, ao.reg, 0})
                                       : AddrVal{0, 0, 63};
    a.off += ao.imm;
    return a;
  };
  // A value nothing else computes: one per position (the same pc in two
  // iterations of an unrolled loop computes two values).
  auto fresh = [&](size_t pos, int asym) { return AddrVal{mix(0xdef, pos), 0, asym}; };
  // Value of the register `in` defines, as far as address arithmetic goes.
  auto define = [&](size_t pos, const ptx::Instr& in) -> AddrVal {
    const AddrVal a = in.num_ops > 1 ? val(in.ops[1]) : AddrVal{};
    const AddrVal b = in.num_ops > 2 ? val(in.ops[2]) : AddrVal{};
    switch (in.op) {
      case Op::Mov: case Op::Cvt: case Op::Cvta: return a;
      case Op::Add:
        if (a.sym == 0) return {b.sym, a.off + b.off, b.asym};
        if (b.sym == 0) return {a.sym, a.off + b.off, a.asym};
        return {mix(std::min(a.sym, b.sym), std::max(a.sym, b.sym)), a.off + b.off,
                a.asym < 0 || b.asym < 0 ? -1 : std::min(a.asym, b.asym)};
      case Op::Sub:
        if (b.sym == 0) return {a.sym, a.off - b.off, a.asym};
        return fresh(pos, 0);
      case Op::Shl:
        if (b.sym != 0 || b.off < 0 || b.off > 31) return fresh(pos, 0);
        // Shifting leaves at least b zero bits, whatever was known before.
        return {a.sym ? mix(a.sym, 0x5000 + uint64_t(b.off)) : 0, a.off << b.off, std::max(a.asym, 0) + int(b.off)};
      case Op::Mul:
        if (in.mul != ptx::MulMode::Lo && in.mul != ptx::MulMode::Wide) return fresh(pos, 0);
        if (b.sym == 0 && b.off > 0)
          return {a.sym ? mix(a.sym, 0x7000 + uint64_t(b.off)) : 0, a.off * b.off,
                  std::max(a.asym, 0) + trailing_zeros(b.off)};
        return fresh(pos, 0);
      case Op::Or:
        // Or-ing bits the value is known to have clear is an add.
        if (b.sym == 0 && b.off >= 0 && (b.off >> std::min(full_align(a), 62)) == 0) return {a.sym, a.off + b.off, a.asym};
        if (a.sym == 0 && a.off >= 0 && (a.off >> std::min(full_align(b), 62)) == 0) return {b.sym, a.off + b.off, b.asym};
        return fresh(pos, std::min(full_align(a), full_align(b)));
      case Op::And:
        if (b.sym == 0) return fresh(pos, std::max(trailing_zeros(b.off), full_align(a)));
        return fresh(pos, std::max(full_align(a), full_align(b)));
      default: return fresh(pos, 0);
    }
  };
  struct Load { size_t pos; int64_t off; int asym; int bytes; };
  std::unordered_map<uint64_t, std::vector<Load>> open;  // (symbolic base, element size) -> its loads so far
  auto close = [&](std::vector<Load>& loads) {
    // Windows of 16 bytes, then of 8 (then of 4, for 2-byte elements: a
    // pair of halves is one LDS, as in lesson 6's fp16 tiles), each member
    // present once, the symbolic base proven aligned to the width (ptxas
    // merges only what it can prove: Ks[lane][c] of a 65-word row stays
    // scalar, Qs[w][c] with a counter stepping by 16 words becomes LDS.128;
    // lesson 13's SASS).
    if (loads.empty()) return;
    const int e = loads[0].bytes;
    for (const int width : {16, 8, 4}) {
      if (width <= e) continue;
      for (size_t i = 0; i < loads.size(); ++i) {
        const int64_t base = loads[i].off;
        if (base % width != 0) continue;
        if (loads[i].asym < 0 || (1 << std::min(loads[i].asym, 30)) < width) continue;
        std::vector<size_t> members;
        for (int64_t off = base; off < base + width; off += e) {
          size_t found = 0, hits = 0;
          for (size_t j = 0; j < loads.size(); ++j)
            if (loads[j].off == off && !flags[loads[j].pos].away && !flags[loads[j].pos].merge)
              found = j, ++hits;
          if (hits != 1) break;
          members.push_back(loads[found].pos);
        }
        if (members.size() != size_t(width / e)) continue;
        std::sort(members.begin(), members.end());
        flags[members[0]].merge = uint8_t(width);
        for (size_t m = 1; m < members.size(); ++m) flags[members[m]].away = true;
      }
    }
    loads.clear();
  };
  // Vector shared loads NVVM narrowed (`.pragma "used_bytes_mask"` with the
  // low bytes used: ld.shared.v4 of which only bytes 0-7 are used), per
  // symbolic base: the bytes they leave to a later load of the block.
  struct Narrowed { int64_t rest_lo, rest_hi; size_t pos; uint8_t width; };
  std::unordered_map<uint64_t, std::vector<Narrowed>> narrowed;
  // The used_bytes_mask pragma before instruction `pc`, 0 where there is none.
  auto used_bytes = [&](size_t pc) -> uint32_t {
    const auto it = std::lower_bound(k.used_bytes_masks.begin(), k.used_bytes_masks.end(),
                                     std::pair<uint32_t, uint32_t>{uint32_t(pc), 0});
    return it != k.used_bytes_masks.end() && it->first == pc ? it->second : 0;
  };
  auto close_all = [&] {
    for (auto& [sym, loads] : open) close(loads);
    open.clear();
    narrowed.clear();
  };
  for (size_t pos = 0; pos < seq.size(); ++pos) {
    const size_t pc = seq[pos];
    const ptx::Instr& in = k.code[pc];
    const DecodedInstr& d = dk.code[pc];
    if (starts[pos]) close_all(), vals.clear();
    if ((d.fence || in.op == Op::Bra) && !open_branch[pos]) close_all();
    // A shared store may alias the loads: ptxas does not merge across it.
    if ((in.op == Op::St || in.op == Op::Atom || in.op == Op::Red) &&
        (in.space == ptx::Space::Shared || in.space == ptx::Space::Generic))
      close_all();
    // NVVM's narrowed pair (some compiles of 06 and 07; docs/timing-model.md
    // "One source, one PTX"): an ld.shared.v4 whose used_bytes_mask keeps
    // its low 8 bytes, then a load of bytes 8-15 on the same base. ptxas
    // issues the pair as one LDS.128 (the SASS of both compiles has the same
    // LDS count): the first becomes a merged load of the full width, the
    // second merged away. A mask with a hole (bytes 0-7 and 12-15 used, and
    // a scalar load of bytes 8-11: wangzyon's kernel 6) stays two LDS in
    // the SASS, and two loads here.
    if (plain_shared_load(in)) {
      const AddrVal a = address_of(in);
      const int64_t bytes = int64_t(ptx::type_bytes(in.type)) * std::max<int64_t>(1, in.vec);
      std::vector<Narrowed>& ns = narrowed[a.sym];
      const auto rest = std::find_if(ns.begin(), ns.end(), [&](const Narrowed& n) {
        return n.rest_lo == a.off && n.rest_hi == a.off + bytes;
      });
      if (rest != ns.end()) {
        flags[pos].away = true;
        flags[rest->pos].merge = rest->width;
        ns.erase(rest);
      } else if (in.vec >= 2 && bytes == 16) {
        const uint32_t used = used_bytes(pc) & 0xffffu;
        if (used != 0 && (used & (used + 1)) == 0 && std::popcount(used) < bytes)  // the low bytes only
          ns.push_back({a.off + std::popcount(used), a.off + bytes, pos, uint8_t(bytes)});
      }
    }
    if (!flags[pos].away && candidate(pc)) {
      const AddrVal a = address_of(in);
      const int bytes = ptx::type_bytes(in.type);
      open[bytes == 4 ? a.sym : mix(a.sym, 0x2b)].push_back({pos, a.off, a.sym == 0 ? 63 : a.asym, bytes});
    }
    // The registers it writes get their new values (a load's: unknown).
    if (destinations(in) >= 1 && in.num_ops >= 1 && in.ops[0].kind == ptx::OperandKind::Reg &&
        in.ops[0].reg < ptx::kSinkReg) {
      AddrVal v = d.unit == Unit::Memory ? fresh(pos, 0) : define(pos, in);
      // Whatever the block's own arithmetic loses, every value the register
      // ever takes keeps the kernel-wide figure.
      if (v.sym != 0 && v.off == 0) v.asym = std::max(v.asym, known(in.ops[0].reg));
      vals[in.ops[0].reg] = v;
    }
    for (int i = 1; i < destinations(in) && i < in.num_ops; ++i)
      if (in.ops[i].kind == ptx::OperandKind::Reg) vals[in.ops[i].reg] = fresh(pos, 0);
    if (destinations(in) >= 1 && in.num_ops >= 1 && in.ops[0].kind == ptx::OperandKind::Vec)
      for (uint32_t v = 0; v < in.ops[0].vec_len; ++v)
        if (in.ops[0].reg + v < k.vec_slots.size()) vals[k.vec_slots[in.ops[0].reg + v]] = fresh(pos, 0);
  }
  close_all();
  return flags;
}

void merge_shared_loads(const ptx::Kernel& k, DecodedKernel& dk) {
  const size_t n = std::min(k.code.size(), dk.code.size());
  std::vector<uint32_t> seq(n);
  std::vector<uint8_t> starts(n), open_branch(n, 0);
  for (size_t pc = 0; pc < n; ++pc) seq[pc] = uint32_t(pc), starts[pc] = dk.code[pc].block_start;
  const std::vector<MergeFlag> flags = merge_sequence(k, dk, seq, starts, open_branch, dk.zero_low_bits);
  for (size_t pc = 0; pc < n; ++pc) {
    dk.code[pc].merge = flags[pc].merge;
    dk.code[pc].merged_away = flags[pc].away;
  }
}

std::vector<IssuedSharedLoad> issued_shared_loads(const ptx::Kernel& k, const DecodedKernel& dk) {
  std::vector<IssuedSharedLoad> out;
  const size_t n = std::min(k.code.size(), dk.code.size());
  auto natural = [&](const ptx::Instr& in) { return uint32_t(in.vec) * uint32_t(ptx::type_bytes(in.type)); };
  for (size_t pc = 0; pc < n; ++pc) {
    const ptx::Instr& in = k.code[pc];
    if (in.op != Op::Ld || in.space != ptx::Space::Shared) continue;
    const UnrolledLoop* loop = nullptr;
    for (const UnrolledLoop& L : dk.unrolled)
      if (pc >= L.head && pc <= L.back) loop = &L;
    if (!loop) {
      const DecodedInstr& d = dk.code[pc];
      if (!d.merged_away) out.push_back({in.loc, d.merge ? uint32_t(d.merge) : natural(in)});
      continue;
    }
    for (uint32_t it = 0; it < loop->trip; ++it) {
      const UnrolledLoop::Flags& f = loop->flags[it * loop->body() + (pc - loop->head)];
      if (!f.merged_away) out.push_back({in.loc, f.merge ? uint32_t(merge_width(f.merge)) : natural(in)});
    }
  }
  return out;
}

}  // namespace lab::sim::cycle
