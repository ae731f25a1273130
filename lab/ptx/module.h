// lab/ptx/module.h: the decoded form of a PTX module.
//
// This is the contract between the parser (PTX text -> Module) and the
// simulator (Module -> execution). The parser does all string work once; the
// interpreter only switches over `Op` and reads resolved register slots.
//
// Index
//   [TYPES]     scalar types and their sizes
//   [OPCODES]   the opcode enum: generated from lab/ptx/opcodes.def
//   [MODIFIERS] rounding, comparison, memory space, ... as small enums
//   [OPERANDS]  Operand: register slot, immediate, address, vector, special register
//   [INSTR]     Instr: one decoded instruction
//   [KERNEL]    Kernel: params, register file layout, shared/local decls, code, line table
//   [MODULE]    Module: kernels + global variables + source files
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lab/ptx/opcodes.h"

namespace lab::ptx {

// Generic address map shared by parser and simulator. Shared-space addresses
// (ld.shared) are byte offsets from 0 in the block's shared window; a generic
// pointer to shared memory is kSharedWindow + offset (cvta.shared adds it).
// Local likewise. Global buffers and module .global variables live in one
// arena starting at kGlobalBase; the parser places module globals at
// kGlobalBase + VarDecl::offset.
constexpr uint64_t kSharedWindow = 0x0000'0010'0000'0000ull;
constexpr uint64_t kLocalWindow = 0x0000'0020'0000'0000ull;
// A generic pointer to a kernel parameter (cvta.param of a __grid_constant__
// parameter's address, e.g. a CUtensorMap): kParamWindow + its param offset.
constexpr uint64_t kParamWindow = 0x0000'0030'0000'0000ull;
constexpr uint64_t kWindowSize = 0x0000'0001'0000'0000ull;   // 4 GiB each
constexpr uint64_t kGlobalBase = 0x0000'0100'0000'0000ull;

// [TYPES] --------------------------------------------------------------------
// PTX ISA 9.x, section 5.2 "Types". b/u/s/f are distinct because the
// interpreter's semantics differ (sign extension, float vs bits).
enum class Type : uint8_t {
  None,
  Pred,
  B8, B16, B32, B64, B128,
  U8, U16, U32, U64,
  S8, S16, S32, S64,
  F16, F16x2, BF16, BF16x2, TF32, F32, F64,
  E4M3, E5M2,  // fp8, only for cvt; rarely used by lessons
};

constexpr int type_bytes(Type t) {
  switch (t) {
    case Type::B8: case Type::U8: case Type::S8: case Type::E4M3: case Type::E5M2: return 1;
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: case Type::BF16: return 2;
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: case Type::F16x2:
    case Type::BF16x2: case Type::TF32: return 4;
    case Type::B64: case Type::U64: case Type::S64: case Type::F64: return 8;
    case Type::B128: return 16;
    default: return 0;
  }
}
constexpr bool type_is_signed(Type t) {
  return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64;
}
constexpr bool type_is_float(Type t) {
  return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2 ||
         t == Type::TF32 || t == Type::F32 || t == Type::F64;
}
const char* type_name(Type t);  // ".f32" style, for messages
Type type_from_name(std::string_view w);  // "f32" (no dot) -> F32; None if not a type

// [OPCODES] ------------------------------------------------------------------
// enum class Op, op_info(op) and op_name(op) come from the opcode table
// (lab/ptx/opcodes.def via lab/ptx/opcodes.h).

// [MODIFIERS] ----------------------------------------------------------------
enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const, SharedCluster };

enum class Round : uint8_t {
  None,
  Rn, Rz, Rm, Rp,           // float rounding (.rn .rz .rm .rp)
  Rni, Rzi, Rmi, Rpi,       // float->int / float->float integral rounding
  Rna,                      // to nearest, ties away (cvt to tf32)
};

enum class Cmp : uint8_t {   // setp / set / slct comparisons (9.7.6.1)
  None, Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs,
  Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan,
};

enum class BoolOp : uint8_t { None, And, Or, Xor };  // setp ... .and/.or/.xor

// Multiply width: mul.lo / mul.hi / mul.wide (9.7.1.5)
enum class MulMode : uint8_t { None, Lo, Hi, Wide };

enum class AtomOp : uint8_t { None, Add, Min, Max, Exch, Cas, And, Or, Xor, Inc, Dec };

