// tests/fuzz/fuzz_arg_spec.cpp: libFuzzer target for the `--arg` spec language.
//
// The input is split at '\n' into specs. Each must parse or throw
// ArgSpecError. The parsed specs are then checked against a made-up kernel
// signature (from the input's first byte) by prepare_args, which must
// accept them or throw ArgSpecError. File initialisers (@PATH) are skipped
// for prepare_args so the fuzzer never reads arbitrary files, and buffers
// over 1 MiB are skipped so it never exhausts memory (run_kernel refuses
// launches over the machine's memory before it allocates).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lab/sim/arg_spec.h"

namespace lab::fuzz {

inline int fuzz_arg_spec_one(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t shape = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<sim::ArgSpec> specs;
  bool launchable = true;
  uint64_t total = 0;
  size_t start = 0;
  while (start <= text.size() && specs.size() < 8) {
    size_t nl = text.find('\n', start);
    std::string_view one = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    try {
      sim::ArgSpec s = sim::parse_arg_spec(one);
      if (s.is_buffer) {
        if (s.init == sim::ArgSpec::Init::File || s.count_from_file) launchable = false;
        uint64_t bytes = s.count * uint64_t(sim::elem_bytes(s.type));
        if (s.count > (1u << 20) || bytes > (1u << 20)) launchable = false;
        total += bytes;
      }
      specs.push_back(std::move(s));
    } catch (const sim::ArgSpecError&) {
      launchable = false;
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  if (!launchable || total > (1u << 20)) return 0;

  // A kernel signature from `shape`: 2 bits per parameter pick pointer,
  // .u32, .f32 or .f64; the low bit of the count byte adds or drops one.
  ptx::Kernel k;
  k.name = "fuzz";
  const ptx::Type kinds[4] = {ptx::Type::U64, ptx::Type::U32, ptx::Type::F32, ptx::Type::F64};
  size_t nparams = specs.size() + ((shape & 0x80) ? 1 : 0);
  uint32_t offset = 0;
  for (size_t i = 0; i < nparams; ++i) {
    ptx::Param p;
    p.name = "p" + std::to_string(i);
    p.type = kinds[(shape >> (2 * (i % 3))) & 3];
    p.size = uint32_t(ptx::type_bytes(p.type));
    p.align = p.size;
    offset = (offset + p.align - 1) / p.align * p.align;
    p.offset = offset;
    offset += p.size;
    k.params.push_back(p);
  }
  k.param_bytes = offset;
  try {
    sim::GlobalMemory memory;
    sim::PreparedArgs args = sim::prepare_args(k, specs, memory);
    if (args.params.size() != k.param_bytes) __builtin_trap();
  } catch (const sim::ArgSpecError&) {
  }
  return 0;
}

}  // namespace lab::fuzz

#ifndef GPULAB_FUZZ_NO_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return lab::fuzz::fuzz_arg_spec_one(data, size);
}
#endif
