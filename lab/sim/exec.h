// lab/sim/exec.h: the warp interpreter's internals, shared by the per-family
// files (exec_int.cpp, exec_float.cpp, exec_compare.cpp, exec_cvt.cpp,
// exec_memory.cpp, exec_warp.cpp, exec_matrix.cpp).
//
// Index
//   [LAUNCH]   LaunchState: what every worker reads (kernel, memory views, L2)
//   [WORKER]   WorkerState: per worker thread (metrics, errors, caches)
//   [CONTEXT]  WarpContext: what one warp instruction sees
//   [OPERANDS] reading sources / writing destinations over 32 lanes
//   [FAMILIES] the per-family entry points and their handler resolvers
//
// Hot-path rules: no allocation, no strings, no virtual calls per lane, no
// map lookups. run_warp makes one indirect call per warp instruction, to the
// handler resolved at launch (resolve_exec): the common opcodes' handlers
// switch on neither opcode nor type. Every family reads operands as pointers
// to 32 contiguous lane values (register slots are slot-major) and loops over
// the lanes of `WarpContext::mask`, with a straight loop when all 32 lanes
// execute.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "lab/ptx/module.h"
#include "lab/sim/check.h"
#include "lab/sim/cycle/trace.h"
#include "lab/sim/launch.h"
#include "lab/sim/l2_model.h"
#include "lab/sim/memory_cost.h"
#include "lab/sim/warp.h"