enum class ShflMode : uint8_t { None, Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { None, All, Any, Uni, Ballot };
enum class ReduxOp : uint8_t { None, Add, Min, Max, And, Or, Xor };
// Instr::mode for the families whose variant is neither a type nor a rounding.
enum class PrmtMode : uint8_t { None, F4e, B4e, Rc8, Ecl, Ecr, Rc16 };  // prmt (9.7.8.7)
// mbarrier variants (PTX ISA 9.7.13.15), bits of Instr::mode on the Mbarrier* ops.
enum MbarrierMode : uint8_t {
  kMbarDrop = 1 << 0,        // mbarrier.arrive_drop: also lowers the expected count
  kMbarNoComplete = 1 << 1,  // .noComplete: the arrive must not complete the phase
  kMbarExpectTx = 1 << 2,    // mbarrier.arrive.expect_tx: raise tx-count, then arrive
  kMbarParity = 1 << 3,      // test_wait/try_wait .parity: operand is a phase parity, not a state
  kMbarNoInc = 1 << 4,       // cp.async.mbarrier.arrive.noinc
};
// wgmma.mma_async's imm-scale-a / imm-scale-b (PTX ISA 9.7.15.5.2), bits of Instr::mode.
enum WgmmaMode : uint8_t {
  kWgmmaNegA = 1 << 0,  // imm-scale-a = -1: A negated
  kWgmmaNegB = 1 << 1,  // imm-scale-b = -1: B negated
};
enum class TestpMode : uint8_t { None, Finite, Infinite, Number, NotANumber, Normal, Subnormal };

// Flag bits on an instruction (Instr::flags)
enum : uint32_t {
  kFlagFtz = 1 << 0,       // .ftz
  kFlagSat = 1 << 1,       // .sat
  kFlagApprox = 1 << 2,    // .approx
  kFlagFull = 1 << 3,      // .full
  kFlagNc = 1 << 4,        // ld.global.nc: read-only path
  kFlagUni = 1 << 5,       // bra.uni: the branch is known uniform
  kFlagShiftClamp = 1 << 6,// shf.clamp / bmsk.clamp (else .wrap)
  kFlagShiftLeft = 1 << 7, // shf.l (else .r)
  kFlagTrans = 1 << 8,     // ldmatrix .trans
  kFlagVolatile = 1 << 9,  // ld/st.volatile
  kFlagAligned = 1 << 10,  // bar.sync.aligned / wmma .aligned
  kFlagRelu = 1 << 11,     // cvt .relu
  kFlagCarryOut = 1 << 12, // .cc
  kFlagNoFtzOnly = 1 << 13,
  kFlagNaN = 1 << 14,      // min/max .NaN: a NaN input gives NaN
  // Memory-order semantics of ld/st/atom/red (PTX ISA 8.4 "Memory
  // operations"): a strong operation (.volatile, .relaxed, .acquire,
  // .release, .acq_rel, .sc; atomics are strong too) is morally strong with
  // another strong one and does not race with it; .acquire / .release (and
  // .acq_rel, .sc) order the thread's other accesses (the checks, sanitize.cpp).
  kFlagStrong = 1 << 15,
  kFlagAcquire = 1 << 16,
  kFlagRelease = 1 << 17,
  // ld.global.cg: "cache at global level (cache in L2 and below, not L1)"
  // (PTX ISA 9.7.9.8, cache operators): the load bypasses the L1.
  kFlagCacheGlobal = 1 << 18,
};

// Special registers (PTX ISA 10): read-only per-lane values.
enum class Special : uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ,
  CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  Laneid, Warpid, Nwarpid, Smid, Nsmid, Gridid,
  LanemaskEq, LanemaskLe, LanemaskLt, LanemaskGe, LanemaskGt,
  Clock, Clock64, Globaltimer, GlobaltimerLo, GlobaltimerHi,
  DynamicSmemSize, TotalSmemSize,
  ReservedSmemBegin, ReservedSmemEnd, ReservedSmemCap, ReservedSmem0, ReservedSmem1,
  // %envreg0..31: registers the driver fills per launch (PTX ISA 10.31);
  // cooperative groups read the grid barrier's address from 1 (high) and 2 (low).
  Envreg0, Envreg1, Envreg2, EnvregLast = Envreg0 + 31,
  Count_
};

// Instr::mode of an Op::Call: the CUDA device-runtime function it calls
// (every other call is inlined by the parser).
enum class DeviceCall : uint8_t { None, Vprintf, Assertfail };
// Instr::mode of an Op::Exit decoded from `trap` (PTX ISA 9.7.19.1: aborts
// the kernel; __trap(), and cooperative groups' abort): it ends the lanes as
// exit does for control flow, and the interpreter faults the launch there.
constexpr uint8_t kExitTrap = 1;

