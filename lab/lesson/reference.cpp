// lab/lesson/reference.cpp: float64 CPU references, one short function each.
#include "lab/lesson/reference.h"

#include <algorithm>
#include <cmath>

#include "lab/cpu/gemm.h"

namespace lab::lesson {
namespace {

int64_t dim(const ReferenceArgs& a, const char* n) { return a.sizes.at(n); }

// out = s0 * in0 + in1 (vector or matrix alike: element by element).
void axpy(const ReferenceArgs& a) {
  auto& x = *a.in[0];
  auto& y = *a.in[1];
  auto& out = *a.out[0];
  for (size_t i = 0; i < out.size(); ++i) out[i] = a.scalars[0] * x[i] + y[i];
}

void vector_add(const ReferenceArgs& a) {
  auto& out = *a.out[0];
  for (size_t i = 0; i < out.size(); ++i) out[i] = (*a.in[0])[i] + (*a.in[1])[i];
}

// C[M][N] = alpha * A[M][K] * B[K][N] with beta = 0: the GEMM progression's
// signature (M, N, K, alpha, A, B, beta, C). C is an output only, so beta must
// be 0 (the manifest's args say so). The float64 GEMM is lab/cpu's, the one
// the bench and tests judge every version with.
void sgemm(const ReferenceArgs& a) {
  auto C = cpu::gemm_reference_f64(int(dim(a, "M")), int(dim(a, "N")), int(dim(a, "K")), a.scalars.at(0),
                                   a.in[0]->data(), a.in[1]->data(), 0.0, nullptr);
  std::copy(C.begin(), C.end(), a.out[0]->begin());
}

// C[M][N] = A[M][K] * B[K][N], all row-major.
void gemm(const ReferenceArgs& a) {
  auto C = cpu::gemm_reference_f64(int(dim(a, "M")), int(dim(a, "N")), int(dim(a, "K")), 1.0, a.in[0]->data(),
                                   a.in[1]->data(), 0.0, nullptr);
  std::copy(C.begin(), C.end(), a.out[0]->begin());
}

// out[N][M] = in[M][N]^T
void transpose(const ReferenceArgs& a) {
  int64_t M = dim(a, "M"), N = dim(a, "N");
  auto& in = *a.in[0];
  auto& out = *a.out[0];
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) out[j * M + i] = in[i * N + j];
}

// Y[M][N] = relu(X[M][N] + b[N])
void bias_relu(const ReferenceArgs& a) {
  int64_t M = dim(a, "M"), N = dim(a, "N");
  auto& X = *a.in[0];
  auto& b = *a.in[1];
  auto& Y = *a.out[0];
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) Y[i * N + j] = std::max(0.0, X[i * N + j] + b[j]);
}

// Y[M][N] = gelu(X[M][N] + b[N]), the tanh approximation GPT-2 uses:
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (Hendrycks & Gimpel 2016, eq. 2).
void bias_gelu(const ReferenceArgs& a) {
  int64_t M = dim(a, "M"), N = dim(a, "N");
  auto& X = *a.in[0];
  auto& b = *a.in[1];
  auto& Y = *a.out[0];
  const double c = std::sqrt(2.0 / M_PI);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double x = X[i * N + j] + b[j];
      Y[i * N + j] = 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
    }
}

// Y[M][N] = softmax of each row of X[M][N] (max subtracted, as kernels do).
void softmax_rows(const ReferenceArgs& a) {
  int64_t M = dim(a, "M"), N = dim(a, "N");
  auto& X = *a.in[0];
  auto& Y = *a.out[0];
  for (int64_t i = 0; i < M; ++i) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < N; ++j) mx = std::max(mx, X[i * N + j]);
    for (int64_t j = 0; j < N; ++j) sum += std::exp(X[i * N + j] - mx);
    for (int64_t j = 0; j < N; ++j) Y[i * N + j] = std::exp(X[i * N + j] - mx) / sum;
  }
}

// y[i] = sum of x[i]'s polynomial 1 + x + x^2 + ... of degree d[i] (lesson 2:
// work that depends on the data, so lanes of one warp loop different counts).
void poly_by_degree(const ReferenceArgs& a) {
  auto& x = *a.in[0];
  auto& d = *a.in[1];
  auto& y = *a.out[0];
  for (size_t i = 0; i < y.size(); ++i) {
    double s = 0, p = 1;
    int n = static_cast<int>(d[i]);
    for (int k = 0; k <= n; ++k, p *= x[i]) s += p;
    y[i] = s;
  }
}

