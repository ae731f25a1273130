// lab/cublas/gemm.cpp: cublasSgemm, cublasSgemmStridedBatched, cublasGemmEx
// and cublasGemmStridedBatchedEx of the lab's cuBLAS stand-in, and the GEMM
// behind cublasLtMatmul (lt.cpp), each run as a kernel launch on the
// simulator through libgpulab_cudart (gpulab_launch_lab_kernel; split-K
// with a beta pass first, a bias gradient after, make two): the cycle
// model predicts it, it is a line of `gpulab run --report/--json` named
// after the call and the kernel, and --check applies to it as to the
// program's own launches.
//
// Semantics (cuBLAS Library User Guide, "cublas<t>gemm()"): column-major
// storage, C = alpha * op(A) * op(B) + beta * C with op(A) m x k, op(B) k x n,
// C m x n; A is lda x k for CUBLAS_OP_N and lda x m for CUBLAS_OP_T
// (CUBLAS_OP_C is CUBLAS_OP_T for real data); lda >= max(1, rows of A) and
// likewise ldb, ldc >= max(1, m), else CUBLAS_STATUS_INVALID_VALUE. Batched
// forms: matrix b starts at A + b * strideA ("cublas<t>gemmStridedBatched()").
//
// Which kernel runs:
//  * The lab's own GEMM progression (kernels/gemm/, row-major, packed) where
//    the call is one of its shapes: a column-major C = op(A) op(B) with both
//    ops N and packed leading dimensions (lda = m, ldb = k, ldc = m) is, read
//    row-major, C^T = B^T A^T: the row-major GEMM with M = n, N = m, K = k and
//    the operands swapped. fp32: 07_warptile (the fastest fp32 version of the
//    progression); fp16 inputs with fp32 C: 09_tensor_core_mma (sm_80+) or
//    08_tensor_core_wmma (sm_70+). Their float4 / cp.async loads need
//    16-byte aligned bases, so the pointers must be too.
//  * Everything else (a transpose, leading dimensions, batches, bf16, a
//    16-bit C), and a C of few tiles over a long k (split-K, below):
//    lab/cublas/gemm_tiled.cu, compiled for the transpose and type
//    combination.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "lab/cublas/gemm.h"
#include "lab/cublas/handle.h"
#include "lab/runtime/gpulab_api.h"

