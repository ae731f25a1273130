// tests/run/cublas_gemm.cu: a program that calls cuBLAS, as programs do, for
// `gpulab run` and the lab's cuBLAS stand-in (lab/cublas, docs/run.md "cuBLAS").
// Every call's result is compared with a float64 computation on the CPU of
// the cuBLAS definition (column-major, C = alpha op(A) op(B) + beta C), each
// printing PASSED or FAILED; the program exits 1 when any failed.
//
// Covered: cublasSgemm NN / TN / NT / TT with lda, ldb, ldc larger than the
// rows, alpha and beta; beta = 0 over a C full of NaN (must not be read); a
// packed NN call (the lab's own GEMM kernel runs it); llm.c's matmul_forward
// and attention shapes; split-K (few tiles over a long k); cublasSgemmStridedBatched; cublasGemmEx with fp16 and
// bf16 inputs; cublasGemmStridedBatchedEx; the refusals (a bad leading
// dimension, an unserved datatype); the handle's stream and status strings.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define CUBLAS_OK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
  std::printf("%s:%d: %s\n", __FILE__, __LINE__, cublasGetStatusName(s_)); std::exit(1); } } while (0)

static int failures = 0;

// Deterministic values in [-1, 1).
static std::vector<float> values(size_t count, unsigned seed) {
  std::vector<float> v(count);
  unsigned s = seed * 2654435761u + 1;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = float((s >> 8) & 0xffff) / 32768.f - 1.f;
  }
  return v;
}

// The cuBLAS definition in float64: op(X)(i, j) of a column-major X.
static double op_at(const std::vector<float>& X, int ld, bool trans, int i, int j) {
  return trans ? double(X[size_t(j) + size_t(i) * ld]) : double(X[size_t(i) + size_t(j) * ld]);
}

static void reference(bool ta, bool tb, int m, int n, int k, double alpha, const std::vector<float>& A, int lda,
                      size_t sa, const std::vector<float>& B, int ldb, size_t sb, double beta, std::vector<double>& C,
                      int ldc, size_t sc, int batch) {
  for (int b = 0; b < batch; ++b) {
    std::vector<float> a(A.begin() + long(b * sa), A.end()), bb(B.begin() + long(b * sb), B.end());
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double s = 0;
        for (int p = 0; p < k; ++p) s += op_at(a, lda, ta, i, p) * op_at(bb, ldb, tb, p, j);
        double& c = C[b * sc + size_t(i) + size_t(j) * ldc];
        c = alpha * s + (beta == 0 ? 0.0 : beta * c);
      }
  }
}

// Compares the m x n matrices of every batch; entries outside them (ldc > m,
// gaps between strides) must be untouched.
template <typename T>
static void compare(const char* what, const std::vector<T>& got, const std::vector<double>& want, int m, int n,
                    int ldc, size_t sc, int batch, const std::vector<double>& before, double tol) {
  double worst = 0;
  bool outside_ok = true, finite = true;
  for (size_t idx = 0; idx < got.size(); ++idx) {
    const double g = double(float(got[idx]));
    const size_t b = sc ? idx / sc : 0, in = sc ? idx % sc : idx;
    const bool inside = b < size_t(batch) && int(in % ldc) < m && int(in / ldc) < n;
    if (!inside) {
      if (!(g == before[idx] || (std::isnan(g) && std::isnan(before[idx])))) outside_ok = false;
      continue;
    }
    if (!std::isfinite(g)) finite = false;
    worst = std::max(worst, std::fabs(g - want[idx]) / (1.0 + std::fabs(want[idx])));
  }
  const bool ok = finite && outside_ok && worst <= tol;
  if (!ok) ++failures;
  std::printf("%-58s %s (max rel err %.2e%s%s)\n", what, ok ? "PASSED" : "FAILED", worst,
              finite ? "" : ", non-finite", outside_ok ? "" : ", wrote outside C");
}