// y[M] = the sum of each row of X[M][N] (lesson 9's block reduction).
void row_sum(const ReferenceArgs& a) {
  int64_t M = dim(a, "M"), N = dim(a, "N");
  auto& X = *a.in[0];
  auto& y = *a.out[0];
  for (int64_t i = 0; i < M; ++i) {
    double s = 0;
    for (int64_t j = 0; j < N; ++j) s += X[i * N + j];
    y[i] = s;
  }
}

// Y[M][N] = the inclusive prefix sum of each row of X[M][N].
void scan_rows(const ReferenceArgs& a) {
  int64_t M = dim(a, "M"), N = dim(a, "N");
  auto& X = *a.in[0];
  auto& Y = *a.out[0];
  for (int64_t i = 0; i < M; ++i) {
    double s = 0;
    for (int64_t j = 0; j < N; ++j) Y[i * N + j] = s += X[i * N + j];
  }
}

// hist[b] += the number of x[i] equal to b (an inout histogram: a kernel
// adds its counts to what the buffer holds, as atomics accumulate).
void histogram(const ReferenceArgs& a) {
  auto& x = *a.in[0];
  auto& hist = *a.out[0];
  for (double v : x) {
    const auto b = static_cast<int64_t>(v);
    if (b >= 0 && b < int64_t(hist.size())) hist[size_t(b)] += 1;
  }
}

// AdamW (Loshchilov & Hutter 2019, Algorithm 2) on n parameters, args
// (n, p, g, m, v, lr, beta1, beta2, eps, wd, c1, c2) with p, m, v updated in
// place; c1, c2 = 1 / (1 - beta^t) are the bias corrections for step t.
void adamw(const ReferenceArgs& a) {
  const auto& g = *a.in[1];
  auto& p = *a.out[0];
  auto& m = *a.out[1];
  auto& v = *a.out[2];
  const double lr = a.scalars[0], b1 = a.scalars[1], b2 = a.scalars[2], eps = a.scalars[3], wd = a.scalars[4],
               c1 = a.scalars[5], c2 = a.scalars[6];
  for (size_t i = 0; i < p.size(); ++i) {
    m[i] = b1 * m[i] + (1 - b1) * g[i];
    v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
    p[i] -= lr * (m[i] * c1 / (std::sqrt(v[i] * c2) + eps) + wd * p[i]);
  }
}

// db[N] = the column sums of dY[M][N], added to db when accumulating
// (lesson 10: the bias gradient; gradient accumulation adds each
// micro-batch's to the ones before). Sizes are positive, so the manifest
// passes the flag as adds = 1 + accumulate.
void col_sum(const ReferenceArgs& a) {
  const int64_t M = dim(a, "M"), N = dim(a, "N");
  const bool accumulate = dim(a, "adds") > 1;
  auto& dY = *a.in[0];
  auto& db = *a.out[0];
  for (int64_t j = 0; j < N; ++j) {
    double s = accumulate ? db[size_t(j)] : 0.0;
    for (int64_t i = 0; i < M; ++i) s += dY[size_t(i * N + j)];
    db[size_t(j)] = s;
  }
}

// Y[N][K][H][W] = the 3x3 convolution (cross-correlation, as deep learning
// frameworks define it) of X[N][C][H][W] with F[K][C][3][3], stride 1, zero
// padding 1 (lesson 12): NCHW, the output the same size as the input.
void conv3x3(const ReferenceArgs& a) {
  const int64_t N = dim(a, "N"), C = dim(a, "C"), H = dim(a, "H"), W = dim(a, "W"), K = dim(a, "K");
  auto& X = *a.in[0];
  auto& F = *a.in[1];
  auto& Y = *a.out[0];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t p = 0; p < H; ++p)
        for (int64_t q = 0; q < W; ++q) {
          double acc = 0;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t r = 0; r < 3; ++r)
              for (int64_t s = 0; s < 3; ++s) {
                const int64_t ih = p + r - 1, iw = q + s - 1;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                acc += F[size_t(((k * C + c) * 3 + r) * 3 + s)] * X[size_t(((n * C + c) * H + ih) * W + iw)];
              }
          Y[size_t(((n * K + k) * H + p) * W + q)] = acc;
        }
}

