// tests/run/cublaslt_matmul.cu: cuBLASLt as llm.c's train_gpt2.cu calls it
// (descriptor, layouts, preference, heuristic, cublasLtMatmul with bias and
// GELU epilogues), against the lab's cuBLAS stand-in (lab/cublas/lt.cpp).
// Each result is compared with float64 on the CPU; PASSED / FAILED per case,
// exit 1 when any failed.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { auto r_ = (x); if (int(r_) != 0) { \
  std::printf("%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, int(r_)); std::exit(1); } } while (0)

static int failures = 0;

static std::vector<float> values(size_t count, unsigned seed) {
  std::vector<float> v(count);
  unsigned s = seed * 2654435761u + 7;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = float((s >> 8) & 0xffff) / 32768.f - 1.f;
  }
  return v;
}

static double gelu(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x))); }
static double gelu_grad(double x) {
  const double s = 0.7978845608, t = std::tanh(s * (x + 0.044715 * x * x * x));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * s * (1 + 3 * 0.044715 * x * x);
}

static void verdict(const char* what, double worst, double tol) {
  const bool ok = std::isfinite(worst) && worst <= tol;
  if (!ok) ++failures;
  std::printf("%-52s %s (max rel err %.2e)\n", what, ok ? "PASSED" : "FAILED", worst);
}

static double rel(double got, double want) { return std::fabs(got - want) / (1 + std::fabs(want)); }

template <typename T>
static T* upload(const std::vector<float>& h) {
  std::vector<T> t(h.begin(), h.end());
  T* d = nullptr;
  CHECK(cudaMalloc(&d, t.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, t.data(), t.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <typename T>
static std::vector<double> download(const T* d, size_t n) {
  std::vector<T> t(n);
  CHECK(cudaMemcpy(t.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return std::vector<double>(t.begin(), t.end());
}

// One matmul the way llm.c's matmul_cublaslt makes it: D (m x n) = op(A) op(B)
// (+ D when accumulating), with the epilogue and its pointers.
template <typename T>
static cublasStatus_t matmul(cublasLtHandle_t lt, cudaDataType type, T* d, const T* a, const T* b, T* bias, int m,
                             int n, int k, bool ta, bool tb, bool accumulate, cublasLtEpilogue_t epilogue, T* aux,
                             int batch = 0, long long sa = 0, long long sb = 0, long long sd = 0) {
  cublasLtMatmulDesc_t desc;
  CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t opn = CUBLAS_OP_N, opt = CUBLAS_OP_T;
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, ta ? &opt : &opn, sizeof opn));
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, tb ? &opt : &opn, sizeof opn));
  cublasLtMatrixLayout_t A, B, C, D;
  CHECK(ta ? cublasLtMatrixLayoutCreate(&A, type, k, m, k) : cublasLtMatrixLayoutCreate(&A, type, m, k, m));
  CHECK(tb ? cublasLtMatrixLayoutCreate(&B, type, n, k, n) : cublasLtMatrixLayoutCreate(&B, type, k, n, k));
  CHECK(cublasLtMatrixLayoutCreate(&C, type, m, n, m));
  CHECK(cublasLtMatrixLayoutCreate(&D, type, m, n, m));
  if (batch) {
    for (auto l : {A, B, C, D}) CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
    CHECK(cublasLtMatrixLayoutSetAttribute(A, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sa, sizeof sa));
    CHECK(cublasLtMatrixLayoutSetAttribute(B, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sb, sizeof sb));
    CHECK(cublasLtMatrixLayoutSetAttribute(C, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sd, sizeof sd));
    CHECK(cublasLtMatrixLayoutSetAttribute(D, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sd, sizeof sd));
  }
  cublasLtMatmulPreference_t pref;
  CHECK(cublasLtMatmulPreferenceCreate(&pref));
  size_t workspace = 32 << 20;
  CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace));
  if (aux) {
    int64_t ld = m;
    CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof ld));
    CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux));
  }
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
  if (bias) {
    cudaDataType bias_type = type;
    CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type));
    CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  }
  cublasLtMatmulHeuristicResult_t heuristic;
  int returned = 0;
  cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(lt, desc, A, B, C, D, pref, 1, &heuristic, &returned);
  const float alpha = 1.f, beta = accumulate ? 1.f : 0.f;
  if (s == CUBLAS_STATUS_SUCCESS && returned == 1)
    s = cublasLtMatmul(lt, desc, &alpha, a, A, b, B, &beta, d, C, d, D, &heuristic.algo, nullptr, 0, 0);
  else if (s == CUBLAS_STATUS_SUCCESS)
    s = CUBLAS_STATUS_NOT_SUPPORTED;
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatmulDescDestroy(desc);
  for (auto l : {A, B, C, D}) cublasLtMatrixLayoutDestroy(l);
  return s;
}

