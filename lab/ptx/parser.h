// lab/ptx/parser.h: PTX text -> ptx::Module (the decoded form in module.h).
//
// The parser does every string operation once: registers become dense slots,
// symbols become addresses/offsets, labels become instruction indices, `.loc`
// becomes a line table. Anything it cannot decode faithfully is a ParseError
// naming the PTX line, the kernel and the opcode; nothing is skipped silently.
//
// Operand layouts beyond those module.h fixes (destinations first, PTX order):
//   ALU (add, mad, fma, bfe, bfi, prmt, lop3, shf, selp, slct, ...): PTX order;
//        lop3's immLut is ops[4] (Imm).
//   set  : same slots as setp: ops[0] = d, ops[1] = None, ops[2] = a, ops[3] = b,
//          ops[4] = c (bool-op predicate) or None. type = dtype, type2 = stype.
//   setp : type = type2 = the compare type.
//   cvt  : type = destination type, type2 = source type; ops[2] = second
//          source for the two-input packing forms (cvt.rn.f16x2.f32 d, a, b).
//   mov  : ops[1] may be Reg, Imm, Special, Symbol or Vec (packing); ops[0]
//          may be Vec (unpacking). Immediates inside a vector (`{0,%rs1}`)
//          are materialised by an extra `mov` into a hidden slot just before.
//   vote : ops[0] = d, ops[1] = a (may be negated), ops[2] = membermask
//   match: ops[0] = d, ops[1] = p (of `d|p`) or None, ops[2] = a, ops[3] = membermask;
//          vote = Any or All.
//   redux: ops[0] = d, ops[1] = a, ops[2] = membermask
//   activemask: ops[0] = d.   nanosleep: ops[0] = t.
//   bar.sync / barrier.sync / bar.arrive: ops[0] = barrier id, ops[1] = thread
//          count or None.
//   bar.red: ops[0] = d, ops[1] = barrier id, ops[2] = thread count or None,
//          ops[3] = c (may be negated); redux = Add (.popc), And or Or.
//   cp.async.{ca,cg}: ops[0] = Addr (shared dst), ops[1] = Addr (global src),
//          ops[2] = Imm cp-size, ops[3] = src-size (Reg/Imm) or None.
//   cp.async.wait_group: ops[0] = Imm N.
//   wmma.load.{a,b,c}: ops[0] = Vec, ops[1] = Addr, ops[2] = stride or None;
//          layout_a = layout_b = the one layout. type = element type
//          (type2 too for a/b).
//   wmma.store.d: ops[0] = Addr, ops[1] = Vec, ops[2] = stride or None.
//   wmma.mma / mma: ops d, a, b, c as Vec; type = D type, type2 = A/B type,
//          type3 = C type.
//   ldmatrix: ops[0] = Vec, ops[1] = Addr; vec = .x1/.x2/.x4; type = .b16.
//   stmatrix: ops[0] = Addr, ops[1] = Vec.
//   prefetch: ops[0] = Addr.   isspacep: ops[0] = p, ops[1] = a.
//   testp: ops[0] = p, ops[1] = a; Instr::mode = TestpMode.
//   prmt : Instr::mode = PrmtMode (None for the default byte selector form).
//   membar/fence: no operands (scope is ignored: the simulator is sequentially
//          consistent at instruction granularity).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "lab/ptx/module.h"

namespace lab::ptx {

// A PTX text the lab cannot decode. `what()` is the full message:
//   kernel.ptx:123: in kernel 'foo': unsupported instruction 'tex.2d.v4.f32' (...)
struct ParseError : std::runtime_error {
  std::string origin;     // the name given to parse()
  uint32_t ptx_line = 0;  // 1-based line in the PTX text, 0 if not known
  std::string kernel;     // enclosing kernel, "" at module scope
  std::string opcode;     // the full opcode text, "" for non-instructions
  ParseError(const std::string& message, std::string origin_, uint32_t line, std::string kernel_,
             std::string opcode_)
      : std::runtime_error(message),
        origin(std::move(origin_)),
        ptx_line(line),
        kernel(std::move(kernel_)),
        opcode(std::move(opcode_)) {}
};

// Parses a whole PTX module. `origin_name` names the text in messages
// (usually the .cu file it came from, or "<file>.ptx").
Module parse(std::string_view ptx_text, std::string_view origin_name);

}  // namespace lab::ptx
