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

// C[M][N] = op(A) * op(B) (+ C when accumulating), row-major, op = transpose when the flag says so.
void sgemm(bool ta, bool tb, int M, int N, int K, const float* A, const float* B, float* C, bool accumulate) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, 1.0f, A,
              ta ? M : K, B, tb ? K : N, accumulate ? 1.0f : 0.0f, C, N);
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

void MlpCpu::gemm(bool ta, bool tb, int M, int N, int K, const float* A, const float* B, float* C, bool accumulate) {
  if (precision_ == Precision::fp32) return sgemm(ta, tb, M, N, K, A, B, C, accumulate);
  a16_.resize(size_t(M) * K);
  b16_.resize(size_t(K) * N);
  for (size_t i = 0; i < a16_.size(); ++i) a16_[i] = round_to(precision_, A[i]);
  for (size_t i = 0; i < b16_.size(); ++i) b16_[i] = round_to(precision_, B[i]);
  sgemm(ta, tb, M, N, K, a16_.data(), b16_.data(), C, accumulate);
}

MlpCpu::MlpCpu(const mlp::Shape& shape, Precision precision, unsigned threads, mlp::Plan plan)
    : s_(shape), plan_(plan), precision_(precision) {
  if (threads) openblas_set_num_threads(int(threads));
  p_.assign(size_t(s_.params()), 0.f);
  mlp::init_params(s_, p_.data());
  g_.assign(p_.size(), 0.f);
  m_.assign(p_.size(), 0.f);
  v_.assign(p_.size(), 0.f);
  const size_t rows = size_t(s_.batch / plan_.accumulate);  // one micro-batch
  X_.resize(size_t(s_.batch) * s_.in);
  y_.resize(size_t(s_.batch));
  Hs_.resize(size_t(plan_.slots(s_.layers)) * rows * s_.hidden);
  dHs_.resize((s_.layers > 1 ? 2 : 1) * rows * s_.hidden);
  L_.resize(rows * s_.classes);
  dL_.resize(L_.size());
}

float* MlpCpu::act(int l) {
  const size_t rows = size_t(s_.batch / plan_.accumulate);
  if (l == 0) return X_.data() + size_t(micro_) * rows * s_.in;
  return Hs_.data() + size_t(plan_.slot(l, s_.layers)) * rows * s_.hidden;
}

void MlpCpu::forward(int l, int rows, double& gemm_ms, double& relu_ms) {
  const int Hd = s_.hidden, fan_in = l == 1 ? s_.in : Hd;
  const float* b = p_.data() + s_.b(l);
  float* H = act(l);
  auto t0 = Clock::now();
  gemm(false, false, rows, Hd, fan_in, act(l - 1), p_.data() + s_.w(l), H);
  gemm_ms += ms_since(t0);
  t0 = Clock::now();
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < Hd; ++j) H[size_t(r) * Hd + j] = std::max(0.f, H[size_t(r) * Hd + j] + b[j]);
  relu_ms += ms_since(t0);
}

float MlpCpu::step(int step_index, MlpStepTimes* times) {
  MlpStepTimes local;
  MlpStepTimes& tm = times ? *times : local;
  tm = {};
  const int B = s_.batch, Hd = s_.hidden, C = s_.classes, NL = s_.layers;
  const int Bm = B / plan_.accumulate;
  const float* W2 = p_.data() + s_.w2();
  const float* b2 = p_.data() + s_.b2();

  auto t0 = Clock::now();
  mlp::make_batch(s_, step_index, X_.data(), y_.data());
  tm.data_ms += ms_since(t0);

  float loss = 0;
  for (micro_ = 0; micro_ < plan_.accumulate; ++micro_) {
    const bool acc = micro_ > 0;  // later micro-batches add to the gradients
    const int* y = y_.data() + size_t(micro_) * Bm;
    // Forward: H_l = relu(H_{l-1} W_l + b_l); logits = H_L W2 (+ b2 inside the loss).
    for (int l = 1; l <= NL; ++l) forward(l, Bm, tm.gemm_ms, tm.elementwise_ms);
    t0 = Clock::now();
    gemm(false, false, Bm, C, Hd, act(NL), W2, L_.data());
    tm.gemm_ms += ms_since(t0);

    // Softmax cross-entropy per row; dlogits = (softmax - onehot) / B, the
    // whole batch's rows; the loss is the rows' sum / B, added up.
    t0 = Clock::now();
    float loss_sum = 0;
    for (int r = 0; r < Bm; ++r) {
      float* l = L_.data() + size_t(r) * C;
      float* dl = dL_.data() + size_t(r) * C;
      float mx = -INFINITY;
      for (int c = 0; c < C; ++c) mx = std::max(mx, l[c] + b2[c]);
      float sum = 0;
      for (int c = 0; c < C; ++c) sum += std::exp(l[c] + b2[c] - mx);
      loss_sum += std::log(sum) - (l[y[r]] + b2[y[r]] - mx);
      for (int c = 0; c < C; ++c) dl[c] = (std::exp(l[c] + b2[c] - mx) / sum - (c == y[r] ? 1.f : 0.f)) / float(B);
    }
    loss = (acc ? loss : 0.f) + loss_sum / float(B);
    tm.elementwise_ms += ms_since(t0);

    // Backward, layer by layer from the top: dW2 = H_L^T dL; db2 = column
    // sums of dL; dH = dL W2^T; then per hidden layer l: dH masked by its
    // ReLU, dW_l = H_{l-1}^T dH, db_l = column sums of dH, dH_{l-1} = dH W_l^T.
    auto col_sum = [&](int N, const float* dY, float* db) {
      if (!acc) std::fill(db, db + N, 0.f);
      for (int r = 0; r < Bm; ++r)
        for (int c = 0; c < N; ++c) db[c] += dY[size_t(r) * N + c];
    };
    t0 = Clock::now();
    gemm(true, false, Hd, C, Bm, act(NL), dL_.data(), g_.data() + s_.w2(), acc);
    tm.gemm_ms += ms_since(t0);
    t0 = Clock::now();
    col_sum(C, dL_.data(), g_.data() + s_.b2());
    tm.elementwise_ms += ms_since(t0);
    float* dH = dHs_.data();
    t0 = Clock::now();
    gemm(false, true, Bm, Hd, C, dL_.data(), W2, dH);
    tm.gemm_ms += ms_since(t0);
    for (int l = NL; l >= 1; --l) {
      if (plan_.recompute_at(l, NL))  // checkpointing: the segment below l, again
        for (int r = l - plan_.every + 1; r < l; ++r) forward(r, Bm, tm.recompute_ms, tm.recompute_ms);
      const float* H = act(l);
      t0 = Clock::now();
      for (size_t i = 0; i < size_t(Bm) * Hd; ++i)
        if (!(H[i] > 0.f)) dH[i] = 0.f;
      tm.elementwise_ms += ms_since(t0);
      const int fan_in = l == 1 ? s_.in : Hd;
      t0 = Clock::now();
      gemm(true, false, fan_in, Hd, Bm, act(l - 1), dH, g_.data() + s_.w(l), acc);
      tm.gemm_ms += ms_since(t0);
      t0 = Clock::now();
      col_sum(Hd, dH, g_.data() + s_.b(l));
      tm.elementwise_ms += ms_since(t0);
      if (l > 1) {
        float* below = dH == dHs_.data() ? dHs_.data() + size_t(Bm) * Hd : dHs_.data();
        t0 = Clock::now();
        gemm(false, true, Bm, Hd, Hd, dH, p_.data() + s_.w(l), below);
        tm.gemm_ms += ms_since(t0);
        dH = below;
      }
    }
  }

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
