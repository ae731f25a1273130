// lab/sim/cycle/hoist.h: global and shared loads issued as early as their
// operands allow, as the machine code would have them.
//
// The interpreter runs PTX, and the cycle model issues a warp's instructions
// in the PTX's order. The GPU runs SASS, and ptxas, which makes the SASS,
// "schedules loads early" (NVIDIA's njuffa on the NVIDIA developer forums,
// "PTX instructions are reordered", 2021: ptxas moved three ld.global ahead of
// the wmma.mma that separated them in the PTX, so that their latencies
// overlap). NVRTC's PTX often places each global load right before the
// instructions that use it: a tile loader's `ld.global.v4` is followed by its
// four `st.shared`, then the next `ld.global.v4` (siboehm's kernels 4-10,
// the lab's 03-07). Issued in that order, each load's latency is waited out
// before the next load leaves, eight latencies a tile instead of one.
//
// So before a warp's trace is timed, each global load moves up in it to just
// after the last instruction it must follow: one that produces its address or
// guard, reads or writes what it writes, stores to global or local memory
// (it may alias), an earlier global load (requests keep their order), or the
// start of its basic block (a branch target, or the instruction after a
// branch, a jump, or one no memory access crosses: bar.sync, fences,
// atomics, calls, exit; decode.h). The integer arithmetic that computes its
// address moves up with it, and shared-memory accesses are crossed. Checked
// against the SASS ptxas 13.0 makes (nvdisasm): siboehm's warptiling kernel
// for sm_86 issues its tile loads as LDG.E.128 in groups before their STS;
// the lab's 06/07 for sm_90, whose every tile load sits in its own
// bounds-checked branch, keep each LDG.E.128 before its own STS, in turn, as
// here.
// Shared loads move up too, to just after the last instruction they depend
// on, crossing only what touches no shared memory (arithmetic, global loads
// and stores) and keeping their order among the warp's shared accesses: ptxas
// issues an iteration's LDS ahead of its FFMAs where NVRTC's PTX has each
// load just before its first use (siboehm's kernel 7, sm_90a SASS); and
// only while the shared-load results held ahead of their use stay within
// kSharedLoadRegsAhead registers (hoist.cpp), as ptxas's register
// allocation bounds them.
// Inside a loop ptxas unrolls (unroll.h), the iterations of one unrolled
// group are one region, and ptxas gives each iteration registers of its
// own: a later iteration's load and its address arithmetic cross an earlier
// iteration's instructions that only read or write the same PTX registers
// (TraceInst::renamed), so lesson 10's column sum has 16 loads in flight,
// as its SASS does, not the 4 of one PTX iteration.
// An instruction that only writes registers the load overwrites before
// anything reads them (the `v = 0` before a load into a register NVRTC's PTX
// reuses) is crossed too: its result is dead, so it issues without waiting
// for its operands and without writing (TraceInst::dead).
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "lab/sim/cycle/decode.h"
#include "lab/sim/cycle/trace.h"

namespace lab::sim::cycle {

// The orders hoist_loads worked out for one kernel, by the trace's shape:
// per instruction its pc, whether any lane ran it, whether it is folded, and
// what memory it touches (all the order depends on). The warps of a launch
// mostly run one instruction stream, so a GEMM's thousands of traces share a
// handful of orders: each is worked out once, and a trace of the same shape
// takes it (compared in full, not by hash alone). Safe to share between
// threads.
class HoistMemo {
 public:
  struct Order {
    std::vector<uint64_t> shape;   // per instruction (hoist.cpp shape_of)
    std::vector<uint32_t> order;   // original indices, in the new order
    std::vector<uint32_t> dead;    // instructions whose results a moved load overwrites
    std::vector<uint32_t> renamed; // instructions moved above an earlier unrolled iteration (TraceInst::renamed)
    uint32_t moved = 0;
  };
  // The order for this shape, or null (the result is kept while the memo lives).
  const Order* find(uint64_t hash, const std::vector<uint64_t>& shape);
  void add(uint64_t hash, Order order);

 private:
  // Bounds the memory on a launch whose warps all differ (a data-dependent
  // loop): past this many instructions' worth of orders, no more are kept.
  static constexpr size_t kMaxInsts = size_t(1) << 24;
  std::mutex m_;
  std::unordered_multimap<uint64_t, Order> orders_;
  size_t insts_ = 0;
};

// Reorders `w` in place (instructions and their requests); returns the loads
// moved. With `memo`, an order worked out before for a trace of the same
// shape is reused (the result is the same either way).
uint32_t hoist_loads(const DecodedKernel& dk, WarpTrace& w, HoistMemo* memo = nullptr);

}  // namespace lab::sim::cycle
