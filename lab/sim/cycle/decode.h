// lab/sim/cycle/decode.h: what the cycle model needs to know about each
// instruction of a kernel, decided once per launch: which unit executes it,
// its result latency and which register slots it reads and writes (the
// scoreboard's inputs), from the decoded ptx::Instr.
#pragma once

#include <cstdint>
#include <vector>

#include "lab/ptx/module.h"
#include "lab/sim/cycle/params.h"
#include "lab/sim/cycle/stall.h"

namespace lab::sim::cycle {

enum class Unit : uint8_t { Fp32, Int, Fp64, Sfu, Tensor, Memory, Control, Barrier, AsyncWait };

// wgmma's asynchronous groups (PTX ISA 9.7.15.6-7): an issue joins the open
// group, commit_group closes it, wait_group N waits until at most N groups
// are pending.
enum class WgmmaStep : uint8_t { None, Issue, Commit, Wait };

struct DecodedInstr {
  Unit unit = Unit::Int;
  Stall dep = Stall::Wait;   // what a consumer of its result waits on (Wait / ShortScoreboard / LongScoreboard)
  uint32_t latency = 4;      // result latency when it is not a memory access
  double hold = 1;           // cycles it holds its pipe in the sub-partition
  uint32_t first = 0;        // slots in DecodedKernel::slots: [first, first + reads) read, then `writes` written
  uint16_t reads = 0, writes = 0;
  bool async_copy = false;   // cp.async: completion tracked per warp, awaited by cp.async.wait_*
  WgmmaStep wgmma = WgmmaStep::None;
  uint8_t wait_groups = 0;   // wgmma.wait_group's N
  double smem_bytes = 0;     // wgmma: the shared-memory operand bytes this warp's share reads
  // For the load scheduling of hoist.h: a plain (non-volatile) ld/ldu, which
  // may move up if its trace request is global; an instruction no memory
  // access may be moved above (barrier, fence, atomic, call, exit, a branch
  // to an earlier instruction: a loop's back edge).
  bool plain_load = false;
  bool fence = false;
  bool block_start = false;   // leads a basic block (ptx/cfg.h: a branch target, or after bra/ret/exit)
  // ptxas's if-conversion, which the load scheduling of hoist.h follows: a
  // conditional forward `bra` over a short straight-line body (at most
  // kIfConvertMaxBody instructions, no branch, barrier, fence, call or exit,
  // entered only from the branch), or over one side of an if-else (`@p bra
  // E; then; bra J; E: else; J:`, and NVRTC's `@p bra T; bra E; T: then;
  // bra J; E: else; J:`), becomes predicated instructions in the SASS, so
  // the sides and what follows are one scheduling region with what precedes
  // the branch. `if_converted_to` is the end of that range (the join) on each
  // of its branches (-1 for every other instruction); `region_start` is
  // block_start less the leaders that only the converted branches made.
  int32_t if_converted_to = -1;
  bool region_start = false;
  // Such a branch whose body ptxas predicates (not a branch to ret/exit,
  // which stays a `@P0 EXIT`): the SASS issues the body's instructions
  // whichever way the branch goes (unroll.h, apply_sass_shape).
  bool predicated = false;
  // ptxas's vectorisation of shared loads, which the model times as the SASS
  // has it: scalar 4-byte ld.shared in one basic block on the same address
  // register at offsets 16w, +4, +8, +12 (or 8w, +4) become one LDS.128 (or
  // LDS.64); 2-byte ones likewise, down to a pair in one 4-byte LDS. `merge`
  // (the merged width in bytes: 4, 8 or 16) marks the first of them in
  // program order, which issues the one request at the widened cost
  // (TraceMem::wide4/wide8/wide16);
  // the others are `merged_away`: no issue slot and no request, their
  // result ready with the first's. docs/timing-model.md says where this
  // differs from ptxas (which must also prove the address aligned).
  uint8_t merge = 0;
  bool merged_away = false;
  // An instruction ptxas folds into another (mark_fused): no issue slot, its
  // result ready when its operands are.
  bool fused = false;
  // An integer add, subtract, move or shift by a constant, which ptxas may
  // issue as IMAD.IADD / IMAD.MOV / IMAD.SHL on the FMA pipe to keep the
  // ALU pipe free: it goes to whichever of the two frees first.
  bool either_pipe = false;
  // An integer multiply or multiply-add: IMAD, on the FMA pipe that takes
  // integer work (engine.cpp choose_pipe).
  bool imad = false;
  // The SASS instructions it issues as: more than one for a sequence ptxas
  // expands it into (integer div/rem by a register). Each takes one of the
  // sub-partition's issue slots (engine.cpp issue_free).
  uint16_t issue_slots = 1;
  // A wmma load or store: ptxas issues one LDG/STG/LDS/STS per run of
  // contiguous bytes, the requests the interpreter makes for it
  // (exec_matrix.cpp exec_wmma_memory), so its issue slots are counted when
  // it runs (engine.cpp): one per request; one in all for a 16-bit A or B
  // fragment from shared memory where LDSM loads it (`ldsm`); and `movm`
  // more (MOVM.16.MT88, a transpose per register) for a 16-bit A in column
  // or B in row order from global memory.
  bool wmma_memory = false, ldsm = false;
  uint8_t movm = 0;
  // A load, store, atomic or async copy the LSU takes (any space but param
  // and const, which the SASS reads as constant-bank operands): ptxas spaces
  // a warp's such instructions CycleParams::lsu_issue_interval cycles apart.
  bool lsu = false;
  // A floating-point atomic add (atom/red .add.f16/.f32/.f64): the L2
  // applies same-address ones at CycleParams::float_adds_per_cycle.
  bool float_add = false;
  // A branch (bra): ptxas's stall count keeps the warp from issuing again
  // for CycleParams::branch_stall cycles, whichever way it goes.
  bool branch = false;
  // A global or local load's first consumer: the first instruction after it
  // in program order that reads or overwrites its destination, up to a back
  // edge (kNoConsumer: none). ptxas gives the loads one first consumer waits
  // for one dependency barrier (engine.cpp LoadBarriers).
  uint32_t first_use = kNoConsumer;
  static constexpr uint32_t kNoConsumer = 0xffffffffu;
};

// The longest body (PTX instructions, each side of an if-else) the model
// lets ptxas predicate. The SASS of the lab's GEMMs for sm_90
// (docs/fidelity/h200/gemm-sm90.sass.xz) predicates the bounds-checked tile
// loads of 03 and 05, bodies of 1-7 PTX instructions (`@!P0 LDG.E`), and
// issues a tile's loads together before its stores; 04 has 8-instruction
// bodies, and lesson 9's sum_interleaved a 9-instruction one that ptxas 13.0
// predicates for sm_90 (`@!P1 LDS`, `@!P1 FADD`, `@!P1 STS`). ptxas's own
// threshold is not published; 12 covers what was seen with some margin.
constexpr uint32_t kIfConvertMaxBody = 12;

// A loop ptxas unrolls (unroll.h).
struct UnrolledLoop {
  uint32_t head = 0, back = 0;  // the body [head, back]; `back` is the back edge
  uint32_t trip = 0;            // iterations; with `runtime`, the iterations of one unrolled group
  // A loop whose trip count is known only at run time, which ptxas unrolls
  // by `trip` (unroll.h kRuntimeUnroll): its iterations run in groups of
  // `trip`, the last group of a run as long as the iterations left.
  bool runtime = false;
  // Per iteration, per instruction of the body: the TraceInst flags.
  struct Flags {
    uint8_t merge = 0;  // TraceInst::merge: 0, 1 (LDS.64), 2 (LDS.128), 3 (a 4-byte LDS of two halves)
    bool merged_away = false, folded = false;
  };
  std::vector<Flags> flags;  // [iteration * body + (pc - head)]
  size_t body() const { return back - head + 1; }
};

// TraceInst::merge (2 bits) from a merged width in bytes (DecodedInstr::merge),
// and back: 1 LDS.64, 2 LDS.128, 3 a 4-byte LDS of two halves.
constexpr uint8_t merge_code(uint8_t width) { return width == 16 ? 2 : width == 8 ? 1 : width == 4 ? 3 : 0; }
constexpr uint8_t merge_width(uint8_t code) { return code == 2 ? 16 : code == 1 ? 8 : code == 3 ? 4 : 0; }

struct DecodedKernel {
  std::vector<DecodedInstr> code;
  // Per register slot, the low bits known zero in every value the kernel
  // gives it (known_zero_low_bits): what ptxas can prove of an address's
  // alignment before it merges loads on it.
  std::vector<uint8_t> zero_low_bits;
  std::vector<uint32_t> slots;  // dense scoreboard indices, not PTX slots
  uint32_t num_slots = 0;       // scoreboard entries per warp
  std::vector<UnrolledLoop> unrolled;  // unroll.h
  // Per instruction: the slots it reads and writes, each slot one bit of 64
  // (slot % 64). Disjoint masks prove two instructions independent, the quick
  // test before the exact one (hoist.cpp scans thousands of pairs per warp).
  std::vector<uint64_t> read_bits, write_bits;
};

DecodedKernel decode_kernel(const ptx::Kernel& kernel, const CycleParams& p);

// The shared loads the model issues, per static instruction as the SASS
// would have them (a loop ptxas unrolls, once per iteration): each one's
// source location (Kernel::locs) and bytes per lane as timed, a merged
// group's first at 16 or 8 and its other members not at all. What
// `gpulab validate --sass` holds against ptxas's LDS widths.
struct IssuedSharedLoad {
  uint32_t loc = 0;
  uint32_t bytes = 0;
};
std::vector<IssuedSharedLoad> issued_shared_loads(const ptx::Kernel& kernel, const DecodedKernel& dk);

// How many leading operands of `in` are destinations (PTX lists them first).
int destinations(const ptx::Instr& in);

// Known-zero low bits of every register over the whole kernel: each
// register's figure is the least over every instruction that writes it, so
// a loop counter that starts at 0 and steps by 16 keeps 4 zero bits, and an
// address built from a shared variable's offset, a shifted thread index and
// such a counter keeps the least of theirs. Registers nothing writes, loaded
// values and results of any other operation have none known. With `loop`
// (one ptxas unrolls completely: its trip count is fixed), a step
// `r = r + c` inside it counts as the whole loop's step, trip x c: what the
// unrolled code sees on entry to each pass of the loop (04's A-tile pointer
// steps by 8 bytes per iteration, 32 per loop, so it enters 32-byte aligned).
std::vector<uint8_t> known_zero_low_bits(const ptx::Kernel& kernel, const UnrolledLoop* loop = nullptr);

// Sets each global/local load's first_use (decode_kernel runs it).
void find_first_uses(const ptx::Kernel& kernel, DecodedKernel& dk);

// Marks the branches ptxas would predicate (if_converted_to, region_start);
// decode_kernel runs it.
void mark_if_conversions(const ptx::Kernel& kernel, DecodedKernel& dk);

// What ptxas folds away (decode_kernel runs it), each read off the sm_90
// SASS of the lab's kernels: a branch whose body it predicates; an
// and.pred/or.pred of a setp's result only it reads (ISETP's combine); an add
// of a product only it reads, mul.wide + add.s64 (IMAD.WIDE), mul.lo + add
// (IMAD), shl.b32 by a constant + add.s32 (LEA); cvta.to.global (generic
// and global addresses are the same). Sets DecodedInstr::fused.
void mark_fused(const ptx::Kernel& kernel, DecodedKernel& dk);

// The merge pass alone (decode_kernel runs it): sets merge / merged_away.
void merge_shared_loads(const ptx::Kernel& kernel, DecodedKernel& dk);

// The merge rules over any sequence of the kernel's instructions in the
// order they run (the kernel's own order, or a loop's body repeated as ptxas
// unrolls it: unroll.h). `starts`: positions that begin a basic block (the
// groups close and register values are forgotten); `open_branch`: branches
// that close no group (an unrolled loop's back edges).
struct MergeFlag {
  uint8_t merge = 0;  // 4, 8 or 16: the first of a merged LDS (its width in bytes)
  bool away = false;  // merged into the first
};
// `zero_low_bits`: what known_zero_low_bits proves of the registers live
// into the sequence.
std::vector<MergeFlag> merge_sequence(const ptx::Kernel& kernel, const DecodedKernel& dk, const std::vector<uint32_t>& seq,
                                      const std::vector<uint8_t>& starts, const std::vector<uint8_t>& open_branch,
                                      const std::vector<uint8_t>& zero_low_bits);

}  // namespace lab::sim::cycle
