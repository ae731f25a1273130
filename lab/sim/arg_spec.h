// lab/sim/arg_spec.h: the `--arg SPEC` language of `gpulab sim`, and turning a
// list of specs into a kernel's param buffer plus filled global buffers.
//
//   scalars:  i32=5  u32=5  i64=-3  u64=9  f32=1.5  f64=2.0
//   buffers:  TYPE[COUNT][=INIT]   TYPE in f32 f64 f16 bf16 i8 u8 i16 u16 i32 u32 i64 u64
//             INIT: zero (default) | iota | fill:V | rand | rand:SEED | randint:N | uninit | @PATH
//             (randint:N: integers uniform in [0, N), as `gpulab check` fills integer inputs with N = 16)
//             f32[]=@x.bin takes COUNT from the file's length.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lab/ptx/module.h"
#include "lab/sim/launch.h"
#include "lab/sim/uniform_draw.h"

namespace lab::sim {

// A spec the user wrote wrong; the message says what and how to fix it.
struct ArgSpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The element type of a buffer or scalar argument is a ptx::Type (the one
// representation of an element type; specs and lesson manifests spell it
// f32 f64 f16 bf16 i8 u8 i16 u16 i32 u32 i64 u64: iN is ptx::Type::SN).
using ElemType = ptx::Type;
int elem_bytes(ElemType t);
const char* elem_name(ElemType t);  // "f32", "bf16", "u8", ...
bool elem_is_float(ElemType t);
// The type `name` spells; false when it spells none.
bool elem_from_name(std::string_view name, ElemType& out);
// One element as its bytes and back: stores v rounded to the type (floats
// to nearest even; integers wrap) and reads one as double.
void store_element(ElemType t, uint8_t* dst, double v);
double load_element(ElemType t, const uint8_t* src);

struct ArgSpec {
  std::string text;          // as written, for messages
  bool is_buffer = false;
  ElemType type = ElemType::S32;
  // scalar: the value's bits (ints sign-extended, floats as their own bits)
  uint64_t scalar_bits = 0;
  // buffer
  enum class Init : uint8_t { Zero, Iota, Fill, Rand, RandBelow, Uninit, File } init = Init::Zero;
  uint64_t count = 0;
  bool count_from_file = false;
  double fill = 0;
  uint64_t below = 0;        // RandBelow: integers uniform in [0, below)
  uint64_t seed = 0;
  bool seed_given = false;
  std::string path;
  std::string name;          // buffer name in messages ("" -> "argK")
};

// Parses one spec. Throws ArgSpecError naming the spec and what is wrong.
ArgSpec parse_arg_spec(std::string_view text);

// A launch's arguments made concrete: the param buffer and, per spec, the
// device address of its buffer (0 for scalars).
struct PreparedArgs {
  std::vector<uint8_t> params;
  std::vector<uint64_t> buffer_address;
  std::vector<uint64_t> buffer_bytes;
};

// Checks specs against the kernel's parameters (count, size, float vs int,
// pointer vs scalar) and allocates/fills the buffers in `memory`. Throws
// ArgSpecError with a plain message on a mismatch.
PreparedArgs prepare_args(const ptx::Kernel& kernel, const std::vector<ArgSpec>& specs, GlobalMemory& memory);

// Fills `bytes` of element type `t` as `spec` says (used by prepare_args and
// by lessons that build inputs themselves).
void fill_elements(const ArgSpec& spec, uint8_t* dst, uint64_t count, uint64_t default_seed);

}  // namespace lab::sim