namespace lab::sim {

// [LAUNCH] ----------------------------------------------------------------------
// Per-instruction facts computed once at launch.
// The opcode table's family (lab/ptx/opcodes.def); family_of never returns
// Num (it picks Int or Float by type).
using Family = ptx::OpFamily;

struct WarpContext;
// One warp instruction's semantics over the lanes of WarpContext::mask.
using ExecFn = void (*)(const ptx::Instr& in, WarpContext& c);

struct PreparedInstr {
  ExecFn exec = nullptr;  // resolve_exec(in): the handler run_warp calls; null for control flow
  Family family = Family::Unsupported;
  uint32_t ipdom = 0;  // for branches: where divergent paths reconverge (code.size() = exit)
  // A strong global load (.volatile/.relaxed/.acquire) in a cooperative
  // launch: a warp polling memory another block will change (grid.sync()'s
  // spin). run_warp parks it (WarpStatus::Polling) when it reads what it
  // read last time, so the grid's other blocks get their turn (launch.cpp).
  bool poll = false;
};

struct LaunchState {
  const ptx::Module* module = nullptr;
  const ptx::Kernel* kernel = nullptr;
  LaunchConfig cfg;
  const SimOptions* options = nullptr;
  std::vector<PreparedInstr> prepared;   // indexed like kernel->code
  const uint8_t* params = nullptr;
  uint32_t param_bytes = 0;
  GlobalMemory* memory = nullptr;
  // Views of global memory for the hot path (see GlobalMemory::host).
  uint8_t* arena = nullptr;      // host pointer of the buffer arena
  uint64_t arena_lo = 0, arena_bytes = 0;
  uint8_t* module_seg = nullptr; // module .global/.const variables
  uint64_t module_lo = 0, module_bytes = 0;
  L2Model* l2 = nullptr;
  uint32_t sm_count = 1;
  uint32_t shared_bytes = 0;     // static + dynamic per block
  uint64_t max_steps = 100'000'000;
  EventSink* events = nullptr;
  uint32_t event_every = 1;      // SimOptions::event_every
  uint64_t timer_origin_ns = 0;  // %globaltimer origin
  uint32_t* warp_insts_by_warp = nullptr;  // KernelMetrics::warp_insts_by_warp, one slot per warp of the grid
  uint32_t* global_requests_by_warp = nullptr;  // KernelMetrics::global_requests_by_warp, alike
  // Reserved shared memory (%reserved_smem_offset_*): placed after the
  // kernel's own shared memory when the kernel reads those registers.
  uint32_t reserved_smem_offset = 0, reserved_smem_bytes = 0;
  // A cooperative launch's grid workspace (%envreg1/2; GlobalMemory::grid_workspace), 0 otherwise.
  uint64_t grid_workspace = 0;
};

// One thread's printf output, kept per worker and put in warp order at the
// end of the launch (exec_call.cpp).
struct PrintfLine {
  uint32_t block = 0, warp = 0, lane = 0;
  uint64_t step = 0;  // the warp's issue count at the call: the calls' order within a warp
  std::string text;
};

// [WORKER] ----------------------------------------------------------------------
// Last shared-memory access pattern per pc: bank conflicts depend only on the
// lane offsets relative to lane 0 (and lane 0's position within a 4-byte
// word), so a repeated pattern reuses its cost instead of re-sorting.
struct SharedCostMemo {
  uint32_t mask = 0;
  uint32_t bytes = 0;
  uint32_t sub_word = 0xffffffffu;
  SharedCost cost;
  uint32_t offs[32] = {};
  // The same lanes' access widened to 4, 8 and 16 bytes (the window each
  // address falls in): what ptxas's merge of neighbouring scalar loads into
  // one LDS costs (lab/sim/cycle/decode.h, `merge`). Worked out only for
  // traced blocks, once per memo entry.
  bool wide_known = false;
  uint16_t wide4 = 0, wide8 = 0, wide16 = 0;
  // The lanes' offsets for the full-warp fast path's copy (exec_memory.cpp
  // fast_shared): every lane on one word (a broadcast: one read), lane i at
  // i * bytes (unit stride: one contiguous block), or neither. Set with the
  // offsets (classify()).
  enum class Lanes : uint8_t { General, Broadcast, Unit } lanes = Lanes::General;
  void classify() {
    bool same = mask == 0xffffffffu, unit = same;
    for (uint32_t i = 0; i < 32 && (same || unit); ++i) {
      same = same && offs[i] == 0;
      unit = unit && offs[i] == i * bytes;
    }
    lanes = same ? Lanes::Broadcast : unit ? Lanes::Unit : Lanes::General;
  }
};

struct WorkerState {
  std::vector<PcCounters> per_pc;
  std::vector<SharedCostMemo> shared_memo;
  std::vector<KernelError> errors;
  uint64_t barriers = 0;
  uint64_t event_seq = 0;
  uint64_t event_tick = 0;       // instructions since the last sampled event (SimOptions::event_every)
  uint64_t faults = 0;
  WarpEvent event;               // the event being built for the current instruction
  BlockState block;              // reused block storage
  std::unique_ptr<BlockChecker> checker;
  cycle::BlockTrace* trace = nullptr;  // set while a block the cycle model times runs
  std::vector<PrintfLine> printf_lines;
  std::vector<GlobalRange> global_ranges;  // SimOptions::record_global_ranges
  uint64_t printf_bytes = 0, printf_dropped = 0;  // past LaunchResult::kPrintfLimitBytes
  double cpu_seconds = 0;        // this worker's CPU time running blocks (KernelMetrics::sim_cpu_seconds)
  uint64_t poll_changes = 0;     // polls that read something new (PreparedInstr::poll): a cooperative grid's progress
};

// [CONTEXT] ---------------------------------------------------------------------
struct WarpContext {
  const LaunchState* L = nullptr;
  WorkerState* W = nullptr;
  BlockState* B = nullptr;
  WarpState* warp = nullptr;
  BlockChecker* checker = nullptr;  // null unless SimOptions::check
  uint64_t* regs = nullptr;         // this warp's register file
  uint32_t mask = 0;                // lanes executing this instruction (active & guard)
  uint32_t pc = 0;
  PcCounters* pcm = nullptr;        // metrics of this pc
  WarpEvent* ev = nullptr;          // non-null when events are recorded
  uint64_t sink[32];                // destination of `_`
  cycle::BlockTrace* block_trace = nullptr;  // non-null for blocks the cycle model times
  cycle::WarpTrace* trace = nullptr;         // this warp's trace in block_trace
};

// Records a fault at the current instruction for `lane` and stops the block.
void raise_fault(WarpContext& c, const char* kind, const std::string& message, uint32_t lane);
// Records a finding at `pc` without stopping (checker reports use this).
void record_error(const LaunchState& L, WorkerState& W, const BlockState& B, const char* kind,
                  const std::string& message, uint32_t pc, uint32_t warp, uint32_t lane);

// [OPERANDS] --------------------------------------------------------------------
// Lane count of a mask. std::popcount becomes a libgcc call when the build
// does not target POPCNT; this SWAR form is a handful of ALU ops.
inline uint32_t lanes_in(uint32_t m) {
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

template <class F>
inline void each_lane(uint32_t mask, F&& f) {
  if (mask == 0xffffffffu) {
    for (uint32_t i = 0; i < kWarpSize; ++i) f(i);
  } else {
    for (uint32_t m = mask; m; m &= m - 1) f(uint32_t(std::countr_zero(m)));
  }
}

// Non-register sources (immediates, special registers, symbols) are
// materialised into `tmp`.
const uint64_t* src_slow(WarpContext& c, const ptx::Operand& o, uint64_t* tmp);

inline const uint64_t* src(WarpContext& c, const ptx::Operand& o, uint64_t* tmp) {
  if (o.kind == ptx::OperandKind::Reg && o.reg < ptx::kSinkReg) [[likely]]
    return c.regs + size_t(o.reg) * kWarpSize;
  return src_slow(c, o, tmp);
}

inline uint64_t* dst(WarpContext& c, const ptx::Operand& o) {
  if (o.kind == ptx::OperandKind::Reg && o.reg < ptx::kSinkReg) [[likely]]
    return c.regs + size_t(o.reg) * kWarpSize;
  return c.sink;
}

// Predicate source as a lane mask, honouring `!%p`. Immediate 0/1 allowed.
uint32_t pred_mask(WarpContext& c, const ptx::Operand& o);

// Values of 32 lanes as T: integers truncate, floats take the low bits.
template <class T>
inline T as(uint64_t v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(uint32_t(v));
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(v);
  else return T(v);
}
// T back to a register value: integers zero-extended from their width.
template <class T>
inline uint64_t bits(T v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<uint32_t>(v);
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<uint64_t>(v);
  else if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
  else return uint64_t(std::make_unsigned_t<T>(v));
}

// Register width in bits of an instruction type (b/u/s/f); 0 for Pred.
constexpr int type_bits(ptx::Type t) { return ptx::type_bytes(t) * 8; }

// [FAMILIES] --------------------------------------------------------------------
void exec_int(const ptx::Instr& in, WarpContext& c);      // integer and bit ops, carry chains
void exec_float(const ptx::Instr& in, WarpContext& c);    // f16/bf16/f32/f64 arithmetic and transcendental
void exec_compare(const ptx::Instr& in, WarpContext& c);  // setp, set, selp, slct
void exec_cvt(const ptx::Instr& in, WarpContext& c);      // cvt, mov (incl. pack/unpack)
void exec_memory(const ptx::Instr& in, WarpContext& c);   // ld, st, atom, red, cvta, cp.async, isspacep
void exec_warp(const ptx::Instr& in, WarpContext& c);     // bar, shfl, vote, match, redux, activemask
void exec_matrix(const ptx::Instr& in, WarpContext& c);   // wmma, mma, ldmatrix, stmatrix
void exec_wgmma(const ptx::Instr& in, WarpContext& c);    // wgmma.* (exec_matrix dispatches)
void exec_tma(const ptx::Instr& in, WarpContext& c);      // cp.async.bulk.tensor (exec_warp dispatches)
// A warp parked in wgmma.wait_group (WarpStatus::AtWarpgroup) may go on:
// every other live warp of its warpgroup has committed the groups it awaits.
bool wgmma_warpgroup_ready(const BlockState& B, const WarpState& w);
// complete_tx(bytes) on lane `lane`'s mbarrier at operand `bar`: what a bulk
// copy does when its bytes have landed (exec_mbarrier.cpp). False after a fault.
bool mbarrier_complete_tx(const ptx::Instr& in, WarpContext& c, const ptx::Operand& bar, uint32_t lane, uint32_t bytes);
void exec_mbarrier(const ptx::Instr& in, WarpContext& c); // mbarrier.*, cp.async.mbarrier.arrive (exec_warp dispatches)
// A warp parked in mbarrier.try_wait (WarpStatus::AtMbarrier): if every
// waiting lane's phase has completed, writes waitComplete = true and makes
// the warp Ready (telling `checker`, when checks are on). The block loop
// (launch.cpp) calls it between passes.
bool mbarrier_try_wake(const LaunchState& L, WorkerState& W, BlockState& B, WarpState& w, BlockChecker* checker,
                       cycle::BlockTrace* trace);
// "the mbarrier at shared offset 0x40 (phase 0: 3 of 4 arrivals still pending, ...)", for deadlock reports.
std::string mbarrier_describe_wait(const LaunchState& L, const BlockState& B, const WarpState& w);
void exec_device_call(const ptx::Instr& in, WarpContext& c);  // call vprintf / __assertfail (exec_call.cpp)

// Which family executes `in` (decided once per instruction at launch).
Family family_of(const ptx::Instr& in);

// The handler for `in`, resolved once per instruction at launch so that
// run_warp makes one indirect call per warp instruction: each family's
// resolver picks the most specific function for the opcode and type (no
// type switch left in the per-lane loop), falling back to exec_<family>.
// nullptr for control flow, no-ops and unsupported instructions, which
// run_warp handles itself.
ExecFn resolve_exec(const ptx::Instr& in);
ExecFn resolve_int(const ptx::Instr& in);
ExecFn resolve_float(const ptx::Instr& in);
ExecFn resolve_compare(const ptx::Instr& in);
ExecFn resolve_cvt(const ptx::Instr& in);
ExecFn resolve_memory(const ptx::Instr& in);

// Runs one warp until it parks at a barrier, exits, faults, or has issued
// `quantum` instructions (so spinning warps let the others run).
void run_warp(WarpContext& c, uint64_t quantum);
}  // namespace lab::sim
