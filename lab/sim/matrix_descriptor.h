// lab/sim/matrix_descriptor.h: how Hopper's asynchronous units address
// shared memory: the 128/64/32-byte swizzle TMA writes and wgmma reads, and
// wgmma's 64-bit matrix descriptor (PTX ISA 9.7.15.5.1.2.2, "Matrix
// Descriptor Format"). One place for both, so a tile TMA lays down is read
// back by wgmma through the same function.
#pragma once

#include <cstdint>

namespace lab::sim {

// Swizzle of `width` bytes (0 none, 32, 64, 128) on an absolute shared
// address: address bits [4, 4+b) XOR bits [7, 7+b), b = 1, 2, 3 (CUTLASS
// cute/swizzle.hpp Swizzle<b,4,3>; TMA's CU_TENSOR_MAP_SWIZZLE_32B/64B/128B
// are the same functions, cute/atom/copy_traits_sm90_tma_swizzle.hpp). The
// 16-byte chunk c of the 128-byte row r of a 1024-byte-aligned tile lands at
// chunk c ^ (r % 8) under the 128-byte swizzle.
inline uint32_t swizzle_address(uint32_t addr, uint32_t width) {
  const uint32_t b = width == 128 ? 3 : width == 64 ? 2 : width == 32 ? 1 : 0;
  return addr ^ (((addr >> 7) & ((1u << b) - 1)) << 4);
}

// The descriptor's fields (bits 0-13 start address >> 4, 16-29 leading
// dimension byte offset >> 4, 32-45 stride dimension byte offset >> 4,
// 49-51 base offset, 62-63 swizzle: 0 none, 1 128-byte, 2 64-byte, 3 32-byte).
struct MatrixDescriptor {
  uint32_t start = 0, lbo = 0, sbo = 0;  // bytes
  uint32_t base_offset = 0;
  uint32_t swizzle_bytes = 0;            // 0, 32, 64 or 128
};

inline MatrixDescriptor decode_matrix_descriptor(uint64_t d) {
  MatrixDescriptor m;
  m.start = uint32_t(d & 0x3fff) << 4;
  m.lbo = uint32_t((d >> 16) & 0x3fff) << 4;
  m.sbo = uint32_t((d >> 32) & 0x3fff) << 4;
  m.base_offset = uint32_t((d >> 49) & 7);
  static constexpr uint32_t kSwizzle[4] = {0, 128, 64, 32};
  m.swizzle_bytes = kSwizzle[(d >> 62) & 3];
  return m;
}

// The shared address of element (r, k) of an operand in the canonical
// layouts (PTX ISA 9.7.15.5.1.2.1): r is the M index of A or the N index of
// B, k the K index; `mn_major` is imm-trans = 1; `es` the element size.
//   K-major,  no swizzle: (r%8)*16 + (r/8)*SBO + (k%T)*es + (k/T)*LBO, T = 16/es
//   K-major,  swizzled:   (r%8)*W  + (r/8)*SBO + k*es                 (LBO unused)
//   MN-major, no swizzle: (r%T)*es + (r/T)*SBO + (k%8)*16 + (k/8)*LBO
//   MN-major, swizzled:   (r%(W/es))*es + (r/(W/es))*LBO + (k%8)*W + (k/8)*SBO
// then the swizzle of width W on the absolute address.
inline uint32_t matrix_element_address(const MatrixDescriptor& d, bool mn_major, uint32_t r, uint32_t k, uint32_t es) {
  const uint32_t W = d.swizzle_bytes, T = 16 / es;
  uint32_t off;
  if (!mn_major) {
    off = W ? (r % 8) * W + (r / 8) * d.sbo + k * es : (r % 8) * 16 + (r / 8) * d.sbo + (k % T) * es + (k / T) * d.lbo;
  } else if (W) {
    const uint32_t per = W / es;
    off = (r % per) * es + (r / per) * d.lbo + (k % 8) * W + (k / 8) * d.sbo;
  } else {
    off = (r % T) * es + (r / T) * d.sbo + (k % 8) * 16 + (k / 8) * d.lbo;
  }
  return swizzle_address(d.start + off, W);
}

}  // namespace lab::sim
