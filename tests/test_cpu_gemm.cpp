// tests/test_cpu_gemm.cpp: every CPU GEMM version against the float64
// reference at odd sizes (edges that are not multiples of any tile), with C
// poisoned with NaN when beta == 0 (unwritten elements must fail) and a
// random C when beta != 0 (beta must be applied exactly once).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "lab/cpu/gemm.h"
#include "lab/cpu/timer.h"

using namespace lab::cpu;

namespace {
std::vector<float> random_matrix(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

struct Shape { int m, n, k; };
const Shape kShapes[] = {{1, 1, 1}, {17, 33, 65}, {128, 96, 40}, {7, 300, 5}, {301, 9, 259}, {130, 140, 513}};

double check(const CpuGemmVersion& v, Shape s, float alpha, float beta, unsigned threads) {
  auto A = random_matrix(size_t(s.m) * s.k, 1), B = random_matrix(size_t(s.k) * s.n, 2);
  std::vector<float> C = beta == 0.f ? std::vector<float>(size_t(s.m) * s.n, std::numeric_limits<float>::quiet_NaN())
                                     : random_matrix(size_t(s.m) * s.n, 3);
  auto want = gemm_reference_f64(s.m, s.n, s.k, alpha, A.data(), B.data(), beta, C.data());
  v.fn(s.m, s.n, s.k, alpha, A.data(), B.data(), beta, C.data(), threads);
  return max_rel_error(C.data(), want, 1.0);
}
}  // namespace

TEST_CASE("every CPU version matches the float64 reference at odd sizes") {
  for (const auto& v : cpu_gemm_versions())
    for (Shape s : kShapes)
      for (unsigned threads : {1u, 2u, 3u}) {
        if (!v.threaded && threads != 1) continue;
        CAPTURE(v.name); CAPTURE(s.m); CAPTURE(s.n); CAPTURE(s.k); CAPTURE(threads);
        // fp32 accumulation of K products of values in [-1, 1]: error grows ~sqrt(K) * eps.
        const double tol = 1e-6 * std::sqrt(double(s.k)) * 8;
        CHECK(check(v, s, 1.f, 0.f, threads) < tol);
        CHECK(check(v, s, 0.5f, -1.5f, threads) < tol);
      }
}

TEST_CASE("max_rel_error never lets NaN or Inf pass") {
  std::vector<double> want = {1.0, 2.0};
  float nan_c[] = {1.f, std::numeric_limits<float>::quiet_NaN()};
  float inf_c[] = {std::numeric_limits<float>::infinity(), 2.f};
  float ok_c[] = {1.f, 2.f};
  CHECK(std::isinf(max_rel_error(nan_c, want, 1.0)));
  CHECK(std::isinf(max_rel_error(inf_c, want, 1.0)));
  CHECK(max_rel_error(ok_c, want, 1.0) == 0.0);
}

TEST_CASE("a version that skips an element fails the check") {
  // Guard against a check that cannot fail: drop one element of a correct result.
  const int m = 17, n = 33, k = 65;
  auto A = random_matrix(m * k, 1), B = random_matrix(k * n, 2);
  std::vector<float> C(m * n, std::numeric_limits<float>::quiet_NaN());
  auto want = gemm_reference_f64(m, n, k, 1.0, A.data(), B.data(), 0.0, C.data());
  gemm_02_reordered(m, n, k, 1.f, A.data(), B.data(), 0.f, C.data());
  CHECK(max_rel_error(C.data(), want, 1.0) < 1e-5);
  C[m * n - 1] = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isinf(max_rel_error(C.data(), want, 1.0)));
}

TEST_CASE("time_median reports the median of its samples") {
  int calls = 0, prepared = 0;
  TimingOptions o;
  o.warmup = 2; o.min_repeats = 5; o.max_repeats = 5; o.min_total_seconds = 0;
  Timing t = time_median([&] { ++calls; }, o, [&] { ++prepared; });
  CHECK(calls == 7);
  CHECK(prepared == 7);
  CHECK(t.repeats == 5);
  CHECK(t.min_ms <= t.median_ms);
  CHECK(t.median_ms <= t.max_ms);
}
