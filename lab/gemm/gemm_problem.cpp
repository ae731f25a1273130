#include "lab/gemm/gemm_problem.h"

#include <cmath>
#include <limits>
#include <random>

#include "lab/cpu/gemm.h"
#include "lab/sim/float16.h"
#include "lab/sim/uniform_draw.h"

namespace lab::gemm {

GemmProblem make_gemm_problem(int M, int N, int K, float alpha, float beta, uint32_t seed) {
  GemmProblem p;
  p.M = M; p.N = N; p.K = K; p.alpha = alpha; p.beta = beta;
  std::mt19937 rng(seed);
  auto fill = [&](std::vector<float>& v, size_t n) {
    v.resize(n);
    for (auto& x : v) x = sim::uniform_minus_one_to_one_f32(uint32_t(rng()));
  };
  fill(p.A, size_t(M) * K);
  fill(p.B, size_t(K) * N);
  if (beta == 0.f)
    p.C0.assign(size_t(M) * N, std::numeric_limits<float>::quiet_NaN());
  else
    fill(p.C0, size_t(M) * N);
  auto narrow = [](const std::vector<float>& src, std::vector<uint16_t>& bits) {
    bits.resize(src.size());
    for (size_t i = 0; i < src.size(); ++i) bits[i] = sim::float_to_half(src[i]);
  };
  narrow(p.A, p.A16);
  narrow(p.B, p.B16);
  return p;
}

const std::vector<double>& GemmProblem::reference(Precision p) {
  std::vector<double>& r = p == Precision::Fp16 ? ref16_ : ref32_;
  if (r.empty()) {
    if (p == Precision::Fp16) {
      // The fp16 values widened back to float: the reference uses exactly
      // what the tensor cores multiply. Made here, when a check needs them
      // (a sampled 4096^3 prediction never does: 128 MB not touched).
      auto widen = [](const std::vector<uint16_t>& bits) {
        std::vector<float> wide(bits.size());
        for (size_t i = 0; i < bits.size(); ++i) wide[i] = sim::half_to_float(bits[i]);
        return wide;
      };
      const std::vector<float> a = widen(A16), b = widen(B16);
      r = cpu::gemm_reference_f64(M, N, K, alpha, a.data(), b.data(), beta, C0.data());
    } else {
      r = cpu::gemm_reference_f64(M, N, K, alpha, A.data(), B.data(), beta, C0.data());
    }
  }
  return r;
}

double gemm_tolerance(Precision p, int K) {
  const double s = std::sqrt(double(std::max(K, 1)));
  return p == Precision::Fp16 ? 1e-4 * s + 1e-3 : 1e-5 * s + 1e-6;
}

GemmCheck check_gemm(GemmProblem& problem, Precision p, const float* C) {
  GemmCheck c;
  c.max_rel_error = cpu::max_rel_error(C, problem.reference(p), 1.0);
  c.correct = c.max_rel_error <= gemm_tolerance(p, problem.K);  // NaN/Inf give +inf: never pass
  return c;
}

}  // namespace lab::gemm
