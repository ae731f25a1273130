// lab/sim/cycle/unroll.cpp: the loops ptxas unrolls (unroll.h).
#include "lab/sim/cycle/unroll.h"

#include <algorithm>
#include <optional>

namespace lab::sim::cycle {

using ptx::Op;
using ptx::OperandKind;

namespace {

bool writes_reg(const ptx::Instr& in, uint32_t reg) {
  const int n = std::min<int>(destinations(in), in.num_ops);
  for (int i = 0; i < n; ++i)
    if (in.ops[i].kind == OperandKind::Reg && in.ops[i].reg == reg) return true;
  return false;
}

bool reads_reg(const ptx::Instr& in, uint32_t reg) {
  for (int i = std::min<int>(destinations(in), in.num_ops); i < in.num_ops; ++i)
    if ((in.ops[i].kind == OperandKind::Reg || in.ops[i].kind == OperandKind::Addr) && in.ops[i].reg == reg) return true;
  // A store's address is its first operand, not a destination.
  if (in.op == Op::St && in.num_ops > 0 && in.ops[0].kind == OperandKind::Addr && in.ops[0].reg == reg) return true;
  return in.guard == reg;
}

// `add r, r, imm` (either operand order): the immediate, else nothing.
std::optional<int64_t> self_step(const ptx::Instr& in, uint32_t reg) {
  if (in.op != Op::Add || in.num_ops < 3 || in.ops[0].kind != OperandKind::Reg || in.ops[0].reg != reg) return {};
  if (in.ops[1].kind == OperandKind::Reg && in.ops[1].reg == reg && in.ops[2].kind == OperandKind::Imm) return in.ops[2].imm;
  if (in.ops[2].kind == OperandKind::Reg && in.ops[2].reg == reg && in.ops[1].kind == OperandKind::Imm) return in.ops[1].imm;
  return {};
}

bool compare(ptx::Cmp c, int64_t a, int64_t b) {
  switch (c) {
    case ptx::Cmp::Eq: return a == b;
    case ptx::Cmp::Ne: return a != b;
    case ptx::Cmp::Lt: case ptx::Cmp::Lo: return a < b;
    case ptx::Cmp::Le: case ptx::Cmp::Ls: return a <= b;
    case ptx::Cmp::Gt: case ptx::Cmp::Hi: return a > b;
    case ptx::Cmp::Ge: case ptx::Cmp::Hs: return a >= b;
    default: return false;
  }
}

constexpr uint32_t kMaxTrip = 64;


// The trip count of the loop whose back edge is `back`, when the counter is
// a constant start, a constant step and a constant bound; 0 otherwise.
uint32_t constant_trip(const ptx::Kernel& k, const DecodedKernel& dk, size_t head, size_t back, size_t& setp_pc,
                       size_t& step_pc) {
  const ptx::Instr& br = k.code[back];
  setp_pc = step_pc = SIZE_MAX;
  for (size_t x = head; x < back; ++x)
    if (writes_reg(k.code[x], br.guard)) setp_pc = x;
  if (setp_pc == SIZE_MAX) return 0;
  const ptx::Instr& sp = k.code[setp_pc];
  if (sp.op != Op::Setp || sp.bool_op != ptx::BoolOp::None || sp.num_ops < 4 || sp.ops[0].reg != br.guard ||
      sp.ops[2].kind != OperandKind::Reg || sp.ops[3].kind != OperandKind::Imm || ptx::type_is_float(sp.type) || ptx::type_is_float(sp.type2))
    return 0;
  const uint32_t counter = sp.ops[2].reg;
  const int64_t bound = sp.ops[3].imm;
  int64_t step = 0;
  for (size_t x = head; x < back; ++x) {
    if (!writes_reg(k.code[x], counter)) continue;
    const auto s = self_step(k.code[x], counter);
    if (!s || step_pc != SIZE_MAX) return 0;  // written otherwise, or twice
    step = *s, step_pc = x;
  }
  if (step_pc == SIZE_MAX || step == 0) return 0;
  // The start: the last write before the loop, in the block that falls into
  // it: a constant, or a register the whole kernel sets once, to a constant
  // (NVRTC hoists the `0` of an inner loop's counter out of the outer loop).
  auto constant_register = [&](uint32_t reg) -> std::optional<int64_t> {
    std::optional<int64_t> value;
    int writes = 0;
    for (const ptx::Instr& in : k.code) {
      if (!writes_reg(in, reg)) continue;
      if (++writes > 1 || in.op != Op::Mov || in.num_ops < 2 || in.ops[1].kind != OperandKind::Imm ||
          in.guard != ptx::kNoReg)
        return {};
      value = in.ops[1].imm;
    }
    return value;
  };
  std::optional<int64_t> start;
  for (size_t x = head; x-- > 0;) {
    const ptx::Instr& in = k.code[x];
    if (in.op == Op::Bra) return 0;
    if (writes_reg(in, counter)) {
      if (in.op != Op::Mov || in.num_ops < 2 || in.guard != ptx::kNoReg) return 0;
      if (in.ops[1].kind == OperandKind::Imm) start = in.ops[1].imm;
      else if (in.ops[1].kind == OperandKind::Reg) start = constant_register(in.ops[1].reg);
      if (!start) return 0;
      break;
    }
    if (dk.code[x].block_start) break;
  }
  if (!start) return 0;
  int64_t v = *start;
  for (uint32_t trip = 1; trip <= kMaxTrip; ++trip) {
    const int64_t seen = step_pc < setp_pc ? v + step : v;
    v += step;
    const bool again = compare(sp.cmp, seen, bound) != br.guard_negated;
    if (!again) return trip;
  }
  return 0;
}

// A loop NVRTC's PTX counts down to zero: the back edge's guard is
// `setp.ne counter, 0` (taken while true) and the body steps the counter once,
// by a negative constant. The form the front end gives a loop whose trip
// count it worked out before entering it (its own runtime unrolling's main
// loop); a loop stepped by a register or compared against a bound is not in
// it. Sets the compare's and the step's pcs.
bool counts_down(const ptx::Kernel& k, size_t head, size_t back, size_t& setp_pc, size_t& step_pc) {
  const ptx::Instr& br = k.code[back];
  setp_pc = step_pc = SIZE_MAX;
  if (br.guard_negated) return false;
  for (size_t x = head; x < back; ++x)
    if (writes_reg(k.code[x], br.guard)) setp_pc = x;
  if (setp_pc == SIZE_MAX) return false;
  const ptx::Instr& sp = k.code[setp_pc];
  if (sp.op != Op::Setp || sp.bool_op != ptx::BoolOp::None || sp.cmp != ptx::Cmp::Ne || sp.num_ops < 4 ||
      sp.ops[0].reg != br.guard || sp.ops[2].kind != OperandKind::Reg || sp.ops[3].kind != OperandKind::Imm ||
      sp.ops[3].imm != 0 || ptx::type_is_float(sp.type))
    return false;
  const uint32_t counter = sp.ops[2].reg;
  for (size_t x = head; x < back; ++x) {
    if (!writes_reg(k.code[x], counter)) continue;
    const auto st = self_step(k.code[x], counter);
    if (!st || *st >= 0 || step_pc != SIZE_MAX) return false;
    step_pc = x;
  }
  return step_pc != SIZE_MAX;
}

// An instruction whose SASS calls a subroutine for its slow path (IEEE
// division, reciprocal and square root: a branch out of the loop body), so
// the loop is no longer one block for ptxas: lesson 8's softmax loop with
// div.rn.f32 stays rolled in the sm_90 SASS where its two loops without
// it are unrolled by four.
bool calls_slow_path(const ptx::Instr& in) {
  if (in.op != Op::Div && in.op != Op::Rcp && in.op != Op::Sqrt) return false;
  if (!ptx::type_is_float(in.type)) return false;
  return !(in.flags & (ptx::kFlagApprox | ptx::kFlagFull));
}

bool marked_nounroll(const ptx::Kernel& k, size_t head) {
  return std::binary_search(k.nounroll.begin(), k.nounroll.end(), uint32_t(head));
}

}  // namespace

std::vector<UnrolledLoop> find_unrolled_loops(const ptx::Kernel& k, const DecodedKernel& dk) {
  std::vector<UnrolledLoop> out;
  const size_t n = std::min(k.code.size(), dk.code.size());
  for (size_t back = 0; back < n; ++back) {
    const ptx::Instr& br = k.code[back];
    if (br.op != Op::Bra || br.guard == ptx::kNoReg || br.target < 0 || size_t(br.target) > back) continue;
    const size_t head = size_t(br.target);
    // One basic block, nothing in it that ends a scheduling region.
    bool simple = true;
    for (size_t x = head; x < back && simple; ++x)
      simple = (x == head || !dk.code[x].block_start) && k.code[x].op != Op::Bra && !dk.code[x].fence;
    if (!simple || marked_nounroll(k, head)) continue;
    size_t setp_pc = 0, step_pc = 0;
    const size_t body = back - head + 1;
    uint32_t trip = constant_trip(k, dk, head, back, setp_pc, step_pc);
    bool runtime = false;
    if (trip == 0 && counts_down(k, head, back, setp_pc, step_pc)) {
      bool calls = false;
      for (size_t x = head; x < back && !calls; ++x) calls = calls_slow_path(k.code[x]);
      if (calls) continue;
      trip = kRuntimeUnroll, runtime = true;
    }
    if (trip < 2 || trip * body > kUnrollMaxInstructions) continue;

    UnrolledLoop L;
    L.head = uint32_t(head), L.back = uint32_t(back), L.trip = trip, L.runtime = runtime;
    L.flags.resize(trip * body);
    // The merges over the unrolled body: the back edges close no group, and
    // register values carry from one iteration into the next.
    std::vector<uint32_t> seq;
    std::vector<uint8_t> starts, open_branch;
    for (uint32_t it = 0; it < trip; ++it)
      for (size_t pc = head; pc <= back; ++pc) {
        seq.push_back(uint32_t(pc));
        starts.push_back(seq.size() == 1);
        open_branch.push_back(pc == back && it + 1 < trip);
      }
    // (A loop unrolled at run time keeps its one-iteration merges, below.)
    const std::vector<MergeFlag> merges =
        runtime ? std::vector<MergeFlag>() : merge_sequence(k, dk, seq, starts, open_branch, known_zero_low_bits(k, &L));
    // What unrolling removes: the back edge, the counter's step and compare,
    // and the steps of registers the body uses only as shared-memory
    // addresses (their increments become the loads' immediate offsets).
    std::vector<uint8_t> folds(body, 0);
    folds[back - head] = folds[setp_pc - head] = folds[step_pc - head] = 1;
    for (size_t x = head; x < back; ++x) {
      const ptx::Instr& in = k.code[x];
      if (in.num_ops < 1 || in.ops[0].kind != OperandKind::Reg || !self_step(in, in.ops[0].reg)) continue;
      const uint32_t r = in.ops[0].reg;
      bool address_only = true;
      for (size_t y = head; y <= back && address_only; ++y) {
        const ptx::Instr& u = k.code[y];
        if (y == x || !reads_reg(u, r)) continue;
        const bool shared_access = (u.op == Op::Ld || u.op == Op::St) && u.space == ptx::Space::Shared;
        const int addr = u.op == Op::St ? 0 : 1;
        address_only = shared_access && u.num_ops > addr && u.ops[addr].kind == OperandKind::Addr && u.ops[addr].reg == r &&
                       u.guard != r;
        for (int o = 0; o < u.num_ops && address_only; ++o)
          if (o != addr && u.ops[o].kind == OperandKind::Reg && u.ops[o].reg == r) address_only = false;
      }
      if (address_only) folds[x - head] = 1;
    }
    for (uint32_t it = 0; it < trip; ++it)
      for (size_t i = 0; i < body; ++i) {
        UnrolledLoop::Flags& f = L.flags[it * body + i];
        // A loop unrolled at run time keeps its one-iteration merges: how
        // many iterations a group holds is known only as the warp runs.
        const DecodedInstr& d = dk.code[head + i];
        const MergeFlag m = runtime ? MergeFlag{d.merge, d.merged_away} : merges[it * body + i];
        f.merge = merge_code(m.merge);
        f.merged_away = m.away;
        f.folded = folds[i] && it + 1 < trip;
      }
    out.push_back(std::move(L));
  }
  return out;
}

namespace {

// The instructions of a predicated body the warp jumped over, put back with
// no lanes (TraceInst::mask 0): the SASS issues them predicated off. A jump
// from a predicated branch (decode.h) forward within its range skips the
// instructions between; the branches among them are fused.
void issue_predicated_off(const DecodedKernel& dk, WarpTrace& w) {
  const size_t n = w.insts.size();
  // The instructions instance i jumped over, when it is a predicated branch
  // whose jump stays in its range: [from + 1, to); 0 otherwise.
  auto skipped = [&](size_t i) -> uint32_t {
    const uint32_t from = w.insts[i].pc, to = w.insts[i + 1].pc;
    const DecodedInstr& b = dk.code[from];
    return b.predicated && to > from + 1 && int64_t(to) <= b.if_converted_to ? to - from - 1 : 0;
  };
  size_t extra = 0;
  for (size_t i = 0; i + 1 < n; ++i) extra += skipped(i);
  if (extra == 0) return;
  std::vector<TraceInst> insts;
  insts.reserve(n + extra);
  std::vector<uint32_t> position(n);
  for (size_t i = 0; i < n; ++i) {
    position[i] = uint32_t(insts.size());
    insts.push_back(w.insts[i]);
    const uint32_t k = i + 1 < n ? skipped(i) : 0;
    for (uint32_t pc = w.insts[i].pc + 1; pc <= w.insts[i].pc + k; ++pc)
      if (dk.code[pc].if_converted_to < 0) insts.emplace_back(pc, 0u);
  }
  for (TraceMem& m : w.mems) m.inst = position[m.inst];
  for (TraceSync& s : w.syncs) s.inst = position[s.inst];
  w.insts = std::move(insts);
}

}  // namespace

void apply_sass_shape(const DecodedKernel& dk, WarpTrace& w) {
  issue_predicated_off(dk, w);
  const UnrolledLoop* cur = nullptr;
  uint32_t iteration = 0;
  bool last = false;  // a run-time unrolled loop's iteration is the run's last
  const size_t n = w.insts.size();
  for (size_t i = 0; i < n; ++i) {
    TraceInst& t = w.insts[i];
    const DecodedInstr& d = dk.code[t.pc];
    t.merge = merge_code(d.merge);
    t.merged_away = d.merged_away;
    t.folded = d.fused;
    if (dk.unrolled.empty()) continue;
    if (cur && (t.pc < cur->head || t.pc > cur->back)) cur = nullptr;
    if (cur && t.pc == cur->head) {
      // The head again: a new iteration after the back edge, else a new entry.
      iteration = i > 0 && w.insts[i - 1].pc == cur->back ? iteration + 1 : 0;
    } else if (!cur) {
      for (const UnrolledLoop& L : dk.unrolled)
        if (t.pc == L.head) cur = &L, iteration = 0;
    }
    if (!cur) continue;
    if (cur->runtime && t.pc == cur->head) {
      // The body is one block: the iteration's back edge is body - 1 on, and
      // another iteration follows when the head comes right after it.
      const size_t next = i + cur->body();
      last = !(next < n && w.insts[next - 1].pc == cur->back && w.insts[next].pc == cur->head);
    }
    uint32_t position = iteration;
    if (cur->runtime) position = last ? cur->trip - 1 : iteration % cur->trip;  // the run's last closes its group
    else if (iteration >= cur->trip) continue;
    const UnrolledLoop::Flags& f = cur->flags[position * cur->body() + (t.pc - cur->head)];
    t.merge = f.merge;
    t.merged_away = f.merged_away;
    t.folded = f.folded || d.fused;
  }
}

}  // namespace lab::sim::cycle
