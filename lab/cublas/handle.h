// lab/cublas/handle.h: what a cublasHandle_t of the lab's cuBLAS stand-in
// holds, and the few helpers its calls share.
//
// cuBLAS keeps a handle's stream, pointer mode, math mode and workspace
// (cuBLAS Library User Guide, "cuBLAS Helper Function Reference"); the lab
// keeps the same, and runs every call as kernel launches on the handle's
// stream through libgpulab_cudart (lab/runtime/gpulab_api.h).
#pragma once

#include <cublas_api.h>

#include <string>

struct cublasContext {
  cudaStream_t stream = nullptr;                          // cublasSetStream; 0 = the legacy default stream
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
  void* workspace = nullptr;                              // cublasSetWorkspace: kept, the lab's kernels need none
  size_t workspace_bytes = 0;
};

namespace lab::cublas {

// A refusal the user can act on, on stderr: "gpulab: cublasGemmEx: ...".
// Returns `status`, so a call ends `return refuse(...)`.
cublasStatus_t refuse(cublasStatus_t status, const std::string& call, const std::string& why);

// Says `what` once per process on stderr (the lab computes in FP32 where TF32
// was asked for, ...).
void note_once(const std::string& what);

}  // namespace lab::cublas