namespace lab::cublas {
namespace {

const char* elem_name(Elem e) { return e == Elem::F32 ? "fp32" : e == Elem::F16 ? "fp16" : "bf16"; }
const char* elem_ctype(Elem e) { return e == Elem::F32 ? "float" : e == Elem::F16 ? "__half" : "__nv_bfloat16"; }

// The datatypes the stand-in's kernels take; anything else is refused by name.
bool elem_of(cudaDataType t, Elem* e) {
  switch (t) {
    case CUDA_R_32F: *e = Elem::F32; return true;
    case CUDA_R_16F: *e = Elem::F16; return true;
    case CUDA_R_16BF: *e = Elem::BF16; return true;
    default: return false;
  }
}

std::string datatype_name(cudaDataType t) {
  switch (t) {
    case CUDA_R_32F: return "CUDA_R_32F";
    case CUDA_R_16F: return "CUDA_R_16F";
    case CUDA_R_16BF: return "CUDA_R_16BF";
    case CUDA_R_64F: return "CUDA_R_64F";
    case CUDA_C_32F: return "CUDA_C_32F";
    case CUDA_C_64F: return "CUDA_C_64F";
    case CUDA_R_8I: return "CUDA_R_8I";
    case CUDA_R_32I: return "CUDA_R_32I";
    case CUDA_R_8F_E4M3: return "CUDA_R_8F_E4M3";
    case CUDA_R_8F_E5M2: return "CUDA_R_8F_E5M2";
    default: return "cudaDataType " + std::to_string(int(t));
  }
}

std::string compute_name(cublasComputeType_t c) {
  switch (c) {
    case CUBLAS_COMPUTE_16F: return "CUBLAS_COMPUTE_16F";
    case CUBLAS_COMPUTE_16F_PEDANTIC: return "CUBLAS_COMPUTE_16F_PEDANTIC";
    case CUBLAS_COMPUTE_32F: return "CUBLAS_COMPUTE_32F";
    case CUBLAS_COMPUTE_32F_PEDANTIC: return "CUBLAS_COMPUTE_32F_PEDANTIC";
    case CUBLAS_COMPUTE_32F_FAST_16F: return "CUBLAS_COMPUTE_32F_FAST_16F";
    case CUBLAS_COMPUTE_32F_FAST_16BF: return "CUBLAS_COMPUTE_32F_FAST_16BF";
    case CUBLAS_COMPUTE_32F_FAST_TF32: return "CUBLAS_COMPUTE_32F_FAST_TF32";
    case CUBLAS_COMPUTE_64F: return "CUBLAS_COMPUTE_64F";
    case CUBLAS_COMPUTE_32I: return "CUBLAS_COMPUTE_32I";
    default: return "cublasComputeType_t " + std::to_string(int(c));
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// The scalars, where the pointer mode says they are.
cublasStatus_t read_scalars(const Gemm& g, float* alpha, float* beta) {
  if (!g.alpha || !g.beta) return refuse(CUBLAS_STATUS_INVALID_VALUE, g.call, "alpha or beta is a null pointer");
  if (g.pointer_mode == CUBLAS_POINTER_MODE_HOST) {
    *alpha = *static_cast<const float*>(g.alpha);
    *beta = *static_cast<const float*>(g.beta);
    return CUBLAS_STATUS_SUCCESS;
  }
  // CUBLAS_POINTER_MODE_DEVICE: two 4-byte device-to-host copies (on the
  // model clock like any copy; cuBLAS reads them inside its kernel instead).
  if (cudaMemcpy(alpha, g.alpha, sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemcpy(beta, g.beta, sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess)
    return refuse(CUBLAS_STATUS_INVALID_VALUE, g.call,
                  "CUBLAS_POINTER_MODE_DEVICE, but alpha or beta is not a device pointer the runtime knows");
  return CUBLAS_STATUS_SUCCESS;
}

std::string gemm_file(const char* relative) { return std::string(GPULAB_SOURCE_DIR) + "/" + relative; }

cublasStatus_t launch(const Gemm& g, const std::string& file, const std::vector<std::string>& defines,
                      const char* kernel, const std::string& label, dim3 grid, dim3 block, void** args) {
  std::vector<const char*> d;
  for (const auto& s : defines) d.push_back(s.c_str());
  int module = -1;
  if (gpulab_compile_lab_module(file.c_str(), d.data(), int(d.size()), &module) != cudaSuccess)
    return refuse(CUBLAS_STATUS_INTERNAL_ERROR, g.call, "the lab could not compile its kernel (see above)");
  const std::string name = std::string(g.call) + " (" + label + ")";
  if (cudaError_t e = gpulab_launch_lab_kernel(module, kernel, name.c_str(), grid, block, args, 0, g.stream))
    // A fault of an earlier launch (sticky), a bad stream or a refused
    // configuration: the runtime said which on stderr.
    return refuse(CUBLAS_STATUS_EXECUTION_FAILED, g.call,
                  std::string("the launch failed: ") + cudaGetErrorName(e) + " (see above)");
  return CUBLAS_STATUS_SUCCESS;
}

uint32_t blocks(int extent, int tile) { return uint32_t((int64_t(extent) + tile - 1) / tile); }

// The general kernel's compiled variant for a call.
std::vector<std::string> tiled_defines(const Gemm& g, bool ta, bool tb, bool split) {
  return {std::string("TRANS_A=") + (ta ? "1" : "0"), std::string("TRANS_B=") + (tb ? "1" : "0"),
          std::string("AB_TYPE=") + elem_ctype(g.ab), std::string("C_TYPE=") + elem_ctype(g.c),
          std::string("SPLIT_K=") + (split ? "1" : "0"), std::string("HAS_BIAS=") + (g.bias ? "1" : "0"),
          "GELU=" + std::to_string(g.gelu)};
}

}  // namespace

cublasStatus_t run_gemm(const Gemm& g) {
  auto is_op = [](cublasOperation_t t) { return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C; };
  if (!is_op(g.transa) || !is_op(g.transb))
    return refuse(CUBLAS_STATUS_INVALID_VALUE, g.call, "transa and transb must be CUBLAS_OP_N, CUBLAS_OP_T or CUBLAS_OP_C");
  const bool ta = g.transa != CUBLAS_OP_N, tb = g.transb != CUBLAS_OP_N;  // OP_C is OP_T for real data
  // The argument rules of cublas<t>gemm: the stored rows of A are m (N) or k (T).
  const int a_rows = ta ? g.k : g.m, b_rows = tb ? g.n : g.k;
  if (g.m < 0 || g.n < 0 || g.k < 0 || g.batch < 0)
    return refuse(CUBLAS_STATUS_INVALID_VALUE, g.call, "m, n, k and the batch count must not be negative");
  if (g.lda < std::max(1, a_rows) || g.ldb < std::max(1, b_rows) || g.ldc < std::max(1, g.m))
    return refuse(CUBLAS_STATUS_INVALID_VALUE, g.call,
                  "a leading dimension is smaller than its matrix's rows: lda >= max(1, " +
                      std::string(ta ? "k" : "m") + "), ldb >= max(1, " + (tb ? "n" : "k") + "), ldc >= max(1, m); got lda " +
                      std::to_string(g.lda) + ", ldb " + std::to_string(g.ldb) + ", ldc " + std::to_string(g.ldc) +
                      " for m " + std::to_string(g.m) + ", n " + std::to_string(g.n) + ", k " + std::to_string(g.k));
  if (g.m == 0 || g.n == 0 || g.batch == 0) return CUBLAS_STATUS_SUCCESS;  // nothing to compute, C untouched
  if (blocks(g.n, 64) > 65535)
    return refuse(CUBLAS_STATUS_NOT_SUPPORTED, g.call,
                  "n = " + std::to_string(g.n) + " is more than the stand-in's grid covers (65535 x 64 columns); "
                  "split the call into column blocks");
  float alpha = 0, beta = 0;
  if (cublasStatus_t s = read_scalars(g, &alpha, &beta)) return s;
  if (g.ab == Elem::F32 && (g.fast_compute || g.math_mode == CUBLAS_TF32_TENSOR_OP_MATH))
    note_once("cuBLAS TF32 / reduced-precision math was allowed (cublasSetMathMode or a CUBLAS_COMPUTE_32F_FAST_* "
              "type): the lab's cuBLAS stand-in computes fp32 GEMMs in full fp32 on CUDA cores, so its results are "
              "at least as precise and its predicted times are those of the fp32 kernel, not of tensor cores");

  // Split-K where C has fewer 64 x 64 tiles than the GPU has SMs and k is
  // long (gemm_tiled.cu says how): each slice takes at least 256 of k, and
  // there are enough slices for about two blocks per SM. Without it a
  // 128 x 128 C over k = 50304 (llm.c's lm-head gradient) is 1 to 4 blocks on
  // a 132-SM GPU, each walking all of k. fp32 C only (atomicAdd).
  int splits = 1;
  const long long tiles = (long long)blocks(g.m, 64) * blocks(g.n, 64) * g.batch;
  int sms = 0, device = 0;
  const bool plain = !g.bias && !g.gelu && (!g.C_in || g.C_in == g.C);  // no cuBLASLt epilogue, C is D
  if (plain && g.c == Elem::F32 && g.k >= 1024 && cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess && tiles < sms) {
    const long long want = std::min<long long>((2LL * sms + tiles - 1) / tiles, g.k / 256);
    const long long chunk = ((g.k + want - 1) / want + 15) / 16 * 16;  // whole 16-deep k steps
    splits = int((g.k + chunk - 1) / chunk);                           // every slice non-empty
  }

  // The lab's own progression where the call is its shape (the header says why).
  const bool packed_nn = !ta && !tb && g.lda == g.m && g.ldb == g.k && g.ldc == g.m && g.batch == 1 &&
                         aligned16(g.A) && aligned16(g.B) && aligned16(g.C) && splits == 1 && plain;
  int M = g.n, N = g.m, K = g.k;  // the row-major problem C^T = B^T A^T
  const void* A_row = g.B;
  const void* B_row = g.A;
  void* C_row = g.C;
  void* lab_args[] = {&M, &N, &K, &alpha, &A_row, &B_row, &beta, &C_row};
  if (packed_nn && g.ab == Elem::F32 && g.c == Elem::F32)
    // kernels/gemm/gemm.toml: block [128, 1], tile 128 x 128, grid.x over N, grid.y over M.
    return launch(g, gemm_file("kernels/gemm/07_warptile.cu"), {}, "gemm_07_warptile", "lab GEMM: gemm_07_warptile",
                  dim3(blocks(N, 128), blocks(M, 128)), dim3(128), lab_args);
  const int cc = gpulab_compute_capability();
  if (packed_nn && g.ab == Elem::F16 && g.c == Elem::F32 && cc >= 80)
    // gemm.toml: block [256, 1], tile 128 x 128.
    return launch(g, gemm_file("kernels/gemm/09_tensor_core_mma.cu"), {}, "gemm_09_tensor_core_mma",
                  "lab GEMM: gemm_09_tensor_core_mma", dim3(blocks(N, 128), blocks(M, 128)), dim3(256), lab_args);
  if (packed_nn && g.ab == Elem::F16 && g.c == Elem::F32 && cc >= 70)
    // gemm.toml: block [128, 1], tile 64 x 64.
    return launch(g, gemm_file("kernels/gemm/08_tensor_core_wmma.cu"), {}, "gemm_08_tensor_core_wmma",
                  "lab GEMM: gemm_08_tensor_core_wmma", dim3(blocks(N, 64), blocks(M, 64)), dim3(128), lab_args);

  // The general kernel: one compiled variant per transpose, type, split-K and epilogue combination.
  const std::vector<std::string> defines = tiled_defines(g, ta, tb, splits > 1);
  std::string label = std::string("lab cuBLAS: gemm_tiled ") + (ta ? "T" : "N") + (tb ? "T" : "N") + " " +
                      elem_name(g.ab) + (g.c != g.ab ? std::string("->") + elem_name(g.c) : std::string()) +
                      (g.bias ? ", +bias" : "") + (g.gelu == 1 ? ", gelu" : g.gelu == 2 ? ", dgelu" : "");
  const std::string file = gemm_file("lab/cublas/gemm_tiled.cu");
  const void* A = g.A;
  const void* B = g.B;
  void* C = g.C;
  int m = g.m, n = g.n, k = g.k, lda = g.lda, ldb = g.ldb, ldc = g.ldc, batch = g.batch;
  long long sa = g.stride_a, sb = g.stride_b, sc = g.stride_c;
  if (splits > 1) {
    label += ", split-K " + std::to_string(splits);
    if (beta != 1.f) {  // C = beta C first; the slices then add into it
      void* scale_args[] = {&m, &n, &beta, &C, &ldc, &sc, &batch};
      const long long elements = (long long)g.m * g.n * g.batch;
      if (cublasStatus_t s = launch(g, file, defines, "gemm_scale_c", "lab cuBLAS: gemm_scale_c, beta before split-K",
                                    dim3(uint32_t(std::min<long long>((elements + 255) / 256, 4096))), dim3(256),
                                    scale_args))
        return s;
    }
  }
  const void* C_in = g.C_in ? g.C_in : g.C;
  const void* bias = g.bias;
  void* aux = g.aux;
  long long ld_aux = g.ld_aux;
  void* args[] = {&m, &n, &k, &alpha, &A, &lda, &sa, &B, &ldb, &sb, &beta, &C, &ldc, &sc, &batch, &splits,
                  &C_in, &bias, &aux, &ld_aux};
  // lab/cublas/gemm_tiled.cu: 256 threads, a 64 x 64 tile of C per block, (batch, k slice) over grid.z.
  return launch(g, file, defines, "gemm_tiled", label,
                dim3(blocks(g.m, 64), blocks(g.n, 64), uint32_t(std::min<long long>((long long)g.batch * splits, 65535))),
                dim3(256), args);
}

cublasStatus_t run_bias_grad(const Gemm& g, bool from_a, void* out) {
  const bool ta = g.transa != CUBLAS_OP_N, tb = g.transb != CUBLAS_OP_N;
  // Vector r, element p: op(A)(r, p) for BGRADA (r < m), op(B)(p, r) for BGRADB (r < n).
  const int count = from_a ? g.m : g.n;
  long long step_r, step_k;
  if (from_a) step_r = ta ? g.lda : 1, step_k = ta ? 1 : g.lda;
  else step_r = tb ? 1 : g.ldb, step_k = tb ? g.ldb : 1;
  int c = count, k = g.k;
  const void* X = from_a ? g.A : g.B;
  void* args[] = {&c, &k, &X, &step_r, &step_k, &out};
  Gemm variant = g;
  variant.bias = nullptr, variant.gelu = 0;  // the module of the plain variant serves
  return launch(g, gemm_file("lab/cublas/gemm_tiled.cu"), tiled_defines(variant, ta, tb, false), "gemm_bias_grad",
                std::string("lab cuBLAS: gemm_bias_grad, ") + (from_a ? "BGRADA" : "BGRADB"),
                dim3(uint32_t(std::min(count, 65535))), dim3(256), args);
}

cublasStatus_t set_types(Gemm& g, cudaDataType a, cudaDataType b, cudaDataType c, cublasComputeType_t compute) {
  const std::string served =
      "the lab's cuBLAS stand-in serves A/B CUDA_R_32F, CUDA_R_16F or CUDA_R_16BF (both alike) with C CUDA_R_32F or "
      "the type of A/B, and compute type CUBLAS_COMPUTE_32F (or its _PEDANTIC / _FAST_16F / _FAST_16BF / _FAST_TF32 "
      "forms); convert the data to one of those, or run the program on a GPU with --backend cuda";
  Elem ea, eb, ec;
  if (!elem_of(a, &ea)) return refuse(CUBLAS_STATUS_NOT_SUPPORTED, g.call, "Atype " + datatype_name(a) + ": " + served);
  if (!elem_of(b, &eb)) return refuse(CUBLAS_STATUS_NOT_SUPPORTED, g.call, "Btype " + datatype_name(b) + ": " + served);
  if (!elem_of(c, &ec)) return refuse(CUBLAS_STATUS_NOT_SUPPORTED, g.call, "Ctype " + datatype_name(c) + ": " + served);
  if (ea != eb || (ec != Elem::F32 && ec != ea))
    return refuse(CUBLAS_STATUS_NOT_SUPPORTED, g.call,
                  "Atype " + datatype_name(a) + ", Btype " + datatype_name(b) + ", Ctype " + datatype_name(c) + ": " + served);
  switch (compute) {
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
      break;
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
      g.fast_compute = true;
      break;
    default:
      return refuse(CUBLAS_STATUS_NOT_SUPPORTED, g.call, "computeType " + compute_name(compute) + ": " + served);
  }
  g.ab = ea;
  g.c = ec;
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace lab::cublas

using lab::cublas::Gemm;

namespace {
// What every GEMM entry point describes the same way: the call's name, the
// handle's state (stream, pointer and math modes) and the column-major
// operands. The caller adds strides, batch and types.
Gemm describe(const char* call, cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
              int k, const void* alpha, const void* A, int lda, const void* B, int ldb, const void* beta, void* C,
              int ldc) {
  Gemm g;
  g.call = call;
  g.stream = h->stream;
  g.pointer_mode = h->pointer_mode;
  g.math_mode = h->math_mode;
  g.transa = transa, g.transb = transb, g.m = m, g.n = n, g.k = k;
  g.alpha = alpha, g.beta = beta, g.A = A, g.lda = lda, g.B = B, g.ldb = ldb, g.C = C, g.ldc = ldc;
  return g;
}
}  // namespace

extern "C" {

cublasStatus_t CUBLASWINAPI cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                           int m, int n, int k, const float* alpha, const float* A, int lda,
                                           const float* B, int ldb, const float* beta, float* C, int ldc) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  Gemm g = describe("cublasSgemm", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  return lab::cublas::run_gemm(g);
}

cublasStatus_t CUBLASWINAPI cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                      cublasOperation_t transb, int m, int n, int k,
                                                      const float* alpha, const float* A, int lda, long long strideA,
                                                      const float* B, int ldb, long long strideB, const float* beta,
                                                      float* C, int ldc, long long strideC, int batchCount) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  Gemm g = describe("cublasSgemmStridedBatched", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  g.stride_a = strideA, g.stride_b = strideB, g.stride_c = strideC, g.batch = batchCount;
  return lab::cublas::run_gemm(g);
}

cublasStatus_t CUBLASWINAPI cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const void* alpha, const void* A, cudaDataType Atype,
                                         int lda, const void* B, cudaDataType Btype, int ldb, const void* beta,
                                         void* C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                                         cublasGemmAlgo_t algo) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  Gemm g = describe("cublasGemmEx", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  // algo only chooses among cuBLAS's own implementations: the lab has one per shape.
  if (cublasStatus_t s = lab::cublas::set_types(g, Atype, Btype, Ctype, computeType)) return s;
  return lab::cublas::run_gemm(g);
}

cublasStatus_t CUBLASWINAPI cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                                       cublasOperation_t transb, int m, int n, int k,
                                                       const void* alpha, const void* A, cudaDataType Atype, int lda,
                                                       long long strideA, const void* B, cudaDataType Btype, int ldb,
                                                       long long strideB, const void* beta, void* C,
                                                       cudaDataType Ctype, int ldc, long long strideC, int batchCount,
                                                       cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  Gemm g = describe("cublasGemmStridedBatchedEx", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  g.stride_a = strideA, g.stride_b = strideB, g.stride_c = strideC, g.batch = batchCount;
  if (cublasStatus_t s = lab::cublas::set_types(g, Atype, Btype, Ctype, computeType)) return s;
  return lab::cublas::run_gemm(g);
}

}  // extern "C"