// [OPERANDS] -----------------------------------------------------------------
// Every register of a kernel gets one 64-bit slot per lane (predicates too:
// 0 or 1). Slot numbers are dense per kernel: `Kernel::num_slots`.
constexpr uint32_t kNoReg = 0xffffffffu;
constexpr uint32_t kSinkReg = 0xfffffffeu;  // the `_` sink operand

enum class OperandKind : uint8_t {
  None,
  Reg,       // reg = slot
  Imm,       // imm = bit pattern (ints sign-extended; f32 as float bits, f64 as double bits)
  Special,   // reg = (uint32)Special
  Addr,      // [reg + imm]; reg may be kNoReg for an absolute address. The
             // parser folds symbols into imm: shared variables become their
             // offset in the block's shared window, params their byte offset
             // in the param buffer, globals their address in the global segment.
  Vec,       // {r0, r1, ...}: vec_len slots listed at Kernel::vec_slots[reg]
  Label,     // imm = target instruction index (for bra); also see Instr::target
  Symbol,    // address-of a variable, as a value (mov %r, sym): imm = address
             // in `space` (shared offset or global address), reg unused
};

struct Operand {
  OperandKind kind = OperandKind::None;
  uint8_t vec_len = 0;       // for Vec
  Space space = Space::Generic;  // for Symbol: which window imm is in
  bool negate = false;       // `!%p` as a source predicate (setp/selp operands)
  uint32_t reg = kNoReg;
  int64_t imm = 0;
};

// [INSTR] --------------------------------------------------------------------
// Operand order follows the PTX text: destinations first, then sources.
//   ld   : ops[0] = dst (Reg or Vec), ops[1] = Addr
//   st   : ops[0] = Addr, ops[1] = src (Reg, Imm or Vec)
//   setp : ops[0] = p, ops[1] = q (second dest of `p|q`, or None), ops[2] = a,
//          ops[3] = b, ops[4] = c (bool-op predicate, or None)
//   shfl : ops[0] = d, ops[1] = p (or None), ops[2] = a, ops[3] = b, ops[4] = c, ops[5] = membermask
//   atom : ops[0] = d, ops[1] = Addr, ops[2] = b, ops[3] = c (cas)
//   red  : ops[0] = Addr, ops[1] = b
//   bra  : ops[0] = Label; Instr::target = instruction index
//   mma/wmma: each fragment is one Vec operand, in PTX order (d, a, b, c)
constexpr int kMaxOperands = 6;

struct Instr {
  Op op = Op::Invalid;
  Type type = Type::None;       // the instruction's main type (.s32, .f32, ...)
  Type type2 = Type::None;      // second type: cvt's source, mma's A/B type, setp's compare type
  Type type3 = Type::None;      // third type where PTX has one (mma C type, prmt mode ...)
  Space space = Space::Generic; // ld/st/atom/red/cvta/cp.async
  Round round = Round::None;
  Cmp cmp = Cmp::None;
  BoolOp bool_op = BoolOp::None;
  MulMode mul = MulMode::None;
  AtomOp atom = AtomOp::None;
  ShflMode shfl = ShflMode::None;
  VoteMode vote = VoteMode::None;
  ReduxOp redux = ReduxOp::None;
  bool cvta_to = false;         // cvta.to.<space> (else cvta.<space>)
  uint8_t vec = 1;              // .v2/.v4 on ld/st, ldmatrix .x1/.x2/.x4 count
  uint8_t mode = 0;             // PrmtMode for prmt, TestpMode for testp
  uint8_t num_ops = 0;
  uint32_t flags = 0;           // kFlag* bits
  uint32_t guard = kNoReg;      // predicate slot of `@%p`, or kNoReg
  bool guard_negated = false;   // `@!%p`
  // Shape for mma/wmma: m, n, k (e.g. 16, 8, 16); layouts 0=row 1=col for A and B.
  // (wgmma: n up to 256, so n is 16 bits wide)
  uint8_t shape_m = 0;
  uint16_t shape_n = 0;
  uint8_t shape_k = 0;
  uint8_t layout_a = 0, layout_b = 0;
  int32_t target = -1;          // branch target instruction index
  uint32_t loc = 0;             // index into Kernel::locs (0 = no location)
  uint32_t ptx_line = 0;        // line in the PTX text, for messages
  Operand ops[kMaxOperands];
};

