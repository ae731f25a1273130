// lab/sim/exec_warp.cpp: CTA barriers and warp-level collectives
// (PTX ISA 9.7.13: bar/barrier, bar.red, bar.warp.sync, shfl.sync,
// vote.sync, match.sync, redux.sync, activemask).
//
// The lanes taking part in a collective are the lanes executing the
// instruction (active and guard-true). Reading a lane outside them returns
// that lane's register as it stands, one of the values the ISA allows for an
// "undefined" source; the checker (SimOptions::check) flags such masks.
#include <fmt/format.h>

#include <algorithm>

#include "lab/sim/exec.h"
#include "lab/sim/simt.h"

namespace lab::sim {

using ptx::Op;

namespace {

// Tells the checker which member mask each executing lane passed, one call
// per distinct mask: each half of a warp may pass its own (a
// cooperative-groups tile of 16), and a mask is valid for its own lanes.
void check_member_masks(WarpContext& c, const ptx::Operand& mask_op) {
  if (!c.checker || !c.mask) return;
  uint64_t tm[32];
  const uint64_t* mv = src(c, mask_op, tm);
  for (uint32_t left = c.mask; left;) {
    const uint32_t mask = uint32_t(mv[std::countr_zero(left)]);
    uint32_t group = 0;
    each_lane(left, [&](uint32_t i) { group |= uint32_t(uint32_t(mv[i]) == mask) << i; });
    // As redux.sync below: the group's lanes and the executing lanes its mask names.
    c.checker->on_warp_sync(c.pc, c.warp->index, mask, group | (mask & c.mask));
    left &= ~group;
  }
}

uint32_t first_value(WarpContext& c, const ptx::Operand& o) {
  uint64_t t[32];
  const uint64_t* v = src(c, o, t);
  return uint32_t(v[std::countr_zero(c.mask)]);
}

// bar.sync / barrier.sync / bar.red park the warp; launch.cpp's block loop
// releases the barrier when every live thread (or the given count) arrived.
// Exited threads do not count (sm_70+ behaviour, PTX ISA 9.7.13.4).
void barrier_arrive(const ptx::Instr& in, WarpContext& c, bool wait, const ptx::Operand& id_op,
                    const ptx::Operand& count_op) {
  uint32_t id = first_value(c, id_op);
  if (id >= kMaxBarriers) {
    raise_fault(c, "fault", fmt::format("barrier id {} is out of range: bar.sync takes 0..15", id),
                uint32_t(std::countr_zero(c.mask)));
    return;
  }
  WarpState& w = *c.warp;
  if (wait && count_op.kind == ptx::OperandKind::None && c.mask == w.mask) {
    // Independent thread scheduling (sm_70+): the lanes of a warp reach a
    // block-wide barrier on their own. Lanes here while others of the warp
    // still run elsewhere park (simt.h) and the others go on: to this
    // barrier, where all arrive together, or to exit, which releases them
    // (PTX ISA, bar/barrier: the barrier waits only for non-exited threads).
    // Lanes parked at another barrier leave this arrival partial, and the
    // checker reports the split.
    const uint32_t parked_here = w.parked_pc == c.pc ? w.parked : 0;
    const uint32_t here = c.mask | parked_here;
    if (here != w.live && (!w.parked || parked_here)) {
      // Not an issue yet: the path runs again from here when it resumes.
      --c.pcm->warp_insts;
      c.pcm->active_lanes -= lanes_in(w.mask);
      c.pcm->thread_insts -= lanes_in(c.mask);
      --w.steps;
      if (c.trace) c.trace->insts.pop_back();
      park_lanes(w, c.mask, c.pc);
      w.status = WarpStatus::PathSwitched;
      c.ev = nullptr;  // nothing issued: no event for the views
      return;
    }
    if (parked_here) {
      rejoin_lanes(w, parked_here);
      w.parked = 0;
      c.mask = here;
    }
  }
  BarrierState& bs = c.B->barriers[id];
  if (count_op.kind != ptx::OperandKind::None) bs.expected = first_value(c, count_op);
  if (c.checker) c.checker->on_barrier(c.pc, w.index, id, c.mask, w.live);
  bs.arrived += (lanes_in(c.mask));
  ++c.W->barriers;
  if (c.ev) c.ev->kind = WarpEvent::Barrier;
  if (!wait) return;
  w.status = WarpStatus::AtBarrier;
  w.barrier_id = uint8_t(id);
  w.barrier_arrived = c.mask;
}

void exec_shfl(const ptx::Instr& in, WarpContext& c) {
  uint64_t ta[32], tb[32], tc[32];
  const uint64_t* a = src(c, in.ops[2], ta);
  const uint64_t* b = src(c, in.ops[3], tb);
  const uint64_t* cv = src(c, in.ops[4], tc);
  check_member_masks(c, in.ops[5]);
  uint64_t val[32];
  uint32_t pmask = 0;
  // PTX ISA 9.7.8.6 (shfl.sync), pseudocode "Semantics".
  each_lane(c.mask, [&](uint32_t lane) {
    uint32_t bval = uint32_t(b[lane]) & 0x1f;
    uint32_t cval = uint32_t(cv[lane]);
    uint32_t seg = (cval >> 8) & 0x1f;
    uint32_t max_lane = ((lane & seg) | ((cval & 0x1f) & ~seg));
    uint32_t min_lane = lane & seg;
    int32_t j;
    bool p;
    switch (in.shfl) {
      case ptx::ShflMode::Up: j = int32_t(lane) - int32_t(bval); p = j >= int32_t(max_lane); break;
      case ptx::ShflMode::Down: j = int32_t(lane + bval); p = j <= int32_t(max_lane); break;
      case ptx::ShflMode::Bfly: j = int32_t(lane ^ bval); p = j <= int32_t(max_lane); break;
      default: j = int32_t(min_lane | (bval & ~seg)); p = j <= int32_t(max_lane); break;
    }
    if (!p) j = int32_t(lane);
    val[lane] = a[j & 31];
    pmask |= uint32_t(p) << lane;
  });
  uint64_t* d = dst(c, in.ops[0]);
  each_lane(c.mask, [&](uint32_t i) { d[i] = uint32_t(val[i]); });
  if (in.ops[1].kind == ptx::OperandKind::Reg && in.ops[1].reg < ptx::kSinkReg) {
    uint64_t* p = dst(c, in.ops[1]);
    each_lane(c.mask, [&](uint32_t i) { p[i] = (pmask >> i) & 1; });
  }
}

void exec_vote(const ptx::Instr& in, WarpContext& c) {
  check_member_masks(c, in.ops[2]);
  const uint32_t act = c.mask;
  const uint32_t pred = pred_mask(c, in.ops[1]) & act;
  uint64_t* d = dst(c, in.ops[0]);
  uint64_t v;
  switch (in.vote) {
    case ptx::VoteMode::All: v = pred == act; break;
    case ptx::VoteMode::Any: v = pred != 0; break;
    case ptx::VoteMode::Uni: v = pred == 0 || pred == act; break;
    default: v = pred; break;  // ballot: bit i = lane i's predicate
  }
  each_lane(act, [&](uint32_t i) { d[i] = v; });
}

void exec_match(const ptx::Instr& in, WarpContext& c) {
  uint64_t ta[32];
  const uint64_t* a = src(c, in.ops[2], ta);
  check_member_masks(c, in.ops[3]);
  const bool wide = ptx::type_bytes(in.type) == 8;
  const uint32_t act = c.mask;
  auto key = [&](uint32_t i) { return wide ? a[i] : uint64_t(uint32_t(a[i])); };
  uint32_t same[32];
  each_lane(act, [&](uint32_t i) {
    uint32_t m = 0;
    each_lane(act, [&](uint32_t j) { m |= uint32_t(key(j) == key(i)) << j; });
    same[i] = m;
  });
  uint64_t* d = dst(c, in.ops[0]);
  const bool has_p = in.ops[1].kind == ptx::OperandKind::Reg && in.ops[1].reg < ptx::kSinkReg;
  uint64_t* p = has_p ? dst(c, in.ops[1]) : nullptr;
  if (in.vote == ptx::VoteMode::All) {
    bool all = same[std::countr_zero(act)] == act;
    each_lane(act, [&](uint32_t i) {
      d[i] = all ? act : 0;
      if (p) p[i] = all;
    });
  } else {
    each_lane(act, [&](uint32_t i) { d[i] = same[i]; });
  }
}

// redux.sync (PTX ISA 9.7.13.12 "redux.sync"): each executing thread reduces
// over the threads named in *its own* membermask. Lanes may pass different
// masks in one instruction (segmented use: lanes 0-15 pass 0x0000ffff and
// lanes 16-31 pass 0xffff0000, as cg::reduce over a tiled_partition<16>
// does), so the lanes are grouped by mask and each group reduces over the
// executing lanes its mask names. The ISA leaves a thread that is not in its
// own mask, or a mask naming a thread that does not execute the instruction,
// undefined; the checker reports both as invalid-mask (per group, so each
// segment is held to its own mask), and the value computed then is the
// reduction over the group's own lanes and the executing lanes its mask names.
uint32_t redux_combine(ptx::ReduxOp op, bool sgn, uint32_t acc, uint32_t x) {
  switch (op) {
    case ptx::ReduxOp::Add: return acc + x;
    case ptx::ReduxOp::Min: return sgn ? uint32_t(std::min(int32_t(acc), int32_t(x))) : std::min(acc, x);
    case ptx::ReduxOp::Max: return sgn ? uint32_t(std::max(int32_t(acc), int32_t(x))) : std::max(acc, x);
    case ptx::ReduxOp::And: return acc & x;
    case ptx::ReduxOp::Or: return acc | x;
    case ptx::ReduxOp::Xor: return acc ^ x;
    default: return acc;
  }
}

void exec_redux(const ptx::Instr& in, WarpContext& c) {
  uint64_t ta[32], tm[32];
  const uint64_t* a = src(c, in.ops[1], ta);
  const uint64_t* member = src(c, in.ops[2], tm);
  const bool sgn = ptx::type_is_signed(in.type);
  const uint32_t act = c.mask;
  uint32_t result[32];  // written after every group has read its sources (d may be a)
  for (uint32_t todo = act; todo;) {
    const uint32_t mask = uint32_t(member[std::countr_zero(todo)]);
    uint32_t group = 0;  // the executing lanes that passed this same mask
    each_lane(todo, [&](uint32_t i) { group |= uint32_t(uint32_t(member[i]) == mask) << i; });
    todo &= ~group;
    // Held against the lanes that execute with this mask and the executing
    // lanes it names: a group lane outside its mask is reported, as is a
    // named lane that does not execute the instruction.
    if (c.checker) c.checker->on_warp_sync(c.pc, c.warp->index, mask, group | (mask & act));
    const uint32_t over = (mask & act) | group;
    const uint32_t first = uint32_t(std::countr_zero(over));
    uint32_t acc = uint32_t(a[first]);
    each_lane(over & ~(1u << first), [&](uint32_t i) { acc = redux_combine(in.redux, sgn, acc, uint32_t(a[i])); });
    each_lane(group, [&](uint32_t i) { result[i] = acc; });
  }
  uint64_t* d = dst(c, in.ops[0]);
  each_lane(act, [&](uint32_t i) { d[i] = result[i]; });
}

}  // namespace

void exec_warp(const ptx::Instr& in, WarpContext& c) {
  switch (in.op) {
    case Op::BarSync: barrier_arrive(in, c, true, in.ops[0], in.ops[1]); return;
    case Op::BarArrive: barrier_arrive(in, c, false, in.ops[0], in.ops[1]); return;
    case Op::BarRed: {
      barrier_arrive(in, c, true, in.ops[1], in.ops[2]);
      if (c.warp->status != WarpStatus::AtBarrier) return;
      // After the arrival: lanes that were parked here arrive with this path.
      const uint32_t pred = pred_mask(c, in.ops[3]) & c.mask;
      BarrierState& bs = c.B->barriers[c.warp->barrier_id];
      bs.red_popc += (lanes_in(pred));
      bs.red_and = bs.red_and && pred == c.mask;
      bs.red_or = bs.red_or || pred != 0;
      c.warp->red_dst = in.ops[0].reg;
      c.warp->red_kind = in.redux == ptx::ReduxOp::And ? 2 : in.redux == ptx::ReduxOp::Or ? 3 : 1;
      return;
    }
    case Op::BarWarpSync: {
      // __syncwarp: lanes of one SIMT path are already in step; only the checker cares.
      check_member_masks(c, in.ops[0]);
      return;
    }
    case Op::ShflSync: exec_shfl(in, c); return;
    case Op::VoteSync: exec_vote(in, c); return;
    case Op::MatchSync: exec_match(in, c); return;
    case Op::ReduxSync: exec_redux(in, c); return;
    case Op::MbarrierInit: case Op::MbarrierArrive: case Op::MbarrierExpectTx: case Op::MbarrierCompleteTx:
    case Op::MbarrierTestWait: case Op::MbarrierTryWait: case Op::MbarrierPendingCount: case Op::MbarrierInval:
    case Op::CpAsyncMbarrierArrive: case Op::CpAsyncBulk:
      exec_mbarrier(in, c);
      return;
    case Op::CpAsyncBulkTensor:
      exec_tma(in, c);
      return;
    case Op::Activemask: {
      uint64_t* d = dst(c, in.ops[0]);
      uint32_t m = c.warp->mask;
      each_lane(c.mask, [&](uint32_t i) { d[i] = m; });
      return;
    }
    default:
      raise_fault(c, "unsupported", std::string("'") + ptx::op_name(in.op) + "' is not supported",
                  uint32_t(std::countr_zero(c.mask)));
  }
}

}  // namespace lab::sim
