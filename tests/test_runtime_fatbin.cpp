// lab/runtime/fatbin: the PTX out of a fat binary laid out as nvcc 13 writes
// it (docs/run.md "The fat binary"); compressed entries are refused.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lab/runtime/fatbin.h"

namespace {

template <class T>
void put(std::vector<uint8_t>& b, size_t off, T v) {
  if (b.size() < off + sizeof v) b.resize(off + sizeof v);
  std::memcpy(b.data() + off, &v, sizeof v);
}

// One fat binary: header, then entries of (kind, arch, flags, payload).
struct Entry { uint16_t kind; uint32_t arch; uint64_t flags; std::string payload; };
std::vector<uint8_t> fatbin(const std::vector<Entry>& entries) {
  std::vector<uint8_t> b(16);
  size_t off = 16;
  for (const Entry& e : entries) {
    const uint32_t header = 0x48;
    std::string padded = e.payload + std::string(8 - e.payload.size() % 8, '\0');
    put<uint16_t>(b, off, e.kind);
    put<uint16_t>(b, off + 2, 0x0101);
    put<uint32_t>(b, off + 4, header);
    put<uint64_t>(b, off + 8, padded.size());
    put<uint32_t>(b, off + 0x1c, e.arch);
    put<uint64_t>(b, off + 0x28, e.flags);
    b.resize(off + header);
    b.insert(b.end(), padded.begin(), padded.end());
    off = b.size();
  }
  put<uint32_t>(b, 0, 0xBA55ED50u);
  put<uint16_t>(b, 4, 1);
  put<uint16_t>(b, 6, 16);
  put<uint64_t>(b, 8, b.size() - 16);
  return b;
}

}  // namespace

TEST_CASE("the PTX entries of a fat binary, ELF entries skipped") {
  auto b = fatbin({{2, 90, 0, "\x7f" "ELF....."}, {1, 90, 0x11, ".version 9.0\n.target sm_90\n"}});
  auto ptx = lab::runtime::fatbin_ptx_from_data(b.data(), b.size());
  REQUIRE(ptx.size() == 1);
  CHECK(ptx[0].arch == 90);
  CHECK(ptx[0].ptx == ".version 9.0\n.target sm_90\n");
}

TEST_CASE("compressed PTX and unknown data are refused with what to do") {
  auto b = fatbin({{1, 90, 0x8011, "(zstd bytes)"}});
  CHECK_THROWS_WITH_AS(lab::runtime::fatbin_ptx_from_data(b.data(), b.size()),
                       doctest::Contains("-Xfatbin=-compress=false"), lab::runtime::FatbinError);
  b[0] ^= 1;
  CHECK_THROWS_AS(lab::runtime::fatbin_ptx_from_data(b.data(), b.size()), lab::runtime::FatbinError);
  auto t = fatbin({{1, 90, 0x11, ".version 9.0\n"}});
  CHECK_THROWS_AS(lab::runtime::fatbin_ptx_from_data(t.data(), t.size() - 8), lab::runtime::FatbinError);
}