// op(X)(i, p) of a column-major X with ld rows.
static double at(const std::vector<float>& X, int ld, bool t, int i, int p) {
  return t ? X[size_t(p) + size_t(i) * ld] : X[size_t(i) + size_t(p) * ld];
}

int main() {
  cublasLtHandle_t lt;
  CHECK(cublasLtCreate(&lt));
  // llm.c's matmul_forward: out (OC x B*T) = weight^T inp + bias, then GELU
  // with its input kept (GELU_AUX_BIAS); sizes not multiples of the tiles.
  const int C = 40, OC = 72, BT = 36;
  std::vector<float> w = values(size_t(C) * OC, 1), inp = values(size_t(C) * BT, 2), bias = values(OC, 3);
  std::vector<double> ref(size_t(OC) * BT);
  for (int j = 0; j < BT; ++j)
    for (int i = 0; i < OC; ++i) {
      double s = 0;
      for (int p = 0; p < C; ++p) s += at(w, C, true, i, p) * at(inp, C, false, p, j);
      ref[i + size_t(j) * OC] = s;
    }
  float *dw = upload<float>(w), *dinp = upload<float>(inp), *dbias = upload<float>(bias);
  float *dout = upload<float>(std::vector<float>(size_t(OC) * BT, NAN)), *daux = upload<float>(std::vector<float>(size_t(OC) * BT));
  {
    CHECK(matmul<float>(lt, CUDA_R_32F, dout, dw, dinp, nullptr, OC, BT, C, true, false, false, CUBLASLT_EPILOGUE_DEFAULT, nullptr));
    std::vector<double> got = download(dout, ref.size());
    double worst = 0;
    for (size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, rel(got[i], ref[i]));
    verdict("Lt fp32 T N DEFAULT (D over NaN, beta 0)", worst, 1e-5);
  }
  {
    CHECK(matmul<float>(lt, CUDA_R_32F, dout, dw, dinp, dbias, OC, BT, C, true, false, false, CUBLASLT_EPILOGUE_BIAS, nullptr));
    std::vector<double> got = download(dout, ref.size());
    double worst = 0;
    for (size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, rel(got[i], ref[i] + bias[i % OC]));
    verdict("Lt fp32 T N BIAS", worst, 1e-5);
  }
  {
    CHECK(matmul<float>(lt, CUDA_R_32F, dout, dw, dinp, dbias, OC, BT, C, true, false, false,
                        CUBLASLT_EPILOGUE_GELU_AUX_BIAS, daux));
    std::vector<double> got = download(dout, ref.size()), pre = download(daux, ref.size());
    double worst = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      const double x = ref[i] + bias[i % OC];
      worst = std::max({worst, rel(got[i], gelu(x)), rel(pre[i], x)});
    }
    verdict("Lt fp32 T N GELU_AUX_BIAS (D and aux)", worst, 1e-5);
  }
  {
    // matmul_backward with the GELU fusion: dinp (C x B*T) = weight dout, times gelu'(pre).
    std::vector<float> dout_h = values(size_t(C) * BT, 4), pre_h = values(size_t(C) * BT, 5), w2 = values(size_t(C) * C, 6);
    float *dd = upload<float>(dout_h), *dpre = upload<float>(pre_h), *dw2 = upload<float>(w2);
    float* dres = upload<float>(std::vector<float>(size_t(C) * BT));
    CHECK(matmul<float>(lt, CUDA_R_32F, dres, dw2, dd, nullptr, C, BT, C, false, false, false, CUBLASLT_EPILOGUE_DGELU, dpre));
    std::vector<double> got = download(dres, size_t(C) * BT);
    double worst = 0;
    for (int j = 0; j < BT; ++j)
      for (int i = 0; i < C; ++i) {
        double s = 0;
        for (int p = 0; p < C; ++p) s += at(w2, C, false, i, p) * at(dout_h, C, false, p, j);
        worst = std::max(worst, rel(got[i + size_t(j) * C], s * gelu_grad(pre_h[i + size_t(j) * C])));
      }
    verdict("Lt fp32 N N DGELU", worst, 1e-5);
  }
  {
    // dweight (C x OC) += inp dout^T, and dbias (OC) = dout summed over B*T (BGRADB).
    std::vector<float> go = values(size_t(OC) * BT, 7), dw0 = values(size_t(C) * OC, 8);
    float *dgo = upload<float>(go), *ddw = upload<float>(dw0), *ddb = upload<float>(std::vector<float>(OC, NAN));
    CHECK(matmul<float>(lt, CUDA_R_32F, ddw, dinp, dgo, ddb, C, OC, BT, false, true, true, CUBLASLT_EPILOGUE_BGRADB, nullptr));
    std::vector<double> got = download(ddw, size_t(C) * OC), gb = download(ddb, OC);
    double worst = 0;
    for (int j = 0; j < OC; ++j) {
      for (int i = 0; i < C; ++i) {
        double s = dw0[i + size_t(j) * C];
        for (int p = 0; p < BT; ++p) s += at(inp, C, false, i, p) * at(go, OC, true, p, j);
        worst = std::max(worst, rel(got[i + size_t(j) * C], s));
      }
      double b = 0;
      for (int p = 0; p < BT; ++p) b += at(go, OC, true, p, j);
      worst = std::max(worst, rel(gb[j], b));
    }
    verdict("Lt fp32 N T BGRADB, accumulate (dweight, dbias)", worst, 1e-5);
  }
  {
    // bf16 as llm.c builds it: forward with bias, bf16 in and out.
    __nv_bfloat16 *bw = upload<__nv_bfloat16>(w), *binp = upload<__nv_bfloat16>(inp), *bb = upload<__nv_bfloat16>(bias);
    __nv_bfloat16* bout = upload<__nv_bfloat16>(std::vector<float>(size_t(OC) * BT));
    CHECK(matmul<__nv_bfloat16>(lt, CUDA_R_16BF, bout, bw, binp, bb, OC, BT, C, true, false, false, CUBLASLT_EPILOGUE_BIAS, nullptr));
    std::vector<double> got = download(bout, ref.size());
    // The reference from the bf16-rounded inputs.
    std::vector<float> wr(w.size()), ir(inp.size());
    for (size_t i = 0; i < w.size(); ++i) wr[i] = float(__nv_bfloat16(w[i]));
    for (size_t i = 0; i < inp.size(); ++i) ir[i] = float(__nv_bfloat16(inp[i]));
    double worst = 0;
    for (int j = 0; j < BT; ++j)
      for (int i = 0; i < OC; ++i) {
        double s = float(__nv_bfloat16(bias[i]));
        for (int p = 0; p < C; ++p) s += at(wr, C, true, i, p) * at(ir, C, false, p, j);
        worst = std::max(worst, rel(got[i + size_t(j) * OC], s));
      }
    verdict("Lt bf16 T N BIAS", worst, 1e-2);
  }
  {
    // Strided batched (llm.c's attention without cuDNN): preatt = k^T q per head.
    const int T = 20, HS = 12, NH = 3;
    std::vector<float> qkv = values(size_t(NH) * T * 3 * HS, 9);
    float *dq = upload<float>(qkv), *dp = upload<float>(std::vector<float>(size_t(NH) * T * T));
    CHECK(matmul<float>(lt, CUDA_R_32F, dp, dq + HS, dq, nullptr, T, T, HS, true, false, false, CUBLASLT_EPILOGUE_DEFAULT,
                        nullptr, NH, (long long)T * 3 * HS, (long long)T * 3 * HS, (long long)T * T));
    std::vector<double> got = download(dp, size_t(NH) * T * T);
    double worst = 0;
    for (int h = 0; h < NH; ++h)
      for (int j = 0; j < T; ++j)
        for (int i = 0; i < T; ++i) {
          // A = k (lda would be 3 HS in llm.c; here the layout's ld is k = HS rows of a T x 3HS block: HS apart)
          double s = 0;
          for (int p = 0; p < HS; ++p)
            s += double(qkv[size_t(h) * T * 3 * HS + HS + p + size_t(i) * HS]) * qkv[size_t(h) * T * 3 * HS + p + size_t(j) * HS];
          worst = std::max(worst, rel(got[size_t(h) * T * T + i + size_t(j) * T], s));
        }
    verdict("Lt fp32 T N strided batch 3", worst, 1e-5);
  }
  {
    // A ReLU epilogue is not served: the heuristic finds no algorithm, says why.
    const cublasStatus_t s = matmul<float>(lt, CUDA_R_32F, dout, dw, dinp, dbias, OC, BT, C, true, false, false,
                                           CUBLASLT_EPILOGUE_RELU_BIAS, nullptr);
    const bool ok = s == CUBLAS_STATUS_NOT_SUPPORTED;
    if (!ok) ++failures;
    std::printf("%-52s %s\n", "Lt RELU_BIAS is CUBLAS_STATUS_NOT_SUPPORTED", ok ? "PASSED" : "FAILED");
  }
  CHECK(cublasLtDestroy(lt));
  std::printf(failures ? "%d FAILED\n" : "ALL PASSED\n", failures);
  return failures ? 1 : 0;
}
