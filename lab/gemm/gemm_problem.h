// lab/gemm/gemm_problem.h: one GEMM problem (inputs, the float64 reference)
// and the correctness rule every version is judged by.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lab/gemm/gemm_registry.h"

namespace lab::gemm {

struct GemmProblem {
  int M = 0, N = 0, K = 0;
  float alpha = 1.f, beta = 0.f;
  std::vector<float> A, B;             // fp32 inputs, uniform in [-1, 1]
  std::vector<uint16_t> A16, B16;      // the same rounded to fp16 (bits)
  std::vector<float> C0;               // C before the call (used when beta != 0)
  // References, computed on first use: alpha*A*B + beta*C0 in float64.
  const std::vector<double>& reference(Precision p);

  std::vector<double> ref32_, ref16_;
};

// Random inputs with a fixed seed (the same problem every run). With beta == 0,
// C0 is all NaN: a kernel that reads C when beta == 0, or leaves an element
// unwritten, fails the check.
GemmProblem make_gemm_problem(int M, int N, int K, float alpha = 1.f, float beta = 0.f, uint32_t seed = 1);

// Tolerance on max relative error (error / max(|ref|, 1), inputs in [-1, 1]):
// fp32 accumulation error grows like sqrt(K) * 2^-24 per element in practice;
// fp16 inputs are exact in the reference (it uses the rounded values), but
// tensor cores may accumulate with less care, so fp16 is looser.
double gemm_tolerance(Precision p, int K);

struct GemmCheck {
  bool correct = false;
  double max_rel_error = 0;  // +inf when any element is NaN/Inf
};
GemmCheck check_gemm(GemmProblem& problem, Precision p, const float* C);

}  // namespace lab::gemm