// [KERNEL] -------------------------------------------------------------------
struct Param {
  std::string name;
  Type type = Type::None;   // .u64 for pointers (PTX does not distinguish)
  uint32_t offset = 0;      // byte offset in the param buffer
  uint32_t size = 0;        // bytes (for .b8 arrays: the array size)
  uint32_t align = 0;
  bool is_pointer_hint = false;  // .ptr attribute or name/usage suggests a pointer
};

struct RegDecl {             // one `.reg .f32 %f<68>;` line
  std::string prefix;        // "%f"
  Type type = Type::None;
  uint32_t count = 0;        // 68 (1 for a single register)
  uint32_t first_slot = 0;   // slot of %f0
};

struct VarDecl {             // a .shared / .local / .global / .const variable
  std::string name;
  Space space = Space::Shared;
  uint32_t align = 1;
  uint64_t size = 0;         // bytes; 0 for `extern .shared` (dynamic)
  uint64_t offset = 0;       // in its window (shared offset, local frame offset, global address)
  bool is_extern = false;
  std::vector<uint8_t> init; // initialiser bytes for .global/.const, empty = zero
};

// Source location from `.loc file line col`. When a `.loc` says
// `inlined_at F L C`, or the code is a called function the parser inlined,
// the location recorded is the outermost call site in the student's file,
// since that is the line the student wrote; the statement's own line inside
// the function is kept beside it (inner_*), so a report can name both.
struct SourceLoc {
  uint32_t file = 0;   // index into Module::files (0 = unknown)
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t inner_file = 0, inner_line = 0;  // inside an inlined function: its own line; 0 = not inlined
  bool same(const SourceLoc& o) const {
    return file == o.file && line == o.line && column == o.column && inner_file == o.inner_file &&
           inner_line == o.inner_line;
  }
};

struct Kernel {
  std::string name;
  std::vector<Param> params;
  uint32_t param_bytes = 0;
  std::vector<RegDecl> regs;
  uint32_t num_slots = 0;               // register slots per lane
  std::vector<uint32_t> vec_slots;      // pool for Vec operands
  std::vector<VarDecl> shared_vars;     // static + extern shared, offsets in the shared window
  uint32_t static_shared_bytes = 0;     // sum of static .shared, aligned
  uint32_t dynamic_shared_offset = 0;   // where `extern .shared` arrays start
  std::vector<VarDecl> local_vars;      // .local frame
  uint32_t local_bytes = 0;
  std::vector<Instr> code;
  // Instructions a `.pragma "nounroll";` stands before (PTX ISA 11.3,
  // "Pragma Strings": the loop whose header block it opens is not to be
  // unrolled; ptxas honours it). Ascending.
  std::vector<uint32_t> nounroll;
  // `.pragma "used_bytes_mask M";` before a load (PTX ISA, "Pragma Strings"):
  // bit i of M set when byte i of what the load reads is used. NVVM writes
  // it where it narrowed a vector load's use (LLVM's NVPTX lowering of a
  // masked load, convertMLOADToLoadWithUsedBytesMask). (instruction, M),
  // ascending.
  std::vector<std::pair<uint32_t, uint32_t>> used_bytes_masks;
  std::vector<std::string> labels;      // label name per instruction index, "" if none (messages)
  std::vector<SourceLoc> locs;          // locs[0] is the empty location
  uint32_t max_ntid[3] = {0, 0, 0};     // .maxntid, 0 = unset
  uint32_t reqntid[3] = {0, 0, 0};
  uint32_t min_ctas_per_sm = 0;         // .minnctapersm
  uint32_t ptx_line = 0;                // line of `.entry`
};

// [MODULE] -------------------------------------------------------------------
struct Module {
  uint32_t version_major = 0, version_minor = 0;  // .version
  std::string target;                              // .target, e.g. "sm_80"
  uint32_t address_size = 64;
  std::vector<std::string> files;                  // files[i] from `.file i "..."`, files[0] = ""
  std::vector<VarDecl> globals;                    // module-scope .global/.const variables
  uint64_t global_segment_bytes = 0;               // bytes the globals need
  std::vector<Kernel> kernels;

  const Kernel* find_kernel(const std::string& name) const {
    for (const auto& k : kernels)
      if (k.name == name) return &k;
    return nullptr;
  }
};

}  // namespace lab::ptx
