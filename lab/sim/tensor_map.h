// lab/sim/tensor_map.h: the tensor map TMA copies through (CUDA driver API
// CUtensorMap, 128 bytes, contents opaque to the program), as the lab
// encodes it: cuTensorMapEncodeTiled's checks and fields, served by the lab
// where the driver is absent (the GEMM runner, `gpulab run`'s runtime), and
// read back by cp.async.bulk.tensor (exec_tma.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace lab::sim {

constexpr uint32_t kTensorMapBytes = 128;  // sizeof(CUtensorMap), 64-byte aligned (cuda.h)

// The driver's enumerators, same values (cuda.h CUtensorMapDataType,
// CUtensorMapSwizzle, CUtensorMapInterleave, CUtensorMapFloatOOBfill).
enum TensorMapDataType : uint32_t {
  kTmUint8 = 0, kTmUint16, kTmUint32, kTmInt32, kTmUint64, kTmInt64, kTmFloat16, kTmFloat32, kTmFloat64,
  kTmBfloat16, kTmFloat32Ftz, kTmTfloat32, kTmTfloat32Ftz,
};
enum TensorMapSwizzle : uint32_t { kTmSwizzleNone = 0, kTmSwizzle32B, kTmSwizzle64B, kTmSwizzle128B };

struct TensorMap {
  uint32_t data_type = 0, rank = 0, elem_bytes = 0;
  uint32_t swizzle_bytes = 0;  // 0, 32, 64, 128
  bool oob_nan = false;        // CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA (else zeros)
  uint64_t address = 0;
  uint64_t dims[5] = {};
  uint64_t strides[5] = {};    // bytes; strides[0] is the element size
  uint32_t box[5] = {};
  uint32_t element_strides[5] = {};
  uint64_t box_bytes() const;  // what one copy writes to shared memory (and its complete_tx)
};

// cuTensorMapEncodeTiled (cuda.h): fills `out` (kTensorMapBytes) or returns
// what is wrong, in the driver's terms (empty when it is valid).
// `global_strides` has rank - 1 entries (dimension 1 upwards), in bytes.
std::string encode_tensor_map_tiled(void* out, uint32_t data_type, uint32_t rank, uint64_t global_address,
                                    const uint64_t* global_dims, const uint64_t* global_strides,
                                    const uint32_t* box_dims, const uint32_t* element_strides, uint32_t interleave,
                                    uint32_t swizzle, uint32_t l2_promotion, uint32_t oob_fill);

// Reads a map the lab encoded; false when `in` is not one (never encoded).
bool decode_tensor_map(const void* in, TensorMap& out);

}  // namespace lab::sim
