// lab/cublas/lt.cpp: the cuBLASLt calls llm.c's train_gpt2.cu makes
// (llmc/matmul.cuh, matmul_cublaslt), served by the lab's cuBLAS stand-in:
// handle, matmul descriptor, matrix layouts, preference, the heuristic, and
// cublasLtMatmul with the DEFAULT, BIAS, GELU(_AUX)(_BIAS), DGELU, BGRADA and
// BGRADB epilogues. Declared from the toolkit's cublasLt.h.
//
// cublasLtMatmul is D = alpha op(A) op(B) + beta C, then the epilogue
// (cuBLASLt API reference, "cublasLtMatmul()", "cublasLtEpilogue_t"):
// column-major layouts (CUBLASLT_ORDER_COL, the default) of rows x cols with
// a leading dimension, batches by CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT and
// _STRIDED_BATCH_OFFSET. It runs as gemm.cpp's GEMM (run_gemm), so the same
// kernels, the same report names ("cublasLtMatmul (lab cuBLAS: gemm_tiled TN
// bf16, +bias)") and the same refusals. What the stand-in does not serve
// (another order, a bias of another type than D, ReLU epilogues, fp8) is
// refused with CUBLAS_STATUS_NOT_SUPPORTED and a line naming it.
#include <cublasLt.h>

#include <cstring>
#include <new>
#include <string>

#include "lab/cublas/gemm.h"
#include "lab/cublas/handle.h"

namespace {

using lab::cublas::refuse;

struct LtLayout {
  cudaDataType type = CUDA_R_32F;
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int32_t order = CUBLASLT_ORDER_COL;
  int32_t batch = 1;
  int64_t stride = 0;
};

struct LtDesc {
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType scale = CUDA_R_32F;
  int32_t pointer_mode = CUBLASLT_POINTER_MODE_HOST;
  int32_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void* bias = nullptr;
  int32_t bias_type = -1;  // -1: D's type (the default, cublasLt.h)
  void* aux = nullptr;
  int64_t aux_ld = 0;
  int32_t aux_type = -1;
};

// The program's opaque objects hold ours (cublasLt.h sizes them; a program may
// also keep them on its stack with cublasLt*Init, which is not served).
static_assert(sizeof(LtLayout) <= sizeof(cublasLtMatrixLayoutOpaque_t));
static_assert(sizeof(LtDesc) <= sizeof(cublasLtMatmulDescOpaque_t));
LtLayout& layout(cublasLtMatrixLayout_t l) { return *reinterpret_cast<LtLayout*>(l); }
LtDesc& desc(cublasLtMatmulDesc_t d) { return *reinterpret_cast<LtDesc*>(d); }

// cublasLt*SetAttribute: the value's size must be the attribute's (else INVALID_VALUE, as cuBLASLt).
template <typename T>
cublasStatus_t take(T* field, const void* buf, size_t bytes, const char* call) {
  if (!buf || bytes != sizeof(T))
    return refuse(CUBLAS_STATUS_INVALID_VALUE, call,
                  "the attribute's value is a null pointer or not " + std::to_string(sizeof(T)) + " bytes");
  std::memcpy(field, buf, sizeof(T));
  return CUBLAS_STATUS_SUCCESS;
}

std::string epilogue_name(uint32_t e) {
  switch (e) {
    case CUBLASLT_EPILOGUE_DEFAULT: return "CUBLASLT_EPILOGUE_DEFAULT";
    case CUBLASLT_EPILOGUE_BIAS: return "CUBLASLT_EPILOGUE_BIAS";
    case CUBLASLT_EPILOGUE_GELU: return "CUBLASLT_EPILOGUE_GELU";
    case CUBLASLT_EPILOGUE_GELU_AUX: return "CUBLASLT_EPILOGUE_GELU_AUX";
    case CUBLASLT_EPILOGUE_GELU_BIAS: return "CUBLASLT_EPILOGUE_GELU_BIAS";
    case CUBLASLT_EPILOGUE_GELU_AUX_BIAS: return "CUBLASLT_EPILOGUE_GELU_AUX_BIAS";
    case CUBLASLT_EPILOGUE_DGELU: return "CUBLASLT_EPILOGUE_DGELU";
    case CUBLASLT_EPILOGUE_BGRADA: return "CUBLASLT_EPILOGUE_BGRADA";
    case CUBLASLT_EPILOGUE_BGRADB: return "CUBLASLT_EPILOGUE_BGRADB";
    case CUBLASLT_EPILOGUE_RELU: return "CUBLASLT_EPILOGUE_RELU";
    case CUBLASLT_EPILOGUE_RELU_BIAS: return "CUBLASLT_EPILOGUE_RELU_BIAS";
    case CUBLASLT_EPILOGUE_DGELU_BGRAD: return "CUBLASLT_EPILOGUE_DGELU_BGRAD";
    default: return "cublasLtEpilogue_t " + std::to_string(e);
  }
}

// Which epilogues the stand-in serves, and what they ask of the kernel.
bool epilogue_served(uint32_t e) {
  return e == CUBLASLT_EPILOGUE_DEFAULT || e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_GELU ||
         e == CUBLASLT_EPILOGUE_GELU_AUX || e == CUBLASLT_EPILOGUE_GELU_BIAS || e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS ||
         e == CUBLASLT_EPILOGUE_DGELU || e == CUBLASLT_EPILOGUE_BGRADA || e == CUBLASLT_EPILOGUE_BGRADB;
}

const char* kLtServed =
    "the lab's cuBLASLt stand-in serves column-major layouts, A/B CUDA_R_32F, CUDA_R_16F or CUDA_R_16BF (alike) with "
    "C = D of that type or CUDA_R_32F, compute CUBLAS_COMPUTE_32F (and its forms), scale CUDA_R_32F, and the "
    "epilogues DEFAULT, BIAS, GELU, GELU_AUX, GELU_BIAS, GELU_AUX_BIAS, DGELU, BGRADA and BGRADB with bias and aux of "
    "D's type; rewrite the call to fit, or run the program on a GPU with --backend cuda";

}  // namespace

