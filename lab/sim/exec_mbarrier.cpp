// lab/sim/exec_mbarrier.cpp: mbarrier objects (PTX ISA 9.7.13.15) and
// cp.async.mbarrier.arrive (9.7.9.25, async copy).
//
// An mbarrier is a 64-bit, 8-byte aligned object in shared memory whose
// contents the ISA leaves opaque (9.7.13.15, "Contents of the mbarrier object") but defines as: the current
// phase, the expected arrival count, the pending arrival count of the current
// phase and (sm_90) a tx-count. The lab encodes them in the object's word:
//
//   bits  0-19  pending arrival count   (counts are 1 .. 2^20-1)
//   bits 20-39  expected arrival count
//   bits 40-60  tx-count, 21-bit two's complement (range +-(2^20-1))
//   bit  62     "initialised": set by mbarrier.init, cleared by mbarrier.inval
//               (the lab's own bit, so an arrive on garbage is reported)
//   bit  63     phase parity
//
// A phase completes when its pending count and its tx-count are both zero
// (9.7.13.15, "Phase completion of the mbarrier object"): the phase flips, the pending count is
// reset to the expected count and tx-count starts from zero.
//
// The state token mbarrier.arrive returns is the object as that lane's arrive
// left it, with the phase bit of the phase it arrived in; test_wait/try_wait
// compare its phase bit with the object's (a phase is complete once the
// object's phase differs from the awaited one: "mbarrier.test_wait/try_wait"), and
// mbarrier.pending_count reads the pending count from it ("mbarrier.pending_count").
//
// Waiting: try_wait is potentially blocking ("mbarrier.test_wait/try_wait"): a warp whose
// awaited phase has not completed parks (WarpStatus::AtMbarrier) and the
// block loop (launch.cpp) wakes it once the phase completes, so a waiting
// warp costs nothing while the others run. test_wait never blocks: when it
// answers false the warp yields (WarpStatus::Yielded) so a test_wait spin
// loop (cuda::barrier on sm_80) hands the SM to the warps it waits for.
//
// cp.async is performed at issue in the lab (exec_memory.cpp), so every
// earlier cp.async of a thread is complete when its cp.async.mbarrier.arrive
// executes and the arrive-on it triggers happens at once (9.7.9.25 "cp.async.mbarrier.arrive").
#include <fmt/format.h>

#include <cstring>

#include "lab/sim/exec.h"
#include "lab/sim/exec_memory.h"

namespace lab::sim {

using ptx::Op;

namespace {

constexpr uint64_t kCountMask = (1ull << 20) - 1;
constexpr uint32_t kMaxCount = (1u << 20) - 1;
constexpr int kTxBits = 21;
constexpr uint64_t kInitBit = 1ull << 62;
constexpr uint64_t kPhaseBit = 1ull << 63;

struct Mbar {
  uint32_t pending = 0, expected = 0;
  int32_t tx = 0;
  bool init = false;
  uint32_t phase = 0;  // parity

