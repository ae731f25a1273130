// lab/sim/tensor_map.cpp: the lab's CUtensorMap encoding. The layout is the
// lab's own (the driver's is undocumented): a tag, then the fields.
#include "lab/sim/tensor_map.h"

#include <fmt/format.h>

#include <cstring>

namespace lab::sim {

namespace {

constexpr uint32_t kTag = 0x4d544c47;  // "GLTM"
// The swizzle span in bytes of each TensorMapSwizzle value.
constexpr uint32_t kSwizzleSpan[4] = {0, 32, 64, 128};

// The packed form, within 128 bytes.
struct Packed {
  uint32_t tag;
  uint8_t data_type, rank, swizzle, oob_nan;
  uint64_t address;
  uint64_t dims[5];
  uint64_t strides[4];  // dimensions 1..4, bytes
  uint16_t box[5];
  uint8_t element_strides[5];
};
static_assert(sizeof(Packed) <= kTensorMapBytes);

uint32_t element_bytes(uint32_t t) {
  switch (t) {
    case kTmUint8: return 1;
    case kTmUint16: case kTmFloat16: case kTmBfloat16: return 2;
    case kTmUint32: case kTmInt32: case kTmFloat32: case kTmFloat32Ftz: case kTmTfloat32: case kTmTfloat32Ftz: return 4;
    case kTmUint64: case kTmInt64: case kTmFloat64: return 8;
    default: return 0;
  }
}

}  // namespace

uint64_t TensorMap::box_bytes() const {
  uint64_t n = elem_bytes;
  for (uint32_t d = 0; d < rank; ++d) n *= (box[d] + element_strides[d] - 1) / element_strides[d];
  return n;
}

std::string encode_tensor_map_tiled(void* out, uint32_t data_type, uint32_t rank, uint64_t global_address,
                                    const uint64_t* global_dims, const uint64_t* global_strides,
                                    const uint32_t* box_dims, const uint32_t* element_strides, uint32_t interleave,
                                    uint32_t swizzle, uint32_t l2_promotion, uint32_t oob_fill) {
  // The checks cuda.h documents for cuTensorMapEncodeTiled.
  (void)l2_promotion;  // a cache hint: no effect on what is copied
  if (reinterpret_cast<uintptr_t>(out) % 64) return "tensorMap must be 64-byte aligned";
  const uint32_t es = element_bytes(data_type);
  if (!es) return fmt::format("tensorDataType {} is not one the lab models (unpacked integer and float types)", data_type);
  if (rank == 0 || rank > 5) return fmt::format("tensorRank {} must be 1 to 5", rank);
  if (interleave != 0) return "interleaved layouts (CU_TENSOR_MAP_INTERLEAVE_16B/32B) are not modelled; use NONE";
  if (swizzle > kTmSwizzle128B) return fmt::format("swizzle {} is not modelled (NONE, 32B, 64B or 128B)", swizzle);
  if (oob_fill > 1) return fmt::format("oobFill {} is not a CUtensorMapFloatOOBfill value", oob_fill);
  if (global_address % 16) return fmt::format("globalAddress 0x{:x} must be 16-byte aligned", global_address);
  Packed p{};
  p.tag = kTag;
  p.data_type = uint8_t(data_type);
  p.rank = uint8_t(rank);
  p.swizzle = uint8_t(swizzle);
  p.oob_nan = uint8_t(oob_fill);
  p.address = global_address;
  for (uint32_t d = 0; d < rank; ++d) {
    if (global_dims[d] == 0 || global_dims[d] > (1ull << 32))
      return fmt::format("globalDim[{}] = {} must be 1 to 2^32", d, global_dims[d]);
    if (box_dims[d] == 0 || box_dims[d] > 256) return fmt::format("boxDim[{}] = {} must be 1 to 256", d, box_dims[d]);
    if (element_strides[d] == 0 || element_strides[d] > 8)
      return fmt::format("elementStrides[{}] = {} must be 1 to 8", d, element_strides[d]);
    p.dims[d] = global_dims[d];
    p.box[d] = uint16_t(box_dims[d]);
    p.element_strides[d] = uint8_t(d == 0 ? 1 : element_strides[d]);  // [0] is ignored without interleave
    if (d > 0) {
      const uint64_t s = global_strides[d - 1];
      if (s % 16 || s >= (1ull << 40))
        return fmt::format("globalStrides[{}] = {} must be a multiple of 16 below 2^40", d - 1, s);
      p.strides[d - 1] = s;
    }
  }
  if ((uint64_t(box_dims[0]) * es) % 16)
    return fmt::format("boxDim[0] x element size = {} bytes must be a multiple of 16", uint64_t(box_dims[0]) * es);
  if (swizzle && uint64_t(box_dims[0]) * es > kSwizzleSpan[swizzle])
    return fmt::format("the inner box dimension is {} bytes, more than the {}-byte swizzle span", uint64_t(box_dims[0]) * es,
                       kSwizzleSpan[swizzle]);
  std::memset(out, 0, kTensorMapBytes);
  std::memcpy(out, &p, sizeof p);
  return {};
}

bool decode_tensor_map(const void* in, TensorMap& m) {
  Packed p;
  std::memcpy(&p, in, sizeof p);
  if (p.tag != kTag || p.rank == 0 || p.rank > 5) return false;
  m = TensorMap{};
  m.data_type = p.data_type;
  m.rank = p.rank;
  m.elem_bytes = element_bytes(p.data_type);
  m.swizzle_bytes = kSwizzleSpan[p.swizzle & 3];
  m.oob_nan = p.oob_nan != 0;
  m.address = p.address;
  for (uint32_t d = 0; d < m.rank; ++d) {
    m.dims[d] = p.dims[d];
    m.strides[d] = d == 0 ? m.elem_bytes : p.strides[d - 1];
    m.box[d] = p.box[d];
    m.element_strides[d] = p.element_strides[d];
  }
  return m.elem_bytes != 0;
}

}  // namespace lab::sim
