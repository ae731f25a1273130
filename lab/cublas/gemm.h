// lab/cublas/gemm.h: one GEMM as the lab's cuBLAS stand-in runs it, whichever
// entry point it came through (cublasSgemm, cublasGemmEx and their strided
// batched forms in gemm.cpp; cublasLtMatmul in lt.cpp).
//
// Column-major, D = alpha op(A) op(B) + beta C (cuBLAS: D is C), then
// cuBLASLt's epilogue: + bias[row], GELU (its input kept in aux), or times
// GELU'(aux). run_gemm chooses the kernel (gemm.cpp's header says which) and
// launches it on the simulator through libgpulab_cudart.
#pragma once

#include <cublas_api.h>

namespace lab::cublas {

enum class Elem { F32, F16, BF16 };

struct Gemm {
  const char* call = "";                  // names the call in reports and messages
  cudaStream_t stream = nullptr;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
  cublasOperation_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  int m = 0, n = 0, k = 0;
  const void* alpha = nullptr;            // float, on the host or (CUBLAS_POINTER_MODE_DEVICE) the device
  const void* beta = nullptr;
  const void* A = nullptr;
  int lda = 0;
  long long stride_a = 0;
  const void* B = nullptr;
  int ldb = 0;
  long long stride_b = 0;
  void* C = nullptr;                      // the output (cuBLASLt's D)
  int ldc = 0;
  long long stride_c = 0;
  int batch = 1;
  Elem ab = Elem::F32, c = Elem::F32;
  bool fast_compute = false;              // a CUBLAS_COMPUTE_32F_FAST_* type: the program allows reduced precision
  // cuBLASLt only.
  const void* C_in = nullptr;             // C when it is not D (same layout); nullptr: D
  const void* bias = nullptr;             // CUBLASLT_EPILOGUE_*BIAS: m values of C's type
  void* aux = nullptr;                    // GELU's input (GELU_AUX out, DGELU in), C's type
  long long ld_aux = 0;
  int gelu = 0;                           // 0 none, 1 GELU, 2 DGELU
};

// Checks the arguments as cuBLAS does, chooses the kernel, launches it.
cublasStatus_t run_gemm(const Gemm& g);

// cuBLASLt's BGRADA / BGRADB: `out` (C's type) = op(A)'s rows / op(B)'s
// columns summed over k, one launch after the GEMM (one matrix, no batch).
cublasStatus_t run_bias_grad(const Gemm& g, bool from_a, void* out);

// cublasGemmEx's datatype rules (A and B alike: fp32, fp16 or bf16; C fp32
// or their type; compute CUBLAS_COMPUTE_32F and its forms): sets g.ab, g.c
// and g.fast_compute, or refuses naming the call and the type.
cublasStatus_t set_types(Gemm& g, cudaDataType a, cudaDataType b, cudaDataType c, cublasComputeType_t compute);

}  // namespace lab::cublas
