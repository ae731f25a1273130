// lab/ptx/names.cpp: the one table of PTX type names (opcode names live in
// the opcode table, lab/ptx/opcodes.def).
#include <iterator>

#include "lab/ptx/module.h"

namespace lab::ptx {

namespace {
// PTX ISA 9.x section 5.2 "Types", indexed by Type.
constexpr const char* kTypeNames[] = {
    "",      ".pred", ".b8",  ".b16",   ".b32",  ".b64",    ".b128", ".u8",  ".u16",  ".u32", ".u64", ".s8",
    ".s16",  ".s32",  ".s64", ".f16",   ".f16x2", ".bf16",  ".bf16x2", ".tf32", ".f32", ".f64", ".e4m3", ".e5m2",
};
static_assert(std::size(kTypeNames) == size_t(Type::E5M2) + 1, "one name per ptx::Type");
}  // namespace

const char* type_name(Type t) {
  return size_t(t) < std::size(kTypeNames) ? kTypeNames[size_t(t)] : "?";
}

Type type_from_name(std::string_view w) {
  for (size_t i = 1; i < std::size(kTypeNames); ++i)
    if (w == kTypeNames[i] + 1) return Type(i);
  return Type::None;
}

}  // namespace lab::ptx