// O[BH][L][64] = softmax(Q K^T / sqrt(64)) V for each of BH heads of Q, K,
// V [BH][L][64] (lesson 13: scaled dot-product attention, Vaswani et al. 2017,
// eq. 1, without a mask).
void attention(const ReferenceArgs& a) {
  const int64_t BH = dim(a, "BH"), L = dim(a, "L"), D = 64;
  auto& Q = *a.in[0];
  auto& K = *a.in[1];
  auto& V = *a.in[2];
  auto& O = *a.out[0];
  std::vector<double> s(static_cast<size_t>(L));
  for (int64_t h = 0; h < BH; ++h)
    for (int64_t i = 0; i < L; ++i) {
      const size_t qi = size_t((h * L + i) * D);
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < L; ++j) {
        const size_t kj = size_t((h * L + j) * D);
        double dot = 0;
        for (int64_t c = 0; c < D; ++c) dot += Q[qi + size_t(c)] * K[kj + size_t(c)];
        s[size_t(j)] = dot / std::sqrt(double(D));
        mx = std::max(mx, s[size_t(j)]);
      }
      for (int64_t j = 0; j < L; ++j) sum += s[size_t(j)] = std::exp(s[size_t(j)] - mx);
      for (int64_t c = 0; c < D; ++c) {
        double o = 0;
        for (int64_t j = 0; j < L; ++j) o += s[size_t(j)] * V[size_t((h * L + j) * D + c)];
        O[qi + size_t(c)] = o / sum;
      }
    }
}

const std::vector<Reference>& table() {
  static const std::vector<Reference> t = {
      {"vector_add", "C = A + B, element by element", 2, 1, 0, {}, vector_add},
      {"axpy", "Y = a*X + B, element by element", 2, 1, 1, {}, axpy},
      {"gemm", "C[M][N] = A[M][K] * B[K][N], row-major", 2, 1, 0, {"M", "N", "K"}, gemm},
      {"sgemm", "C[M][N] = alpha * A[M][K] * B[K][N] (beta = 0), args (M, N, K, alpha, A, B, beta, C)", 2, 1, 2,
       {"M", "N", "K"}, sgemm},
      {"transpose", "out[N][M] = in[M][N] transposed", 1, 1, 0, {"M", "N"}, transpose},
      {"bias_relu", "Y[M][N] = relu(X[M][N] + b[N])", 2, 1, 0, {"M", "N"}, bias_relu},
      {"bias_gelu", "Y[M][N] = gelu_tanh(X[M][N] + b[N])", 2, 1, 0, {"M", "N"}, bias_gelu},
      {"softmax_rows", "Y[M][N] = softmax over each row of X[M][N]", 1, 1, 0, {"M", "N"}, softmax_rows},
      {"row_sum", "y[M] = sum over each row of X[M][N]", 1, 1, 0, {"M", "N"}, row_sum},
      {"scan_rows", "Y[M][N] = inclusive prefix sum of each row of X[M][N]", 1, 1, 0, {"M", "N"}, scan_rows},
      {"histogram", "hist[B] += counts of each value b in x (args: in x, inout hist)", 2, 1, 0, {}, histogram},
      {"adamw", "AdamW: m, v, p updated in place from g (args n, p, g, m, v, lr, beta1, beta2, eps, wd, c1, c2)", 4, 3,
       7, {}, adamw},
      {"col_sum", "db[N] (+)= column sums of dY[M][N] (args M, N, in dY, inout db, accumulate = adds - 1)", 2, 1, 0,
       {"M", "N", "adds"}, col_sum},
      {"conv3x3", "Y[N][K][H][W] = 3x3 convolution of X[N][C][H][W] with F[K][C][3][3], stride 1, padding 1", 2, 1, 0,
       {"N", "C", "H", "W", "K"}, conv3x3},
      {"attention", "O[BH][L][64] = softmax(Q K^T / 8) V per head, of Q, K, V [BH][L][64]", 3, 1, 0, {"BH", "L"},
       attention},
      {"poly_by_degree", "y[i] = 1 + x[i] + ... + x[i]^d[i]", 2, 1, 0, {}, poly_by_degree},
  };
  return t;
}

}  // namespace

const Reference* find_reference(const std::string& name) {
  for (const auto& r : table())
    if (name == r.name) return &r;
  return nullptr;
}

std::string known_references() {
  std::string s;
  for (const auto& r : table()) s += (s.empty() ? "" : ", ") + std::string(r.name);
  return s;
}

}  // namespace lab::lesson
