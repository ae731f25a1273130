// lab/ptx/provenance.h: which root (an array, a kernel parameter) the
// address of each memory instruction derives from, found from the PTX alone.
//
// A register's value "derives from" root R when an instruction seeds it with
// R (mov of a variable's address, ld.param of a pointer parameter) or
// computes it from such a register by mov/cvt/cvta/add/sub/mad (the pointer
// as the added term). Flow-insensitive and conservative: a register defined
// any other way, or from two roots, derives from none (kMany), and so does
// a pointer loaded from memory or chosen by selp. Used by the kernel checks
// (which __shared__ array or __device__ variable an index is into) and the
// self-checks (which buffer argument a global access reads or writes).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "lab/ptx/module.h"

namespace lab::ptx {

constexpr int32_t kNoRoot = -1;     // not a pointer into any root
constexpr int32_t kManyRoots = -2;  // from several roots, or one the analysis does not follow

struct RootSeeds {
  // The root an operand names directly (a Symbol), or kNoRoot.
  std::function<int32_t(const Operand&)> operand;
  // The root an instruction's destination starts from (ld.param of a pointer
  // parameter), or kNoRoot to follow the propagation rules.
  std::function<int32_t(const Instr&)> instr;
};

// Per pc: the root of a memory instruction's address (ld/ldu/atom: operand 1;
// st/red: operand 0) when it is in `space` or generic, else kNoRoot.
// kManyRoots where the address derives from several roots or one not
// followed. An address folded from a symbol ([A+8]) has no register and
// gets kNoRoot.
std::vector<int32_t> address_roots(const Kernel& k, const RootSeeds& seeds, Space space);

}  // namespace lab::ptx
