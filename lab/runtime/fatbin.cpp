// lab/runtime/fatbin.cpp: walks a fat binary's entries.
//
// The layout is NVIDIA's and undocumented beyond fatbinary_section.h (the
// wrapper); the rest was read off nvcc 13.0's output here (lab/runtime's
// docs: docs/run.md "The fat binary"):
//   header  : u32 magic 0xBA55ED50, u16 version, u16 header size, u64 bytes of entries
//   entry   : u16 kind (1 PTX, 2 ELF), u16 version, u32 header size,
//             u64 payload size, ..., at +0x1c u32 arch (90), at +0x28 u64 flags
//             (0x2000 / 0x8000: compressed); the payload follows the entry header.
#include "lab/runtime/fatbin.h"

#include <cstdint>
#include <cstring>

#include <fmt/format.h>
#include <fatbinary_section.h>

namespace lab::runtime {
namespace {

constexpr uint32_t kFatbinMagic = 0xBA55ED50u;
constexpr uint16_t kKindPtx = 1;
constexpr uint64_t kFlagsCompressed = 0x2000 | 0x8000;

template <class T>
T read_at(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof v);
  return v;
}

}  // namespace

std::vector<FatbinPtx> fatbin_ptx_from_data(const void* data, size_t max_bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  if (max_bytes < 16 || read_at<uint32_t>(p, 0) != kFatbinMagic)
    throw FatbinError("the program's fat binary does not start with the known magic number; rebuild it with `gpulab run`");
  const uint16_t header = read_at<uint16_t>(p, 6);
  const uint64_t bytes = read_at<uint64_t>(p, 8);
  if (header + bytes > max_bytes) throw FatbinError("the program's fat binary is truncated");
  std::vector<FatbinPtx> out;
  uint64_t off = header;
  while (off + 0x30 <= header + bytes) {
    const uint8_t* e = p + off;
    const uint16_t kind = read_at<uint16_t>(e, 0);
    const uint32_t entry_header = read_at<uint32_t>(e, 4);
    const uint64_t payload = read_at<uint64_t>(e, 8);
    const uint32_t arch = read_at<uint32_t>(e, 0x1c);
    const uint64_t flags = read_at<uint64_t>(e, 0x28);
    if (entry_header < 0x30 || off + entry_header + payload > header + bytes)
      throw FatbinError("the program's fat binary has an entry of an unknown layout");
    if (kind == kKindPtx) {
      if (flags & kFlagsCompressed)
        throw FatbinError(
            "the program's PTX is compressed in its fat binary; build it with -Xfatbin=-compress=false "
            "(gpulab run does)");
      const char* text = reinterpret_cast<const char*>(e + entry_header);
      out.push_back({arch, std::string(text, strnlen(text, payload))});
    }
    off += entry_header + payload;
  }
  return out;
}

std::vector<FatbinPtx> fatbin_ptx(const void* wrapper) {
  const auto* w = static_cast<const __fatBinC_Wrapper_t*>(wrapper);
  if (!w || uint32_t(w->magic) != FATBINC_MAGIC)
    throw FatbinError("the program registered a fat binary of an unknown kind");
  if (w->version != FATBINC_VERSION)
    throw FatbinError(
        "the program was built with relocatable device code (-rdc / separate compilation), which the lab's "
        "runtime does not load; build each .cu file as a whole program");
  // The header gives the size; read it first.
  const auto* data = reinterpret_cast<const uint8_t*>(w->data);
  uint16_t header = read_at<uint16_t>(data, 6);
  uint64_t bytes = read_at<uint64_t>(data, 8);
  return fatbin_ptx_from_data(data, header + bytes);
}

}  // namespace lab::runtime