extern "C" {

cublasStatus_t CUBLASWINAPI cublasLtCreate(cublasLtHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  // The handle carries nothing: every cublasLtMatmul names its stream.
  *handle = reinterpret_cast<cublasLtHandle_t>(new char(1));
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtDestroy(cublasLtHandle_t handle) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete reinterpret_cast<char*>(handle);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* l, cudaDataType type, uint64_t rows,
                                                       uint64_t cols, int64_t ld) {
  if (!l) return CUBLAS_STATUS_INVALID_VALUE;
  auto* opaque = new cublasLtMatrixLayoutOpaque_t();
  new (opaque) LtLayout{type, rows, cols, ld};
  *l = opaque;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) {
  delete l;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l,
                                                             cublasLtMatrixLayoutAttribute_t attr, const void* buf,
                                                             size_t bytes) {
  const char* call = "cublasLtMatrixLayoutSetAttribute";
  if (!l) return CUBLAS_STATUS_INVALID_VALUE;
  LtLayout& L = layout(l);
  switch (attr) {
    case CUBLASLT_MATRIX_LAYOUT_TYPE: return take(reinterpret_cast<uint32_t*>(&L.type), buf, bytes, call);
    case CUBLASLT_MATRIX_LAYOUT_ORDER: return take(&L.order, buf, bytes, call);
    case CUBLASLT_MATRIX_LAYOUT_ROWS: return take(&L.rows, buf, bytes, call);
    case CUBLASLT_MATRIX_LAYOUT_COLS: return take(&L.cols, buf, bytes, call);
    case CUBLASLT_MATRIX_LAYOUT_LD: return take(&L.ld, buf, bytes, call);
    case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: return take(&L.batch, buf, bytes, call);
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: return take(&L.stride, buf, bytes, call);
    default:
      return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call,
                    "attribute " + std::to_string(int(attr)) + " is not served (the stand-in serves TYPE, ORDER, ROWS, "
                    "COLS, LD, BATCH_COUNT, STRIDED_BATCH_OFFSET)");
  }
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* d, cublasComputeType_t compute,
                                                     cudaDataType_t scale) {
  if (!d) return CUBLAS_STATUS_INVALID_VALUE;
  auto* opaque = new cublasLtMatmulDescOpaque_t();
  LtDesc* D = new (opaque) LtDesc();
  D->compute = compute;
  D->scale = scale;
  *d = opaque;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
  delete d;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr,
                                                           const void* buf, size_t bytes) {
  const char* call = "cublasLtMatmulDescSetAttribute";
  if (!d) return CUBLAS_STATUS_INVALID_VALUE;
  LtDesc& D = desc(d);
  switch (attr) {
    case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: return take(reinterpret_cast<int32_t*>(&D.compute), buf, bytes, call);
    case CUBLASLT_MATMUL_DESC_SCALE_TYPE: return take(reinterpret_cast<int32_t*>(&D.scale), buf, bytes, call);
    case CUBLASLT_MATMUL_DESC_POINTER_MODE: return take(&D.pointer_mode, buf, bytes, call);
    case CUBLASLT_MATMUL_DESC_TRANSA: return take(&D.transa, buf, bytes, call);
    case CUBLASLT_MATMUL_DESC_TRANSB: return take(&D.transb, buf, bytes, call);
    case CUBLASLT_MATMUL_DESC_EPILOGUE: return take(&D.epilogue, buf, bytes, call);
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: return take(&D.bias, buf, bytes, call);
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: return take(&D.bias_type, buf, bytes, call);
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER: return take(&D.aux, buf, bytes, call);
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD: return take(&D.aux_ld, buf, bytes, call);
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE: return take(&D.aux_type, buf, bytes, call);
    default:
      return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call,
                    "attribute " + std::to_string(int(attr)) + " is not served (the stand-in serves COMPUTE_TYPE, "
                    "SCALE_TYPE, POINTER_MODE, TRANSA, TRANSB, EPILOGUE, BIAS_POINTER, BIAS_DATA_TYPE, "
                    "EPILOGUE_AUX_POINTER, EPILOGUE_AUX_LD, EPILOGUE_AUX_DATA_TYPE)");
  }
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* p) {
  if (!p) return CUBLAS_STATUS_INVALID_VALUE;
  *p = new cublasLtMatmulPreferenceOpaque_t();
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p) {
  delete p;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p,
                                                                 cublasLtMatmulPreferenceAttributes_t attr,
                                                                 const void* buf, size_t bytes) {
  // Preferences steer cuBLASLt's choice among its kernels; the stand-in's
  // kernels need no workspace, so any limit is met. Only the value's presence is checked.
  if (!p || !buf || bytes == 0) return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"

namespace {

// A cublasLtMatmul, read into gemm.cpp's Gemm, or refused. `algo_only`: the
// heuristic asks whether the call would be served, launching nothing.
cublasStatus_t lt_gemm(const char* call, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                       cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t dl, lab::cublas::Gemm& g) {
  if (!d || !a || !b || !c || !dl) return refuse(CUBLAS_STATUS_INVALID_VALUE, call, "a descriptor is a null pointer");
  const LtDesc& D = desc(d);
  const LtLayout &A = layout(a), &B = layout(b), &C = layout(c), &Dl = layout(dl);
  for (const LtLayout* l : {&A, &B, &C, &Dl})
    if (l->order != CUBLASLT_ORDER_COL)
      return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, "a layout is not CUBLASLT_ORDER_COL: " + std::string(kLtServed));
  if (D.scale != CUDA_R_32F)
    return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, "scale type is not CUDA_R_32F: " + std::string(kLtServed));
  if (!epilogue_served(D.epilogue))
    return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, epilogue_name(D.epilogue) + ": " + kLtServed);
  if (C.type != Dl.type || C.rows != Dl.rows || C.cols != Dl.cols || C.ld != Dl.ld || C.batch != Dl.batch ||
      C.stride != Dl.stride)
    return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, "the layouts of C and D differ; the stand-in needs them alike");
  if (cublasStatus_t s = lab::cublas::set_types(g, A.type, B.type, Dl.type, D.compute)) return s;
  g.pointer_mode = D.pointer_mode == CUBLASLT_POINTER_MODE_DEVICE ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST;
  if (D.pointer_mode != CUBLASLT_POINTER_MODE_HOST && D.pointer_mode != CUBLASLT_POINTER_MODE_DEVICE)
    return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, "only host or device scalars (CUBLASLT_POINTER_MODE_HOST/_DEVICE)");
  g.transa = cublasOperation_t(D.transa), g.transb = cublasOperation_t(D.transb);
  const bool ta = g.transa != CUBLAS_OP_N, tb = g.transb != CUBLAS_OP_N;
  // D is m x n; op(A) m x k, so A is m x k (N) or k x m (T) as laid out.
  g.m = int(Dl.rows), g.n = int(Dl.cols), g.k = int(ta ? A.rows : A.cols);
  if ((ta ? A.cols : A.rows) != Dl.rows || (tb ? B.rows : B.cols) != Dl.cols || (tb ? B.cols : B.rows) != uint64_t(g.k))
    return refuse(CUBLAS_STATUS_INVALID_VALUE, call,
                  "the layouts' rows and columns do not make op(A) m x k, op(B) k x n and D m x n");
  g.lda = int(A.ld), g.ldb = int(B.ld), g.ldc = int(Dl.ld);
  g.batch = Dl.batch;
  if (A.batch != Dl.batch || B.batch != Dl.batch)
    return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, "A, B and D have different batch counts");
  g.stride_a = A.stride, g.stride_b = B.stride, g.stride_c = Dl.stride;
  const uint32_t e = D.epilogue;
  const int served_type = D.bias_type < 0 ? int(Dl.type) : D.bias_type;
  const bool wants_bias = (e & CUBLASLT_EPILOGUE_BIAS) || e == CUBLASLT_EPILOGUE_BGRADA || e == CUBLASLT_EPILOGUE_BGRADB;
  if (wants_bias && (!D.bias || served_type != int(Dl.type)))
    return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call,
                  epilogue_name(e) + " needs CUBLASLT_MATMUL_DESC_BIAS_POINTER, of D's type: " + kLtServed);
  const bool wants_aux = e == CUBLASLT_EPILOGUE_DGELU || e == CUBLASLT_EPILOGUE_GELU_AUX ||
                         e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  if (wants_aux && (!D.aux || D.aux_ld < int64_t(Dl.rows) || (D.aux_type >= 0 && D.aux_type != int(Dl.type))))
    return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call,
                  epilogue_name(e) + " needs CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER and an AUX_LD of at least D's "
                  "rows, of D's type: " + kLtServed);
  if ((wants_aux || e == CUBLASLT_EPILOGUE_BGRADA || e == CUBLASLT_EPILOGUE_BGRADB) && g.batch > 1)
    return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, epilogue_name(e) + " with a batch count above 1");
  if (e & CUBLASLT_EPILOGUE_BIAS) g.bias = D.bias;
  if (e & CUBLASLT_EPILOGUE_GELU) g.gelu = 1;
  if (e == CUBLASLT_EPILOGUE_DGELU) g.gelu = 2;
  if (wants_aux) g.aux = D.aux, g.ld_aux = D.aux_ld;
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t d,
                                                           cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                                           cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t dl,
                                                           cublasLtMatmulPreference_t pref, int requested,
                                                           cublasLtMatmulHeuristicResult_t results[], int* returned) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (requested <= 0 || !results || !returned) return CUBLAS_STATUS_INVALID_VALUE;
  // One "algorithm": the stand-in's own choice at cublasLtMatmul, when the
  // call is one it serves (else none, and the reason on stderr).
  lab::cublas::Gemm g;
  g.call = "cublasLtMatmulAlgoGetHeuristic";
  *returned = 0;
  if (lt_gemm(g.call, d, a, b, c, dl, g) != CUBLAS_STATUS_SUCCESS) return CUBLAS_STATUS_NOT_SUPPORTED;
  std::memset(&results[0], 0, sizeof results[0]);
  results[0].state = CUBLAS_STATUS_SUCCESS;
  results[0].workspaceSize = 0;
  results[0].wavesCount = 1.f;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t d, const void* alpha,
                                           const void* A, cublasLtMatrixLayout_t a, const void* B,
                                           cublasLtMatrixLayout_t b, const void* beta, const void* C,
                                           cublasLtMatrixLayout_t c, void* D, cublasLtMatrixLayout_t dl,
                                           const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspace_bytes,
                                           cudaStream_t stream) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  lab::cublas::Gemm g;
  g.call = "cublasLtMatmul";
  if (cublasStatus_t s = lt_gemm(g.call, d, a, b, c, dl, g)) return s;
  g.stream = stream;
  g.alpha = alpha, g.beta = beta, g.A = A, g.B = B, g.C = D, g.C_in = C;
  if (cublasStatus_t s = lab::cublas::run_gemm(g)) return s;
  const uint32_t e = desc(d).epilogue;
  if (e == CUBLASLT_EPILOGUE_BGRADA || e == CUBLASLT_EPILOGUE_BGRADB)
    return lab::cublas::run_bias_grad(g, e == CUBLASLT_EPILOGUE_BGRADA, const_cast<void*>(desc(d).bias));
  return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"