template <typename T>
static T* to_device(const std::vector<T>& h) {
  T* d = nullptr;
  CUDA_OK(cudaMalloc(&d, h.size() * sizeof(T)));
  CUDA_OK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T>
static std::vector<T> to_host(const T* d, size_t count) {
  std::vector<T> h(count);
  CUDA_OK(cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// One Sgemm(StridedBatched) case end to end.
static void sgemm_case(cublasHandle_t h, const char* what, cublasOperation_t opa, cublasOperation_t opb, int m, int n,
                       int k, float alpha, float beta, int lda, int ldb, int ldc, long long sa = 0, long long sb = 0,
                       long long sc = 0, int batch = 0, bool nan_c = false, double tol = 1e-5) {
  const bool ta = opa != CUBLAS_OP_N, tb = opb != CUBLAS_OP_N;
  const int nb = batch ? batch : 1;
  const size_t a_count = size_t(sa) * (nb - 1) + size_t(lda) * (ta ? m : k);
  const size_t b_count = size_t(sb) * (nb - 1) + size_t(ldb) * (tb ? k : n);
  const size_t c_count = size_t(sc) * (nb - 1) + size_t(ldc) * n;
  std::vector<float> A = values(a_count, 1), B = values(b_count, 2), C = values(c_count, 3);
  if (nan_c) C.assign(c_count, NAN);
  float *dA = to_device(A), *dB = to_device(B), *dC = to_device(C);
  if (batch)
    CUBLAS_OK(cublasSgemmStridedBatched(h, opa, opb, m, n, k, &alpha, dA, lda, sa, dB, ldb, sb, &beta, dC, ldc, sc,
                                        batch));
  else
    CUBLAS_OK(cublasSgemm(h, opa, opb, m, n, k, &alpha, dA, lda, dB, ldb, &beta, dC, ldc));
  std::vector<float> got = to_host(dC, c_count);
  std::vector<double> want(C.begin(), C.end()), before(C.begin(), C.end());
  reference(ta, tb, m, n, k, alpha, A, lda, size_t(sa), B, ldb, size_t(sb), beta, want, ldc, size_t(sc), nb);
  compare(what, got, want, m, n, ldc, size_t(sc), nb, before, tol);
  CUDA_OK(cudaFree(dA));
  CUDA_OK(cudaFree(dB));
  CUDA_OK(cudaFree(dC));
}

// cublasGemmEx / cublasGemmStridedBatchedEx with 16-bit inputs (TIn) and C of TOut.
template <typename TIn, typename TOut>
static void gemm_ex_case(cublasHandle_t h, const char* what, cudaDataType tin, cudaDataType tout,
                         cublasOperation_t opa, cublasOperation_t opb, int m, int n, int k, float alpha, float beta,
                         int lda, int ldb, int ldc, long long sa, long long sb, long long sc, int batch, double tol) {
  const bool ta = opa != CUBLAS_OP_N, tb = opb != CUBLAS_OP_N;
  const int nb = batch ? batch : 1;
  const size_t a_count = size_t(sa) * (nb - 1) + size_t(lda) * (ta ? m : k);
  const size_t b_count = size_t(sb) * (nb - 1) + size_t(ldb) * (tb ? k : n);
  const size_t c_count = size_t(sc) * (nb - 1) + size_t(ldc) * n;
  std::vector<float> Af = values(a_count, 4), Bf = values(b_count, 5), Cf = values(c_count, 6);
  std::vector<TIn> A(a_count), B(b_count);
  std::vector<TOut> C(c_count);
  // The reference uses the inputs as the device sees them: rounded to 16 bits.
  for (size_t i = 0; i < a_count; ++i) A[i] = TIn(Af[i]), Af[i] = float(A[i]);
  for (size_t i = 0; i < b_count; ++i) B[i] = TIn(Bf[i]), Bf[i] = float(B[i]);
  for (size_t i = 0; i < c_count; ++i) C[i] = TOut(Cf[i]), Cf[i] = float(C[i]);
  TIn *dA = to_device(A), *dB = to_device(B);
  TOut* dC = to_device(C);
  if (batch)
    CUBLAS_OK(cublasGemmStridedBatchedEx(h, opa, opb, m, n, k, &alpha, dA, tin, lda, sa, dB, tin, ldb, sb, &beta, dC,
                                         tout, ldc, sc, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  else
    CUBLAS_OK(cublasGemmEx(h, opa, opb, m, n, k, &alpha, dA, tin, lda, dB, tin, ldb, &beta, dC, tout, ldc,
                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  std::vector<TOut> got = to_host(dC, c_count);
  std::vector<double> want(Cf.begin(), Cf.end()), before(Cf.begin(), Cf.end());
  reference(ta, tb, m, n, k, alpha, Af, lda, size_t(sa), Bf, ldb, size_t(sb), beta, want, ldc, size_t(sc), nb);
  compare(what, got, want, m, n, ldc, size_t(sc), nb, before, tol);
  CUDA_OK(cudaFree(dA));
  CUDA_OK(cudaFree(dB));
  CUDA_OK(cudaFree(dC));
}

static void expect_status(const char* what, cublasStatus_t got, cublasStatus_t want) {
  const bool ok = got == want;
  if (!ok) ++failures;
  std::printf("%-58s %s (%s)\n", what, ok ? "PASSED" : "FAILED", cublasGetStatusName(got));
}

int main() {
  cublasHandle_t h;
  CUBLAS_OK(cublasCreate(&h));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  CUBLAS_OK(cublasSetStream(h, stream));
  cudaStream_t back = nullptr;
  CUBLAS_OK(cublasGetStream(h, &back));
  expect_status("cublasGetStream returns the stream set", back == stream ? CUBLAS_STATUS_SUCCESS
                                                                         : CUBLAS_STATUS_INTERNAL_ERROR,
                CUBLAS_STATUS_SUCCESS);
  CUBLAS_OK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));

  // 1. Every transpose combination, padded leading dimensions, alpha and beta
  //    (m, n, k not multiples of the 64 x 64 x 16 tiles).
  const int m = 37, n = 45, k = 29;
  sgemm_case(h, "Sgemm NN lda 40 ldb 33 ldc 41, alpha 1.5 beta 0.5", CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, 1.5f, 0.5f, 40,
             33, 41);
  sgemm_case(h, "Sgemm TN lda 31 ldb 30 ldc 39, alpha -0.75 beta 2", CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, -0.75f, 2.f, 31,
             30, 39);
  sgemm_case(h, "Sgemm NT lda 38 ldb 47 ldc 37, alpha 1 beta -1", CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, 1.f, -1.f, 38, 47,
             37);
  sgemm_case(h, "Sgemm TT lda 32 ldb 50 ldc 40, alpha 0.5 beta 0.25", CUBLAS_OP_T, CUBLAS_OP_T, m, n, k, 0.5f, 0.25f, 32,
             50, 40);
  sgemm_case(h, "Sgemm CN (OP_C is OP_T for real data)", CUBLAS_OP_C, CUBLAS_OP_N, m, n, k, 1.f, 0.f, k, k, m);
  // 2. beta = 0: C is not read, so NaN in it must not reach the result.
  sgemm_case(h, "Sgemm TN beta 0 over a C of NaN", CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, 1.f, 0.f, k, k, m, 0, 0, 0, 0,
             true);
  // 3. Packed NN: the lab's own GEMM (kernels/gemm/07_warptile) runs it.
  sgemm_case(h, "Sgemm NN packed 96 x 80 x 64 (lab GEMM)", CUBLAS_OP_N, CUBLAS_OP_N, 96, 80, 64, 1.f, 0.f, 96, 64,
             96);
  sgemm_case(h, "Sgemm NN packed, beta 0 over NaN (lab GEMM)", CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 32, 2.f, 0.f, 64, 32,
             64, 0, 0, 0, 0, true);
  // 4. llm.c's matmul_forward: out (OC x B*T) = weight^T (OC x C) inp (C x B*T).
  {
    const int B = 2, T = 20, C = 48, OC = 3 * C;
    sgemm_case(h, "llm.c matmul_forward: T N OC B*T C", CUBLAS_OP_T, CUBLAS_OP_N, OC, B * T, C, 1.f, 0.f, C, C, OC);
    // matmul_backward: dinp (N N) and dweight (N T, beta 1).
    sgemm_case(h, "llm.c matmul_backward dinp: N N C B*T OC", CUBLAS_OP_N, CUBLAS_OP_N, C, B * T, OC, 1.f, 0.f, C, OC,
               C);
    sgemm_case(h, "llm.c matmul_backward dweight: N T C OC B*T beta 1", CUBLAS_OP_N, CUBLAS_OP_T, C, OC, B * T, 1.f,
               1.f, C, OC, C);
  }
  // 5. llm.c's attention: preatt = k^T q per (batch, head), strided in qkv.
  {
    const int B = 2, NH = 2, T = 24, HS = 16;
    const float scale = 1.f / std::sqrt(float(HS));
    sgemm_case(h, "llm.c attention preatt: T N T T HS, strides T*3*HS", CUBLAS_OP_T, CUBLAS_OP_N, T, T, HS, scale,
               0.f, HS, HS, T, (long long)T * 3 * HS, (long long)T * 3 * HS, (long long)T * T, B * NH);
    sgemm_case(h, "llm.c attention vaccum: N N HS T T, strides", CUBLAS_OP_N, CUBLAS_OP_N, HS, T, T, 1.f, 0.f, HS, T,
               HS, (long long)T * HS, (long long)T * T, (long long)T * HS, B * NH);
    sgemm_case(h, "SgemmStridedBatched NT, ldc 30, gaps between C's", CUBLAS_OP_N, CUBLAS_OP_T, 27, 19, 13, 1.25f,
               -0.5f, 29, 21, 30, 29 * 13 + 5, 21 * 13 + 3, 30 * 19 + 7, 3);
  }
  // 5b. Few tiles over a long k: split-K (slices add into C; beta applied
  //     first, or C left as it is for beta 1). llm.c's lm-head gradient is
  //     dinp = wte (C x Vp) dlogits (Vp x B*T): N N, k = Vp = 50304.
  sgemm_case(h, "split-K: Sgemm N N 64 x 48 x 3000 packed, beta 0 over NaN", CUBLAS_OP_N, CUBLAS_OP_N, 64, 48, 3000,
             1.f, 0.f, 64, 3000, 64, 0, 0, 0, 0, true, 1e-4);
  sgemm_case(h, "split-K: Sgemm T N 40 x 30 x 2048 lda 2051, beta 0.5", CUBLAS_OP_T, CUBLAS_OP_N, 40, 30, 2048, 0.5f,
             0.5f, 2051, 2048, 41, 0, 0, 0, 0, false, 1e-4);
  sgemm_case(h, "split-K: SgemmStridedBatched N T 32 x 24 x 1500, beta 1", CUBLAS_OP_N, CUBLAS_OP_T, 32, 24, 1500, 1.f,
             1.f, 32, 24, 32, 32 * 1500, 24 * 1500, 32 * 24, 2, false, 1e-4);
  // 6. GemmEx: fp16 in, fp32 out (packed NN: the lab's tensor-core GEMM);
  //    bf16 in and out, transposed; strided batched fp16.
  gemm_ex_case<__half, float>(h, "GemmEx fp16->fp32 NN packed 64 x 48 x 32 (lab GEMM)", CUDA_R_16F, CUDA_R_32F,
                              CUBLAS_OP_N, CUBLAS_OP_N, 64, 48, 32, 1.f, 0.5f, 64, 32, 64, 0, 0, 0, 0, 1e-4);
  gemm_ex_case<__half, float>(h, "GemmEx fp16->fp32 TN lda 33", CUDA_R_16F, CUDA_R_32F, CUBLAS_OP_T, CUBLAS_OP_N, 21,
                              17, 30, 1.f, 0.f, 33, 30, 21, 0, 0, 0, 0, 1e-4);
  gemm_ex_case<__nv_bfloat16, __nv_bfloat16>(h, "GemmEx bf16->bf16 NT", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_OP_N,
                                             CUBLAS_OP_T, 26, 35, 24, 1.f, 1.f, 26, 35, 26, 0, 0, 0, 0, 1e-2);
  gemm_ex_case<__half, __half>(h, "GemmStridedBatchedEx fp16->fp16 TN batch 3", CUDA_R_16F, CUDA_R_16F, CUBLAS_OP_T,
                               CUBLAS_OP_N, 18, 22, 16, 1.f, 0.f, 16, 16, 18, 16 * 18, 16 * 22, 18 * 22, 3, 5e-3);

  // 7. A cuBLAS call is kernel work on the device's timeline: events around
  //    it on the handle's stream measure its (predicted) time.
  float one = 1.f, zero = 0.f;
  float* d = nullptr;
  CUDA_OK(cudaMalloc(&d, 64 * 64 * sizeof(float)));
  {
    cudaEvent_t start, end;
    CUDA_OK(cudaEventCreate(&start));
    CUDA_OK(cudaEventCreate(&end));
    CUDA_OK(cudaEventRecord(start, stream));
    CUBLAS_OK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, 64, 32, 64, &one, d, 64, d, 64, &zero, d + 64 * 32, 64));
    CUDA_OK(cudaEventRecord(end, stream));
    CUDA_OK(cudaEventSynchronize(end));
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, start, end));
    expect_status("events around cublasSgemm measure its time", ms > 0 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INTERNAL_ERROR,
                  CUBLAS_STATUS_SUCCESS);
    CUDA_OK(cudaEventDestroy(start));
    CUDA_OK(cudaEventDestroy(end));
  }
  // 7b. CUBLAS_POINTER_MODE_DEVICE: alpha and beta in device memory.
  {
    const float scalars[2] = {2.f, 0.f};
    float* ds = to_device(std::vector<float>(scalars, scalars + 2));
    std::vector<float> A = values(16 * 8, 11), B = values(8 * 12, 12);
    float *dA = to_device(A), *dB = to_device(B), *dC = to_device(std::vector<float>(16 * 12, NAN));
    CUBLAS_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CUBLAS_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 12, 8, ds, dA, 16, dB, 8, ds + 1, dC, 16));
    CUBLAS_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    std::vector<float> got = to_host(dC, 16 * 12);
    std::vector<double> want(16 * 12, 0.0), before(16 * 12, NAN);
    reference(false, false, 16, 12, 8, 2.0, A, 16, 0, B, 8, 0, 0.0, want, 16, 0, 1);
    compare("Sgemm with alpha 2, beta 0 in device memory", got, want, 16, 12, 16, 0, 1, before, 1e-5);
    CUDA_OK(cudaFree(ds));
    CUDA_OK(cudaFree(dA));
    CUDA_OK(cudaFree(dB));
    CUDA_OK(cudaFree(dC));
  }
  // 8. Refusals: cuBLAS's argument rules, and a datatype the stand-in does not serve.
  expect_status("Sgemm lda < m is CUBLAS_STATUS_INVALID_VALUE",
                cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, d, 4, d, 8, &zero, d, 8),
                CUBLAS_STATUS_INVALID_VALUE);
  expect_status("GemmEx CUDA_R_64F is CUBLAS_STATUS_NOT_SUPPORTED",
                cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, d, CUDA_R_64F, 8, d, CUDA_R_64F, 8, &zero, d,
                             CUDA_R_64F, 8, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT),
                CUBLAS_STATUS_NOT_SUPPORTED);
  CUDA_OK(cudaFree(d));
  std::printf("status string: %s / %s\n", cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED),
              cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED));

  CUDA_OK(cudaStreamSynchronize(stream));
  CUBLAS_OK(cublasDestroy(h));
  CUDA_OK(cudaStreamDestroy(stream));
  std::printf(failures ? "%d FAILED\n" : "ALL PASSED\n", failures);
  return failures ? 1 : 0;
}