  static Mbar decode(uint64_t w) {
    Mbar b;
    b.pending = uint32_t(w & kCountMask);
    b.expected = uint32_t((w >> 20) & kCountMask);
    uint32_t t = uint32_t((w >> 40) & ((1u << kTxBits) - 1));
    b.tx = int32_t(t << (32 - kTxBits)) >> (32 - kTxBits);
    b.init = w & kInitBit;
    b.phase = uint32_t(w >> 63);
    return b;
  }
  uint64_t encode() const {
    return uint64_t(pending & kCountMask) | (uint64_t(expected & kCountMask) << 20) |
           (uint64_t(uint32_t(tx) & ((1u << kTxBits) - 1)) << 40) | (init ? kInitBit : 0) |
           (uint64_t(phase & 1) << 63);
  }
  bool done() const { return pending == 0 && tx == 0; }
  void complete() {
    phase ^= 1;
    pending = expected;
    tx = 0;
  }
};

uint64_t load_word(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
void store_word(uint8_t* p, uint64_t w) { std::memcpy(p, &w, 8); }

// The lanes' mbarrier objects as host pointers into the block's shared
// memory: a .shared address is an offset, a generic one must fall in the
// shared window. Faults (naming the instruction) and returns false otherwise.
bool object_pointers(const ptx::Instr& in, WarpContext& c, const ptx::Operand& o, uint32_t mask, uint8_t** host,
                     uint32_t* offsets) {
  Access a;
  a.bytes = 8;
  a.where = ptx::Space::Shared;
  const uint64_t* base = o.reg < ptx::kSinkReg ? c.regs + size_t(o.reg) * kWarpSize : nullptr;
  uint32_t outside = 0;
  each_lane(mask, [&](uint32_t i) {
    uint64_t x = (base ? base[i] : 0) + uint64_t(o.imm);
    if (in.space == ptx::Space::Shared) {
      x &= 0xffffffffull;
      if (x - ptx::kSharedWindow < ptx::kWindowSize) x -= ptx::kSharedWindow;
    } else if (x - ptx::kSharedWindow < ptx::kWindowSize) {
      x -= ptx::kSharedWindow;
    } else {
      outside |= 1u << i;
    }
    a.addr[i] = x;
  });
  if (outside) {
    const uint32_t lane = uint32_t(std::countr_zero(outside));
    raise_fault(c, "fault",
                fmt::format("'{}': the generic address 0x{:x} is not in shared memory; an mbarrier object must "
                            "live in shared memory (PTX ISA 9.7.13.15: declare it __shared__)",
                            ptx::op_name(in.op), (base ? base[lane] : 0) + uint64_t(o.imm)),
                lane);
    return false;
  }
  if (!resolve(c, a, mask, true, 8)) return false;
  each_lane(mask, [&](uint32_t i) {
    host[i] = a.host[i];
    offsets[i] = uint32_t(a.addr[i]);
  });
  return true;
}

void fault_lane(WarpContext& c, const ptx::Instr& in, uint32_t lane, uint32_t offset, const std::string& why) {
  raise_fault(c, "fault",
              fmt::format("'{}' on the mbarrier at shared offset 0x{:x} (thread {} of its warp): {}",
                          ptx::op_name(in.op), offset, lane, why),
              lane);
}

bool require_init(WarpContext& c, const ptx::Instr& in, const Mbar& b, uint32_t lane, uint32_t off) {
  if (b.init) return true;
  fault_lane(c, in, lane, off,
             "the object was never initialised by mbarrier.init (cuda::barrier's init()) or was invalidated by "
             "mbarrier.inval; initialise it once, before any thread arrives, and __syncthreads() after");
  return false;
}

// The cycle model's phase events (cycle/trace.h TraceSync), in traced
// blocks only: an operation on the object at `off` contributed to its
// current phase (and completed it when `completed`), or a wait went
// through on its latest completed phase. Phases are numbered per object;
// mbarrier.init starts a fresh run of numbers.
void trace_init(WarpContext& c, uint32_t off) {
  if (!c.trace) return;
  BlockState::MbarPhases& p = c.B->mbar_phases[off];
  p.first += p.completed + 1;
  p.completed = 0;
}
void trace_contribution(WarpContext& c, uint32_t off, bool completed) {
  if (!c.trace) return;
  BlockState::MbarPhases& p = c.B->mbar_phases[off];
  c.trace->add_sync(off, p.first + p.completed, false);
  if (completed) ++p.completed;
}
void trace_wait(cycle::WarpTrace* trace, BlockState& B, uint32_t off) {
  if (!trace) return;
  const BlockState::MbarPhases& p = B.mbar_phases[off];
  trace->add_sync(off, p.first + p.completed - 1, true);
}

// One arrive-on operation of `count` ("mbarrier.arrive"): lowers
// the pending count, and completes the phase when it and tx-count reach
// zero. Returns false after a fault.
bool arrive(WarpContext& c, const ptx::Instr& in, Mbar& b, uint32_t lane, uint32_t off, uint32_t count,
            bool no_complete) {
  if (count == 0 || count > kMaxCount) {
    fault_lane(c, in, lane, off, fmt::format("count {} is outside 1 .. 2^20-1 (PTX ISA, mbarrier.arrive)", count));
    return false;
  }
  if (count > b.pending) {
    fault_lane(c, in, lane, off,
               fmt::format("{} arrival(s) but only {} pending in this phase: more threads arrive than "
                           "mbarrier.init counted (the barrier's expected count is {})",
                           count, b.pending, b.expected));
    return false;
  }
  b.pending -= count;
  if (b.done()) {
    if (no_complete) {
      fault_lane(c, in, lane, off,
                 "the .noComplete arrive would complete the phase, which the PTX ISA leaves undefined "
                 "(PTX ISA, mbarrier.arrive); use a plain arrive for the last arrival");
      return false;
    }
    b.complete();
  }
  return true;
}

bool add_tx(WarpContext& c, const ptx::Instr& in, Mbar& b, uint32_t lane, uint32_t off, int64_t delta) {
  const int64_t t = int64_t(b.tx) + delta;
  if (t > int64_t(kMaxCount) || t < -int64_t(kMaxCount)) {
    fault_lane(c, in, lane, off,
               fmt::format("tx-count {} leaves the range +-(2^20-1) the PTX ISA allows (PTX ISA 9.7.13.15, contents of the mbarrier object)", t));
    return false;
  }
  b.tx = int32_t(t);
  return true;
}

// waitComplete of test_wait/try_wait for one lane: the awaited phase (from a
// state token or a parity operand) is complete once the object's phase
// parity differs from it ("mbarrier.test_wait/try_wait").
bool phase_complete(const ptx::Instr& in, const Mbar& b, uint64_t operand) {
  const uint32_t awaited = (in.mode & ptx::kMbarParity) ? uint32_t(operand & 1) : uint32_t(operand >> 63);
  return b.phase != awaited;
}

void exec_wait(const ptx::Instr& in, WarpContext& c) {
  uint8_t* host[32];
  uint32_t off[32];
  if (!object_pointers(in, c, in.ops[1], c.mask, host, off)) return;
  uint64_t ts[32];
  const uint64_t* state = src(c, in.ops[2], ts);
  uint32_t complete = 0;
  bool ok = true;
  each_lane(c.mask, [&](uint32_t i) {
    if (!ok) return;
    Mbar b = Mbar::decode(load_word(host[i]));
    if (!require_init(c, in, b, i, off[i])) { ok = false; return; }
    complete |= uint32_t(phase_complete(in, b, state[i])) << i;
  });
  if (!ok) return;
  WarpState& w = *c.warp;
  if (in.op == Op::MbarrierTryWait && complete != c.mask) {
    // Potentially blocking: park until every lane's phase completed; the
    // block loop re-evaluates with mbarrier_try_wake and writes the predicate.
    w.status = WarpStatus::AtMbarrier;
    w.barrier_arrived = c.mask;
    w.mbar_pc = c.pc;
    return;
  }
  uint64_t* d = dst(c, in.ops[0]);
  each_lane(c.mask, [&](uint32_t i) { d[i] = (complete >> i) & 1; });
  // test_wait answered false: let the other warps run before this one polls again.
  if (complete != c.mask) {
    w.status = WarpStatus::Yielded;
    return;
  }
  each_lane(c.mask, [&](uint32_t i) { trace_wait(c.trace, *c.B, off[i]); });
  if (c.checker) c.checker->on_mbarrier_wait(c.pc, w.index);
}

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]
// (PTX ISA 9.7.9.25 "cp.async.bulk"): copies `size` bytes (a multiple of 16,
// both addresses 16-byte aligned) and then performs complete_tx(size) on the
// mbarrier. The lab copies at issue, so the complete-tx comes before the
// expect_tx that libcu++ issues after the copy: tx-count goes negative and
// back to zero, which the ISA's range of +-(2^20-1) allows.
// Its global reads are counted as one request of its sectors and timed by
// the cycle model on the SM's copy engine (count_bulk_request).
void exec_bulk(const ptx::Instr& in, WarpContext& c) {
  uint8_t* mhost[32];
  uint32_t moff[32];
  if (!object_pointers(in, c, in.ops[3], c.mask, mhost, moff)) return;  // every lane's object, before any copy
  uint64_t tsz[32];
  const uint64_t* size = src(c, in.ops[2], tsz);
  const ptx::Operand& dop = in.ops[0];
  const ptx::Operand& sop = in.ops[1];
  const uint64_t* dreg = dop.reg < ptx::kSinkReg ? c.regs + size_t(dop.reg) * kWarpSize : nullptr;
  const uint64_t* sreg = sop.reg < ptx::kSinkReg ? c.regs + size_t(sop.reg) * kWarpSize : nullptr;
  for (uint32_t m = c.mask; m; m &= m - 1) {
    const uint32_t i = uint32_t(std::countr_zero(m));
    const uint32_t n = uint32_t(size[i]);
    if (n == 0 || n % 16 != 0) {
      fault_lane(c, in, i, moff[i], fmt::format("the copy size {} must be a non-zero multiple of 16 bytes", n));
      return;
    }
    Access d, s;
    d.bytes = s.bytes = n;
    d.where = ptx::Space::Shared;
    s.where = ptx::Space::Global;
    uint64_t x = ((dreg ? dreg[i] : 0) + uint64_t(dop.imm)) & 0xffffffffull;
    if (x - ptx::kSharedWindow < ptx::kWindowSize) x -= ptx::kSharedWindow;
    d.addr[i] = x;
    s.addr[i] = (sreg ? sreg[i] : 0) + uint64_t(sop.imm);
    if (!resolve(c, d, 1u << i, true, 16) || !resolve(c, s, 1u << i, false, 16)) return;
    // The kernel checks see the copy's source read and destination write
    // (out-of-bounds, races, and the shared bytes it initialises).
    if (!checker_veto(c, s, 1u << i, false, false) || !checker_veto(c, d, 1u << i, true, false)) continue;
    std::memmove(d.host[i], s.host[i], n);
    std::vector<uint64_t> sectors;
    for (uint64_t x = s.addr[i] / 32; x <= (s.addr[i] + n - 1) / 32; ++x) sectors.push_back(x);
    count_bulk_request(c, sectors, n, n);
    if (!mbarrier_complete_tx(in, c, in.ops[3], i, n)) return;
  }
}

}  // namespace

bool mbarrier_complete_tx(const ptx::Instr& in, WarpContext& c, const ptx::Operand& bar, uint32_t lane, uint32_t bytes) {
  uint8_t* host[32];
  uint32_t off[32];
  if (!object_pointers(in, c, bar, 1u << lane, host, off)) return false;
  Mbar b = Mbar::decode(load_word(host[lane]));
  if (!require_init(c, in, b, lane, off[lane])) return false;
  if (!add_tx(c, in, b, lane, off[lane], -int64_t(bytes))) return false;
  const bool completes = b.done();
  if (completes) b.complete();
  store_word(host[lane], b.encode());
  trace_contribution(c, off[lane], completes);
  // complete_tx publishes the copied bytes to the phase's waiters, as an arrival does.
  if (c.checker) c.checker->on_mbarrier_arrive(c.pc, c.warp->index);
  return true;
}

void exec_mbarrier(const ptx::Instr& in, WarpContext& c) {
  switch (in.op) {
    case Op::MbarrierTestWait: case Op::MbarrierTryWait: exec_wait(in, c); return;
    case Op::CpAsyncBulk: exec_bulk(in, c); return;
    case Op::MbarrierPendingCount: {
      // "mbarrier.pending_count": the pending count recorded in a state token.
      uint64_t ts[32];
      const uint64_t* state = src(c, in.ops[1], ts);
      uint64_t* d = dst(c, in.ops[0]);
      each_lane(c.mask, [&](uint32_t i) { d[i] = uint32_t(state[i] & kCountMask); });
      return;
    }
    default: break;
  }
  const bool has_state = in.op == Op::MbarrierArrive;
  const ptx::Operand& addr = in.ops[has_state ? 1 : 0];
  uint8_t* host[32];
  uint32_t off[32];
  if (!object_pointers(in, c, addr, c.mask, host, off)) return;
  uint64_t tv[32];
  const int value_op = has_state ? 2 : 1;
  const bool has_value = in.num_ops > value_op && in.ops[value_op].kind != ptx::OperandKind::None;
  const uint64_t* value = has_value ? src(c, in.ops[value_op], tv) : nullptr;
  uint64_t tokens[32];
  // cp.async.mbarrier.arrive: the arrive happens when the thread's earlier
  // cp.async copies complete; here they complete now, one of the orders the
  // ISA allows, and before the arrival publishes them.
  if (in.op == Op::CpAsyncMbarrierArrive && !c.warp->async.empty()) cp_async_complete(c, c.mask, UINT32_MAX);
  // An arrival publishes the arriving warp's accesses to the phase's waiters (the checks).
  if (c.checker && (in.op == Op::MbarrierArrive || in.op == Op::CpAsyncMbarrierArrive))
    c.checker->on_mbarrier_arrive(c.pc, c.warp->index);
  // Lanes operate one after another in lane order, each on the object as
  // the previous lane left it (lanes may share one object, the usual case).
  for (uint32_t m = c.mask; m; m &= m - 1) {
    const uint32_t i = uint32_t(std::countr_zero(m));
    Mbar b = Mbar::decode(load_word(host[i]));
    const uint32_t phase_before = b.phase;
    switch (in.op) {
      case Op::MbarrierInit: {
        // "mbarrier.init": phase 0, expected = pending = count, tx-count 0.
        const uint32_t count = uint32_t(value[i]);
        if (count == 0 || count > kMaxCount) {
          fault_lane(c, in, i, off[i], fmt::format("count {} is outside 1 .. 2^20-1 (PTX ISA, mbarrier.init)", count));
          return;
        }
        b = Mbar{};
        b.pending = b.expected = count;
        b.init = true;
        break;
      }
      case Op::MbarrierInval:  // "mbarrier.inval": the object may be reused as ordinary memory
        if (!require_init(c, in, b, i, off[i])) return;
        b.init = false;
        break;
      case Op::MbarrierExpectTx: case Op::MbarrierCompleteTx: {
        // "mbarrier.expect_tx" / "mbarrier.complete_tx": expect_tx raises tx-count, complete_tx lowers it
        // (what a cp.async.bulk's completed bytes do), which can complete the phase.
        if (!require_init(c, in, b, i, off[i])) return;
        const int64_t n = int64_t(uint32_t(value[i]));
        if (!add_tx(c, in, b, i, off[i], in.op == Op::MbarrierExpectTx ? n : -n)) return;
        if (in.op == Op::MbarrierCompleteTx && b.done()) b.complete();
        break;
      }
      case Op::MbarrierArrive: {
        // "mbarrier.arrive" (arrive, arrive.expect_tx, .noComplete) and "mbarrier.arrive_drop".
        if (!require_init(c, in, b, i, off[i])) return;
        uint32_t count = 1;
        if (in.mode & ptx::kMbarExpectTx) {
          if (!add_tx(c, in, b, i, off[i], int64_t(uint32_t(value[i])))) return;
        } else if (has_value) {
          count = uint32_t(value[i]);
        }
        const uint64_t arrived_phase = b.phase;
        if (in.mode & ptx::kMbarDrop) {
          if (count > b.expected) {
            fault_lane(c, in, i, off[i],
                       fmt::format("arrive_drop of {} but the expected count is {}", count, b.expected));
            return;
          }
          b.expected -= count;
        }
        if (!arrive(c, in, b, i, off[i], count, in.mode & ptx::kMbarNoComplete)) return;
        // The token: this arrive's phase, and the pending count it left
        // (0 when it completed the phase).
        Mbar t = b;
        t.phase = uint32_t(arrived_phase);
        if (t.phase != b.phase) t.pending = 0;
        tokens[i] = t.encode();
        break;
      }
      case Op::CpAsyncMbarrierArrive:
        // "cp.async.mbarrier.arrive" (9.7.9.25): without .noinc the pending count is raised by one
        // before the asynchronous arrive, a net change of zero; with .noinc
        // the arrive counts against the pending count set by init (the
        // thread's copies completed above).
        if (!require_init(c, in, b, i, off[i])) return;
        if ((in.mode & ptx::kMbarNoInc) && !arrive(c, in, b, i, off[i], 1, false)) return;
        break;
      default:
        raise_fault(c, "unsupported", std::string("'") + ptx::op_name(in.op) + "' is not supported", i);
        return;
    }
    store_word(host[i], b.encode());
    if (in.op == Op::MbarrierInit) trace_init(c, off[i]);
    else if (in.op != Op::MbarrierInval) trace_contribution(c, off[i], b.phase != phase_before);
  }
  if (has_state) {
    uint64_t* d = dst(c, in.ops[0]);
    each_lane(c.mask, [&](uint32_t i) { d[i] = tokens[i]; });
  }
}

bool mbarrier_try_wake(const LaunchState& L, WorkerState& W, BlockState& B, WarpState& w, BlockChecker* checker,
                       cycle::BlockTrace* block_trace) {
  cycle::WarpTrace* trace = block_trace ? &block_trace->warps[w.index] : nullptr;
  const ptx::Instr& in = L.kernel->code[w.mbar_pc];
  WarpContext c;
  c.L = &L;
  c.W = &W;
  c.B = &B;
  c.warp = &w;
  c.regs = w.regs;
  c.mask = w.barrier_arrived;
  c.pc = w.mbar_pc;
  uint8_t* host[32];
  uint32_t off[32];
  if (!object_pointers(in, c, in.ops[1], c.mask, host, off)) return false;
  uint64_t ts[32];
  const uint64_t* state = src(c, in.ops[2], ts);
  bool all = true;
  each_lane(c.mask, [&](uint32_t i) { all = all && phase_complete(in, Mbar::decode(load_word(host[i])), state[i]); });
  if (!all) return false;
  uint64_t* d = dst(c, in.ops[0]);
  each_lane(c.mask, [&](uint32_t i) { d[i] = 1; });
  each_lane(c.mask, [&](uint32_t i) { trace_wait(trace, B, off[i]); });
  w.status = WarpStatus::Ready;
  if (checker) checker->on_mbarrier_wait(c.pc, w.index);
  return true;
}

std::string mbarrier_describe_wait(const LaunchState& L, const BlockState& B, const WarpState& w) {
  const ptx::Instr& in = L.kernel->code[w.mbar_pc];
  const ptx::Operand& o = in.ops[1];
  const uint32_t lane = uint32_t(std::countr_zero(w.barrier_arrived | (w.barrier_arrived ? 0 : 1)));
  uint64_t x = (o.reg < ptx::kSinkReg ? w.regs[size_t(o.reg) * kWarpSize + lane] : 0) + uint64_t(o.imm);
  x &= 0xffffffffull;
  if (x - ptx::kSharedWindow < ptx::kWindowSize) x -= ptx::kSharedWindow;
  if (x + 8 > B.shared.size()) return fmt::format("the mbarrier at shared offset 0x{:x}", x);
  const Mbar b = Mbar::decode(load_word(B.shared.data() + x));
  return fmt::format("the mbarrier at shared offset 0x{:x} (phase {}: {} of {} arrivals still pending, tx-count {})",
                     x, b.phase, b.pending, b.expected, b.tx);
}

}  // namespace lab::sim
