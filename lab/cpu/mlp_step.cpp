// lab/cpu/mlp_step.cpp: the MLP training step on the CPU (see mlp_step.h).
// The order of operations is the CUDA program's (lessons/10-training-step/
// train.cu), kernel by kernel, so the two can be compared line by line.
#include "lab/cpu/mlp_step.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace lab::cpu {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// C[M][N] = op(A) * op(B), row-major, op = transpose when the flag says so.
void sgemm(bool ta, bool tb, int M, int N, int K, const float* A, const float* B, float* C) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, 1.0f, A,
              ta ? M : K, B, tb ? K : N, 0.0f, C, N);
}

}  // namespace

const char* precision_name(Precision p) {
  return p == Precision::bf16 ? "bf16" : p == Precision::fp16 ? "fp16" : "fp32";
}

float round_to(Precision p, float x) {
  if (p == Precision::fp16) return float(static_cast<_Float16>(x));  // IEEE binary16, round to nearest even
  if (p != Precision::bf16 || std::isnan(x)) return x;
  // bf16 is fp32's top 16 bits: add half an ulp of bf16 (ties to even), clear the rest.
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  std::memcpy(&x, &u, 4);
  return x;
}

void MlpCpu::gemm(bool ta, bool tb, int M, int N, int K, const float* A, const float* B, float* C) {
  if (precision_ == Precision::fp32) return sgemm(ta, tb, M, N, K, A, B, C);
  a16_.resize(size_t(M) * K);
  b16_.resize(size_t(K) * N);
  for (size_t i = 0; i < a16_.size(); ++i) a16_[i] = round_to(precision_, A[i]);
  for (size_t i = 0; i < b16_.size(); ++i) b16_[i] = round_to(precision_, B[i]);
  sgemm(ta, tb, M, N, K, a16_.data(), b16_.data(), C);
}

MlpCpu::MlpCpu(const mlp::Shape& shape, Precision precision, unsigned threads) : s_(shape), precision_(precision) {
  if (threads) openblas_set_num_threads(int(threads));
  p_.assign(size_t(s_.params()), 0.f);
  mlp::init_params(s_, p_.data());
  g_.assign(p_.size(), 0.f);
  m_.assign(p_.size(), 0.f);
  v_.assign(p_.size(), 0.f);
  X_.resize(size_t(s_.batch) * s_.in);
  y_.resize(size_t(s_.batch));
  H_.resize(size_t(s_.batch) * s_.hidden);
  dH_.resize(H_.size());
  L_.resize(size_t(s_.batch) * s_.classes);
  dL_.resize(L_.size());
}

float MlpCpu::step(int step_index, MlpStepTimes* times) {
  MlpStepTimes local;
  MlpStepTimes& tm = times ? *times : local;
  tm = {};
  const int B = s_.batch, D = s_.in, Hd = s_.hidden, C = s_.classes;
  float* W1 = p_.data() + s_.w1();
  float* b1 = p_.data() + s_.b1();
  float* W2 = p_.data() + s_.w2();
  float* b2 = p_.data() + s_.b2();

  auto t0 = Clock::now();
  mlp::make_batch(s_, step_index, X_.data(), y_.data());
  tm.data_ms += ms_since(t0);

  // Forward: H = relu(X W1 + b1); logits = H W2 (+ b2 inside the loss).
  t0 = Clock::now();
  gemm(false, false, B, Hd, D, X_.data(), W1, H_.data());
  tm.gemm_ms += ms_since(t0);
  t0 = Clock::now();
  for (int r = 0; r < B; ++r)
    for (int j = 0; j < Hd; ++j) H_[size_t(r) * Hd + j] = std::max(0.f, H_[size_t(r) * Hd + j] + b1[j]);
  tm.elementwise_ms += ms_since(t0);
  t0 = Clock::now();
  gemm(false, false, B, C, Hd, H_.data(), W2, L_.data());
  tm.gemm_ms += ms_since(t0);

  // Softmax cross-entropy per row; dlogits = (softmax - onehot) / B.
  t0 = Clock::now();
  float loss_sum = 0;
  for (int r = 0; r < B; ++r) {
    float* l = L_.data() + size_t(r) * C;
    float* dl = dL_.data() + size_t(r) * C;
    float mx = -INFINITY;
    for (int c = 0; c < C; ++c) mx = std::max(mx, l[c] + b2[c]);
    float sum = 0;
    for (int c = 0; c < C; ++c) sum += std::exp(l[c] + b2[c] - mx);
    loss_sum += std::log(sum) - (l[y_[r]] + b2[y_[r]] - mx);
    for (int c = 0; c < C; ++c) dl[c] = (std::exp(l[c] + b2[c] - mx) / sum - (c == y_[r] ? 1.f : 0.f)) / float(B);
  }
  const float loss = loss_sum / float(B);
  tm.elementwise_ms += ms_since(t0);

  // Backward: dW2 = H^T dL; db2 = column sums of dL; dH = dL W2^T masked by
  // relu; dW1 = X^T dH; db1 = column sums of dH.
  t0 = Clock::now();
  gemm(true, false, Hd, C, B, H_.data(), dL_.data(), g_.data() + s_.w2());
  gemm(false, true, B, Hd, C, dL_.data(), W2, dH_.data());
  tm.gemm_ms += ms_since(t0);
  t0 = Clock::now();
  float* db2 = g_.data() + s_.b2();
  float* db1 = g_.data() + s_.b1();
  std::fill(db2, db2 + C, 0.f);
  std::fill(db1, db1 + Hd, 0.f);
  for (int r = 0; r < B; ++r)
    for (int c = 0; c < C; ++c) db2[c] += dL_[size_t(r) * C + c];
  for (size_t i = 0; i < dH_.size(); ++i)
    if (!(H_[i] > 0.f)) dH_[i] = 0.f;
  for (int r = 0; r < B; ++r)
    for (int j = 0; j < Hd; ++j) db1[j] += dH_[size_t(r) * Hd + j];
  tm.elementwise_ms += ms_since(t0);
  t0 = Clock::now();
  gemm(true, false, D, Hd, B, X_.data(), dH_.data(), g_.data() + s_.w1());
  tm.gemm_ms += ms_since(t0);

  // AdamW over the flat parameter vector, as the adamw kernel does it.
  t0 = Clock::now();
  ++t_;
  const float c1 = opt_.c1(t_), c2 = opt_.c2(t_);
  for (size_t i = 0; i < p_.size(); ++i) {
    const float g = g_[i];
    m_[i] = opt_.beta1 * m_[i] + (1.f - opt_.beta1) * g;
    v_[i] = opt_.beta2 * v_[i] + (1.f - opt_.beta2) * g * g;
    p_[i] -= opt_.lr * ((m_[i] * c1) / (std::sqrt(v_[i] * c2) + opt_.eps) + opt_.weight_decay * p_[i]);
  }
  tm.adamw_ms += ms_since(t0);
  return loss;
}

}  // namespace lab::cpu
