// lab/runtime/driver_tensor_map.cpp: the one CUDA driver API call the lab
// serves to programs, cuTensorMapEncodeTiled (cuda.h), which a TMA kernel's
// host code needs to build its tensor maps: the lab encodes them
// (lab/sim/tensor_map.h) for the simulated device's addresses, with the
// driver's checks, and says on stderr what is wrong when one fails.
#include <cuda.h>

#include <cstdio>
#include <string>

#include "lab/sim/tensor_map.h"

extern "C" {

CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType,
                                        cuuint32_t tensorRank, void* globalAddress, const cuuint64_t* globalDim,
                                        const cuuint64_t* globalStrides, const cuuint32_t* boxDim,
                                        const cuuint32_t* elementStrides, CUtensorMapInterleave interleave,
                                        CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                        CUtensorMapFloatOOBfill oobFill) {
  if (!tensorMap || !globalDim || !boxDim || !elementStrides || (tensorRank > 1 && !globalStrides)) {
    std::fprintf(stderr, "gpulab: cuTensorMapEncodeTiled: a null pointer argument\n");
    return CUDA_ERROR_INVALID_VALUE;
  }
  static_assert(sizeof(CUtensorMap) == lab::sim::kTensorMapBytes);
  const std::string err = lab::sim::encode_tensor_map_tiled(
      tensorMap, uint32_t(tensorDataType), tensorRank, reinterpret_cast<uint64_t>(globalAddress), globalDim,
      globalStrides, boxDim, elementStrides, uint32_t(interleave), uint32_t(swizzle), uint32_t(l2Promotion),
      uint32_t(oobFill));
  if (!err.empty()) {
    std::fprintf(stderr, "gpulab: cuTensorMapEncodeTiled: %s\n", err.c_str());
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

}  // extern "C"
