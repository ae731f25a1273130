// lab/cpu/gemm.h: the CPU side of the GEMM progression.
//
// Every version computes C = alpha * A * B + beta * C with row-major
// A (M x K), B (K x N), C (M x N), for any M, N, K >= 1. They live in
// kernels/gemm/cpu_NN_*.cpp (compiled -O3 -march=native into lab_cpu), one
// version per file, beside the GPU kernels they are the analogue of:
//
//   cpu_01_naive        i-j-k: B walked down a column (stride N): one useful
//                       float per 64-byte cache line, like an uncoalesced load
//   cpu_02_reordered    i-k-j: the inner loop streams rows of B and C
//                       (contiguous, vectorisable): the analogue of coalescing
//   cpu_03_blocked      cache tiles of B reused from L1/L2: the analogue of
//                       shared-memory tiling
//   cpu_04_simd_threads packed panels + a 6x16 AVX2/FMA register micro-kernel on
//                       all threads: the analogue of register tiling / tensor cores
//
// OpenBLAS sgemm is the CPU reference a user would pick instead; the float64
// reference is the yardstick for correctness.
#pragma once

#include <string>
#include <vector>

namespace lab::cpu {

using GemmFn = void (*)(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                        float* C, unsigned threads);

void gemm_01_naive(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                   unsigned threads = 1);
void gemm_02_reordered(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                       float* C, unsigned threads = 1);
void gemm_03_blocked(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                     unsigned threads = 1);
// threads == 0: every hardware thread.
void gemm_04_simd_threads(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                          float* C, unsigned threads = 0);
// cblas_sgemm with OpenBLAS limited to `threads` threads (0: OpenBLAS's default).
void gemm_openblas(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                   unsigned threads = 0);

// Float64 reference: C_out = alpha * A * B + beta * C_in, accumulated in double.
// Inputs are the exact floats the kernel saw (for fp16 kernels, the values
// after rounding to half). Used by tests and the bench to judge every version.
std::vector<double> gemm_reference_f64(int M, int N, int K, double alpha, const float* A, const float* B,
                                       double beta, const float* C_in);
// The same for inputs held as double (the lessons' references); C_in may be
// nullptr when beta == 0.
std::vector<double> gemm_reference_f64(int M, int N, int K, double alpha, const double* A, const double* B,
                                       double beta, const double* C_in);

// Largest |got - want| / max(|want|, floor) over all elements; NaN or Inf in
// `got` returns +infinity so that it can never pass a tolerance.
// `floor` keeps near-zero reference values from blowing the ratio up: the
// bench passes the scale of the result (e.g. max |want|).
double max_rel_error(const float* got, const std::vector<double>& want, double floor);

struct CpuGemmVersion {
  std::string name;     // "cpu_01_naive", ... , "openblas"
  GemmFn fn;
  bool threaded;        // honours `threads`
  bool reference;       // OpenBLAS: the row other rows are compared with
};
// The progression in order, then OpenBLAS.
const std::vector<CpuGemmVersion>& cpu_gemm_versions();

}  // namespace lab::cpu
