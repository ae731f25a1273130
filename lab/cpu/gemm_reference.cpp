// lab/cpu/gemm_reference.cpp: the float64 reference, OpenBLAS, the error
// measure and the version list.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "lab/cpu/gemm.h"

namespace lab::cpu {

namespace {
// One reference for float and double inputs (the lessons hold theirs as double).
// Rows are shared out among the host's cores: a 4096^3 check is 69 G
// multiply-adds in double, minutes on one core. Each row is summed in the
// same order whatever the split, so the result does not depend on it.
template <class T>
std::vector<double> reference(int M, int N, int K, double alpha, const T* A, const T* B, double beta, const T* C_in) {
  std::vector<double> out(size_t(M) * N);
  auto rows = [&](int first, int last) {
    std::vector<double> row(N);
    for (int i = first; i < last; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int k = 0; k < K; ++k) {  // i-k-j: contiguous, and still exact-ish in double
        double a = A[size_t(i) * K + k];
        const T* b = B + size_t(k) * N;
        for (int j = 0; j < N; ++j) row[j] += a * double(b[j]);
      }
      for (int j = 0; j < N; ++j) {
        double c = beta == 0.0 ? 0.0 : beta * double(C_in[size_t(i) * N + j]);
        out[size_t(i) * N + j] = alpha * row[j] + c;
      }
    }
  };
  // Small problems (every lesson check) stay on the calling thread.
  const double work = double(M) * N * K;
  const int workers = work < 64.0 * 1024 * 1024 ? 1 : int(std::max(1u, std::thread::hardware_concurrency()));
  if (workers == 1) {
    rows(0, M);
    return out;
  }
  std::vector<std::thread> pool;
  const int chunk = (M + workers - 1) / workers;
  for (int w = 0; w < workers; ++w)
    if (w * chunk < M) pool.emplace_back(rows, w * chunk, std::min(M, (w + 1) * chunk));
  for (auto& t : pool) t.join();
  return out;
}
}  // namespace

std::vector<double> gemm_reference_f64(int M, int N, int K, double alpha, const float* A, const float* B,
                                       double beta, const float* C_in) {
  return reference(M, N, K, alpha, A, B, beta, C_in);
}

std::vector<double> gemm_reference_f64(int M, int N, int K, double alpha, const double* A, const double* B,
                                       double beta, const double* C_in) {
  return reference(M, N, K, alpha, A, B, beta, C_in);
}

double max_rel_error(const float* got, const std::vector<double>& want, double floor) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double g = got[i];
    if (!std::isfinite(g)) return std::numeric_limits<double>::infinity();
    double e = std::abs(g - want[i]) / std::max(std::abs(want[i]), floor);
    worst = std::max(worst, e);
  }
  return worst;
}

void gemm_openblas(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                   unsigned threads) {
  if (threads) openblas_set_num_threads(int(threads));
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, A, K, B, N, beta, C, N);
}

const std::vector<CpuGemmVersion>& cpu_gemm_versions() {
  static const std::vector<CpuGemmVersion> v = {
      {"cpu_01_naive", gemm_01_naive, false, false},
      {"cpu_02_reordered", gemm_02_reordered, false, false},
      {"cpu_03_blocked", gemm_03_blocked, false, false},
      {"cpu_04_simd_threads", gemm_04_simd_threads, true, false},
      {"openblas", gemm_openblas, true, true},
  };
  return v;
}

}  // namespace lab::cpu
