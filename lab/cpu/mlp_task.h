// lab/cpu/mlp_task.h: the training step's task, shared word for word by the
// CPU step (lab/cpu/mlp_step.cpp) and the CUDA program
// (lessons/10-training-step/train.cu), so both train the same network on the
// same data from the same starting weights and their losses can be compared.
//
// The task: a 2-layer MLP (in -> hidden, ReLU, hidden -> classes) learns to
// classify points x in [-1, 1)^in by a fixed random linear "teacher": the
// label of x is argmax_c (T x)_c. Each step draws a fresh batch from a hash
// of (step, row, feature), so no data set is stored and any batch size works.
//
// Header-only plain C++ (no lab or standard-library types beyond <cstdint>,
// <cmath>): nvcc compiles it into the program's host code unchanged.
#pragma once

#include <cmath>
#include <cstdint>

namespace lab::mlp {

struct Shape {
  int batch = 64, in = 64, hidden = 128, classes = 16;
  // Flat parameter layout, the same in both versions (one AdamW pass over all):
  // W1[in][hidden], b1[hidden], W2[hidden][classes], b2[classes].
  long w1() const { return 0; }
  long b1() const { return w1() + long(in) * hidden; }
  long w2() const { return b1() + hidden; }
  long b2() const { return w2() + long(hidden) * classes; }
  long params() const { return b2() + classes; }
  // Multiply-adds of one step's GEMMs: forward X*W1, H*W2; backward dW2, dH, dW1.
  double gemm_flops() const {
    double b = batch, i = in, h = hidden, c = classes;
    return 2.0 * (b * i * h + b * h * c + h * b * c + b * c * h + i * b * h);
  }
};

// AdamW (Loshchilov & Hutter, "Decoupled Weight Decay Regularization", ICLR
// 2019, Algorithm 2) with Adam's defaults for beta1, beta2, eps (Kingma & Ba
// 2015) and a learning rate that moves a small net visibly in a few steps.
struct AdamW {
  float lr = 1e-2f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 1e-2f;
  // Bias corrections for step t (1-based) as the kernels take them: 1 / (1 - beta^t).
  float c1(int t) const { return float(1.0 / (1.0 - std::pow(double(beta1), t))); }
  float c2(int t) const { return float(1.0 / (1.0 - std::pow(double(beta2), t))); }
};

// A 32-bit integer hash (the "lowbias32" constants of C. Wellons' hash
// prospector); any good mixer would do, both versions only need the same one.
inline uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// Uniform in [-1, 1), exact in float: a 24-bit integer times 2^-23, minus 1.
inline float uniform(uint32_t stream, uint32_t i) {
  uint32_t h = hash32(i * 0x9e3779b9u ^ hash32(stream + 0x632be5abu));
  return float(h >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

enum Stream : uint32_t { kTeacher = 1, kWeights1 = 2, kWeights2 = 3, kBatch = 1000 };

// Batch `step`: X[batch][in] and labels y[batch].
inline void make_batch(const Shape& s, int step, float* X, int* y) {
  for (int r = 0; r < s.batch; ++r) {
    for (int d = 0; d < s.in; ++d) X[long(r) * s.in + d] = uniform(kBatch + uint32_t(step), uint32_t(r * s.in + d));
    // The teacher's scores in double, summed in one fixed order: the same label on every compiler.
    int best = 0;
    double best_score = -1e300;
    for (int c = 0; c < s.classes; ++c) {
      double score = 0;
      for (int d = 0; d < s.in; ++d)
        score += double(uniform(kTeacher, uint32_t(c * s.in + d))) * double(X[long(r) * s.in + d]);
      if (score > best_score) best_score = score, best = c;
    }
    y[r] = best;
  }
}

// Starting weights: uniform with Glorot's scale sqrt(6 / (fan_in + fan_out))
// (Glorot & Bengio, AISTATS 2010, eq. 16); biases zero.
inline void init_params(const Shape& s, float* p) {
  const float a1 = float(std::sqrt(6.0 / (s.in + s.hidden))), a2 = float(std::sqrt(6.0 / (s.hidden + s.classes)));
  for (long i = 0; i < long(s.in) * s.hidden; ++i) p[s.w1() + i] = a1 * uniform(kWeights1, uint32_t(i));
  for (long i = 0; i < s.hidden; ++i) p[s.b1() + i] = 0.f;
  for (long i = 0; i < long(s.hidden) * s.classes; ++i) p[s.w2() + i] = a2 * uniform(kWeights2, uint32_t(i));
  for (long i = 0; i < s.classes; ++i) p[s.b2() + i] = 0.f;
}

}  // namespace lab::mlp
