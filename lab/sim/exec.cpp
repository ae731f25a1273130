// lab/sim/exec.cpp: the warp loop. Fetch, guard, count, then one indirect
// call to the handler resolved for the instruction at launch (resolve_exec,
// from the opcode table's family, the opcode and the type); control flow
// (bra, exit, ret) and SIMT reconvergence are handled here.
//
// SIMT reconvergence (as in GPGPU-Sim's post-dominator stack): the current
// path runs with (pc, mask, rpc). A branch that splits the warp at pc with
// immediate post-dominator r first makes sure the current path reconverges
// at r (pushing a reconvergence entry {r, mask, old rpc} unless rpc is
// already r), then runs one side and pushes the other. A path that reaches
// its rpc is popped; lanes that exit are removed from every entry.
#include "lab/sim/exec.h"
#include "lab/sim/sanitize.h"
#include "lab/sim/exec_memory.h"
#include "lab/sim/simt.h"

#include <chrono>
#include <fmt/format.h>

namespace lab::sim {

using ptx::Op;
using ptx::OperandKind;

// ---- errors -----------------------------------------------------------------------
void record_error(const LaunchState& L, WorkerState& W, const BlockState& B, const char* kind,
                  const std::string& message, uint32_t pc, uint32_t warp, uint32_t lane) {
  const ptx::Kernel& k = *L.kernel;
  uint32_t line = 0, ptx_line = 0;
  std::string file;
  if (pc < k.code.size()) {
    const ptx::Instr& in = k.code[pc];
    ptx_line = in.ptx_line;
    if (in.loc && in.loc < k.locs.size()) {
      const ptx::SourceLoc& loc = k.locs[in.loc];
      line = loc.line;
      if (loc.file < L.module->files.size()) file = L.module->files[loc.file];
    }
  }
  uint32_t t = warp * kWarpSize + lane;
  const Dim3& nt = L.cfg.block;
  const Dim3 thread{t % nt.x, (t / nt.x) % nt.y, t / (nt.x * nt.y)};
  // Deduplicate by kind + source line (PTX line when there is no .loc).
  for (KernelError& e : W.errors) {
    if (e.kind == kind && e.line == line && (line != 0 || e.ptx_line == ptx_line)) {
      ++e.count;
      if (e.offenders.size() < KernelError::kMaxOffenders) e.offenders.push_back({B.ctaid, thread});
      return;
    }
  }
  KernelError e;
  e.kind = kind;
  e.message = message;
  e.file = file;
  e.line = line;
  e.ptx_line = ptx_line;
  e.block = B.ctaid;
  e.thread = thread;
  e.offenders.push_back({B.ctaid, thread});
  W.errors.push_back(std::move(e));
}

void raise_fault(WarpContext& c, const char* kind, const std::string& message, uint32_t lane) {
  record_error(*c.L, *c.W, *c.B, kind, message, c.pc, c.warp->index, lane);
  c.warp->status = WarpStatus::Faulted;
  c.B->faulted = true;
  ++c.W->faults;
}

// ---- operands ---------------------------------------------------------------------
static uint64_t now_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

static void special_values(WarpContext& c, ptx::Special s, uint64_t* out) {
  using ptx::Special;
  const LaunchState& L = *c.L;
  const BlockState& B = *c.B;
  const Dim3& nt = L.cfg.block;
  uint32_t base = c.warp->index * kWarpSize;
  auto fill = [&](uint64_t v) { for (uint32_t i = 0; i < kWarpSize; ++i) out[i] = v; };
  switch (s) {
    case Special::TidX: for (uint32_t i = 0; i < kWarpSize; ++i) out[i] = (base + i) % nt.x; break;
    case Special::TidY: for (uint32_t i = 0; i < kWarpSize; ++i) out[i] = ((base + i) / nt.x) % nt.y; break;
    case Special::TidZ: for (uint32_t i = 0; i < kWarpSize; ++i) out[i] = (base + i) / (nt.x * nt.y); break;
    case Special::NtidX: fill(nt.x); break;
    case Special::NtidY: fill(nt.y); break;
    case Special::NtidZ: fill(nt.z); break;
    case Special::CtaidX: fill(B.ctaid.x); break;
    case Special::CtaidY: fill(B.ctaid.y); break;
    case Special::CtaidZ: fill(B.ctaid.z); break;
    case Special::NctaidX: fill(L.cfg.grid.x); break;
    case Special::NctaidY: fill(L.cfg.grid.y); break;
    case Special::NctaidZ: fill(L.cfg.grid.z); break;
    case Special::Laneid: for (uint32_t i = 0; i < kWarpSize; ++i) out[i] = i; break;
    case Special::Warpid: fill(c.warp->index); break;
    case Special::Nwarpid: fill(B.num_warps); break;
    case Special::Smid: fill(B.sm); break;
    case Special::Nsmid: fill(L.sm_count); break;
    case Special::Gridid: fill(1); break;
    case Special::LanemaskEq: for (uint32_t i = 0; i < kWarpSize; ++i) out[i] = 1u << i; break;
    case Special::LanemaskLe: for (uint32_t i = 0; i < kWarpSize; ++i) out[i] = uint32_t((2ull << i) - 1); break;
    case Special::LanemaskLt: for (uint32_t i = 0; i < kWarpSize; ++i) out[i] = (1u << i) - 1; break;
    case Special::LanemaskGe: for (uint32_t i = 0; i < kWarpSize; ++i) out[i] = ~((1u << i) - 1); break;
    case Special::LanemaskGt: for (uint32_t i = 0; i < kWarpSize; ++i) out[i] = uint32_t(~((2ull << i) - 1)); break;
    // %clock: the model's clock is the warp's issued-instruction count, which
    // is monotonic and makes clock()-based timing loops deterministic.
    case Special::Clock: fill(uint32_t(c.warp->steps)); break;
    case Special::Clock64: fill(c.warp->steps); break;
    case Special::Globaltimer: fill(now_ns() - L.timer_origin_ns); break;
    case Special::GlobaltimerLo: fill(uint32_t(now_ns() - L.timer_origin_ns)); break;
    case Special::GlobaltimerHi: fill((now_ns() - L.timer_origin_ns) >> 32); break;
    case Special::DynamicSmemSize: fill(L.cfg.dynamic_shared_bytes); break;
    case Special::TotalSmemSize: fill(L.shared_bytes - L.reserved_smem_bytes); break;
    // The lab's layout of the reserved region: _0 its first half, _1 its second
    // (each >= the 288 bytes cooperative groups' scratch needs, memory.h).
    case Special::ReservedSmemBegin: case Special::ReservedSmem0: fill(L.reserved_smem_offset); break;
    case Special::ReservedSmem1: fill(L.reserved_smem_offset + L.reserved_smem_bytes / 2); break;
    case Special::ReservedSmemEnd: fill(L.reserved_smem_offset + L.reserved_smem_bytes); break;
    case Special::ReservedSmemCap: fill(L.reserved_smem_bytes); break;
    // The grid barrier's workspace of a cooperative launch, as the driver
    // passes it (cooperative_groups/details/driver_abi.h: envreg1 the high
    // word, envreg2 the low); 0 otherwise, which grid_group::is_valid() reads
    // as "not a cooperative launch". The other envregs read 0.
    case Special::Envreg1: fill(L.grid_workspace >> 32); break;
    case Special::Envreg2: fill(uint32_t(L.grid_workspace)); break;
    default: fill(0); break;
  }
}

const uint64_t* src_slow(WarpContext& c, const ptx::Operand& o, uint64_t* tmp) {
  switch (o.kind) {
    case OperandKind::Reg:
      if (o.reg < ptx::kSinkReg) return c.regs + size_t(o.reg) * kWarpSize;
      break;
    case OperandKind::Imm:
    case OperandKind::Symbol:
    case OperandKind::Label:
      for (uint32_t i = 0; i < kWarpSize; ++i) tmp[i] = uint64_t(o.imm);
      return tmp;
    case OperandKind::Special:
      special_values(c, ptx::Special(o.reg), tmp);
      return tmp;
    default: break;
  }
  for (uint32_t i = 0; i < kWarpSize; ++i) tmp[i] = 0;
  return tmp;
}

uint32_t pred_mask(WarpContext& c, const ptx::Operand& o) {
  uint32_t m = 0;
  if (o.kind == OperandKind::Reg && o.reg < ptx::kSinkReg) {
    const uint64_t* p = c.regs + size_t(o.reg) * kWarpSize;
    for (uint32_t i = 0; i < kWarpSize; ++i) m |= uint32_t(p[i] & 1) << i;
  } else if (o.kind == OperandKind::Imm) {
    m = o.imm ? ~0u : 0u;
  }
  return o.negate ? ~m : m;
}

// ---- dispatch -------------------------------------------------------------------
Family family_of(const ptx::Instr& in) {
  // The opcode table's family; Num rows (add, mul, min, ...) run as float
  // arithmetic for float types and integer arithmetic otherwise.
  const Family f = in.op < Op::Count_ ? ptx::op_info(in.op).family : Family::Unsupported;
  if (f == Family::Num) return ptx::type_is_float(in.type) ? Family::Float : Family::Int;
  return f;
}

ExecFn resolve_exec(const ptx::Instr& in) {
  switch (family_of(in)) {
    case Family::Int: return resolve_int(in);
    case Family::Float: return resolve_float(in);
    case Family::Compare: return resolve_compare(in);
    case Family::Cvt: return resolve_cvt(in);
    case Family::Memory: return resolve_memory(in);
    case Family::Warp: return exec_warp;
    case Family::Matrix: return exec_matrix;
    default: return nullptr;  // Control, Nop, Unsupported: run_warp itself
  }
}

// After a poll (PreparedInstr::poll): the same load reading the same values
// as this warp's last poll means it waits for another block to write, so the
// warp stops (WarpStatus::Polling) until the grid's other blocks have had a
// turn. Anything new is progress (WorkerState::poll_changes).
static void poll_unchanged(const ptx::Kernel& k, WarpState& w, const ptx::Instr& in, uint32_t m, uint32_t pc,
                           WorkerState& W) {
  uint64_t h = 0xcbf29ce484222325ull ^ m;  // FNV-1a over the destinations' lanes
  auto mix = [&](uint32_t slot) {
    if (slot >= ptx::kSinkReg) return;
    const uint64_t* v = w.regs + size_t(slot) * kWarpSize;
    for (uint32_t lanes = m; lanes; lanes &= lanes - 1) h = (h ^ v[std::countr_zero(lanes)]) * 0x100000001b3ull;
  };
  const ptx::Operand& d = in.ops[0];
  if (d.kind == ptx::OperandKind::Reg) mix(d.reg);
  else if (d.kind == ptx::OperandKind::Vec)
    for (uint32_t i = 0; i < d.vec_len; ++i) mix(k.vec_slots[d.reg + i]);
  if (w.poll_pc == pc && w.poll_hash == h) {
    w.status = WarpStatus::Polling;
    return;
  }
  w.poll_pc = pc;
  w.poll_hash = h;
  ++W.poll_changes;
}

void run_warp(WarpContext& c, uint64_t quantum) {
  WarpState& w = *c.warp;
  const LaunchState& L = *c.L;
  const ptx::Instr* code = L.kernel->code.data();
  const uint32_t code_size = uint32_t(L.kernel->code.size());
  const PreparedInstr* prep = L.prepared.data();
  PcCounters* per_pc = c.W->per_pc.data();
  c.regs = w.regs;
  c.trace = c.block_trace ? &c.block_trace->warps[w.index] : nullptr;
  WarpEvent* const event = L.events ? &c.W->event : nullptr;

  while (quantum--) {
    // Reconverge: pop finished paths.
    while (w.pc == w.rpc || w.mask == 0) {
      w.spin = 0;
      if (w.stack.empty()) {
        if (w.parked) {  // the rest of the warp exited: the parked lanes go on from their barrier
          w.pc = w.parked_pc;
          w.mask = w.parked;
          w.rpc = kNoPc;
          w.parked = 0;
          break;
        }
        w.status = WarpStatus::Done;
        return;
      }
      const SimtEntry& e = w.stack.back();
      w.pc = e.pc;
      w.mask = e.mask;
      w.rpc = e.rpc;
      w.stack.pop_back();
    }
    const uint32_t pc = w.pc;
    if (pc >= code_size) {  // ran off the end of the kernel: an implicit exit
      if (!w.async.empty()) cp_async_complete(c, w.mask, UINT32_MAX);
      retire_lanes(w, w.mask);
      continue;
    }
    const ptx::Instr& in = code[pc];
    PcCounters& pm = per_pc[pc];
    uint32_t m = w.mask;
    ++pm.warp_insts;
    pm.active_lanes += (lanes_in(m));
    if (in.guard != ptx::kNoReg) {
      const uint64_t* g = w.regs + size_t(in.guard) * kWarpSize;
      uint32_t gm = 0;
      for (uint32_t i = 0; i < kWarpSize; ++i) gm |= uint32_t(g[i] & 1) << i;
      m &= in.guard_negated ? ~gm : gm;
    }
    pm.thread_insts += (lanes_in(m));
    if (c.trace) [[unlikely]] c.trace->insts.push_back({pc, m});
    c.mask = m;
    c.pc = pc;
    c.pcm = &pm;
    if (++w.steps > L.max_steps) [[unlikely]] {
      raise_fault(c, "hang",
                  fmt::format("a warp issued more than {} instructions without finishing; the kernel "
                              "probably loops forever (check the loop condition), or raise the step budget "
                              "(--max-steps){}",
                              L.max_steps, [&] {  // where it loops (sanitize.cpp)
                                std::string loop = describe_loop(*L.module, *L.kernel, pc);
                                return loop.empty() ? loop : "; " + loop;
                              }()),
                  uint32_t(std::countr_zero(m | (m == 0 ? w.mask : 0))));
      return;
    }
    if (event) [[unlikely]] {
      // SimOptions::event_every: sample all but global-memory instructions.
      bool global = prep[pc].family == Family::Memory && (in.space == ptx::Space::Global || in.space == ptx::Space::Generic);
      c.ev = L.event_every <= 1 || global || ++c.W->event_tick % L.event_every == 0 ? event : nullptr;
    }
    if (c.ev) [[unlikely]] {
      WarpEvent& ev = *c.ev;
      ev.kind = WarpEvent::WarpInstr;
      ev.warp = w.index;
      ev.pc = pc;
      ev.active_mask = m;
      ev.space = ptx::Space::Generic;
      ev.access_bytes = 0;
      ev.is_store = false;
      ev.sectors = ev.wavefronts = ev.ideal_wavefronts = 0;
      std::memset(ev.lane_addr, 0, sizeof ev.lane_addr);  // 0 for lanes that do not access memory
      ev.shared.mask = 0;
      ev.ideal_sectors = 0;
      ev.op_flags = ptx::op_info(in.op).flags;            // barrier / exit, for event readers
    }

    switch (prep[pc].family) {
      case Family::Control: {
        if (in.op == Op::Bra) {
          uint32_t taken = m, fall = w.mask & ~m;
          uint32_t target = uint32_t(in.target);
          if (c.ev) { c.ev->seq = c.W->event_seq++; L.events->on_event(*c.ev); }
          if (target <= pc && !w.stack.empty() && taken) [[unlikely]] {
            // A diverged path looping back: after kSpinYield turns with no
            // reconvergence, let the warp's other lanes run (a lane spinning
            // on a lock another lane of its warp holds; simt.h).
            if (++w.spin >= kSpinYield) {
              w.spin = 0;
              uint32_t here = w.mask;
              w.mask = taken;
              w.pc = target;
              if (fall) w.stack.push_back({pc + 1, fall, w.rpc});
              if (!yield_path(w)) {
                if (fall) w.stack.pop_back();
                w.mask = here;
                w.pc = pc;
              } else {
                continue;
              }
            }
          }
          if (fall == 0) { w.pc = target; continue; }
          if (taken == 0) { w.pc = pc + 1; continue; }
          ++pm.divergent;
          uint32_t r = prep[pc].ipdom;
          if (w.rpc != r) {
            w.stack.push_back({r, w.mask, w.rpc});
            w.rpc = r;
          }
          bool run_taken = target != r, run_fall = pc + 1 != r;
          if (run_taken && run_fall) {
            w.stack.push_back({pc + 1, fall, r});
            w.pc = target;
            w.mask = taken;
          } else if (run_taken) {
            w.pc = target;
            w.mask = taken;
          } else if (run_fall) {
            w.pc = pc + 1;
            w.mask = fall;
          } else {
            w.mask = 0;
          }
          continue;
        }
        if (in.op == Op::Exit && in.mode == ptx::kExitTrap && m) [[unlikely]] {
          raise_fault(c, "trap",
                      fmt::format("the kernel executed trap (PTX line {}), which aborts the launch: __trap(), or "
                                  "a library's abort (cooperative groups abort in grid.sync() when the launch was "
                                  "not cooperative: launch with cudaLaunchCooperativeKernel)",
                                  in.ptx_line),
                      uint32_t(std::countr_zero(m)));
          return;
        }
        if (in.op == Op::Ret || in.op == Op::Exit) {
          // Kernels run without a call stack (device functions are inlined),
          // so ret retires the lanes like exit.
          if (c.ev) { c.ev->seq = c.W->event_seq++; L.events->on_event(*c.ev); }
          if (!w.async.empty()) cp_async_complete(c, m, UINT32_MAX);  // copies in flight land before the thread goes
          retire_lanes(w, m);
          if (w.mask) w.pc = pc + 1;
          continue;
        }
        if (in.op == Op::Call && in.mode != uint8_t(ptx::DeviceCall::None)) {  // printf, assert
          if (m) exec_device_call(in, c);
          if (w.status != WarpStatus::Ready) return;
          w.pc = pc + 1;
          continue;
        }
        raise_fault(c, "unsupported",
                    fmt::format("'{}' (PTX line {}) is not supported by the simulator: calls to "
                                "non-inlined functions; mark the function __forceinline__",
                                ptx::op_name(in.op), in.ptx_line),
                    uint32_t(std::countr_zero(w.mask)));
        return;
      }
      case Family::Nop:
        if (c.checker && m && (in.op == Op::Membar || in.op == Op::Fence)) c.checker->on_fence(pc, w.index);
        break;
      case Family::Unsupported:
        raise_fault(c, "unsupported",
                    fmt::format("instruction '{}' (PTX line {}) is not supported by the simulator",
                                ptx::op_name(in.op), in.ptx_line),
                    uint32_t(std::countr_zero(w.mask)));
        return;
      default:  // the one indirect call: the handler resolved at launch (resolve_exec)
        if (m) prep[pc].exec(in, c);
        if (prep[pc].poll && m && w.status == WarpStatus::Ready) [[unlikely]] poll_unchanged(*L.kernel, w, in, m, pc, *c.W);
        break;
    }
    if (c.ev) [[unlikely]] {
      c.ev->seq = c.W->event_seq++;
      L.events->on_event(*c.ev);
    }
    w.pc = pc + 1;
    if (w.status != WarpStatus::Ready) [[unlikely]] {
      // Lanes parked at a barrier (simt.h) left the path empty: the next turn
      // pops the warp's next path. Any other status stops the warp.
      if (w.status != WarpStatus::PathSwitched) return;  // waiting at a barrier, or faulted
      w.status = WarpStatus::Ready;
    }
  }
}

}  // namespace lab::sim
