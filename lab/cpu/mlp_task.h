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
  // Hidden layers (each hidden -> hidden after the first, with ReLU): lesson
  // 10's step has one; "Will it fit?" stacks more to make activation memory
  // grow with depth.
  int layers = 1;
  // Flat parameter layout, the same in both versions (one AdamW pass over all):
  // W1[in][hidden], b1[hidden], then for each further hidden layer l = 2..layers
  // W_l[hidden][hidden], b_l[hidden], then W2[hidden][classes], b2[classes]
  // (the output layer keeps the name W2 it has in the one-layer step).
  long w1() const { return 0; }
  long b1() const { return w1() + long(in) * hidden; }
  long w(int l) const { return l == 1 ? w1() : b1() + hidden + long(l - 2) * (long(hidden) * hidden + hidden); }
  long b(int l) const { return w(l) + (l == 1 ? long(in) : long(hidden)) * hidden; }
  long w2() const { return w(layers + 1); }  // the output layer: w(layers + 1) is where it starts
  long b2() const { return w2() + long(hidden) * classes; }
  long params() const { return b2() + classes; }
  // Multiply-adds of one step's GEMMs: forward X*W1, (layers - 1) x H*W_l, H*W2;
  // backward dW2 and dH of the output layer, dW_l and dH of each further
  // hidden layer, dW1 (no gradient for X).
  double gemm_flops() const {
    double b = batch, i = in, h = hidden, c = classes, deep = layers - 1;
    return 2.0 * (b * i * h + deep * b * h * h + b * h * c + h * b * c + b * c * h + deep * 2 * b * h * h + i * b * h);
  }
};

// How a step is scheduled, the same for the CPU step, train.cu and the
// memory formula of `gpulab train`:
//
// * accumulate = K: the batch is run as K micro-batches of batch / K rows,
//   each one's gradients added to the last, then one AdamW step. Activations
//   (and the batch on the device) are for one micro-batch.
// * every = k > 0: gradient checkpointing. The hidden activations H_l are
//   kept only for l a multiple of k (the checkpoints; H_0 is the input X);
//   the layers between two checkpoints (a segment) share k - 1 buffers, and
//   backward recomputes a segment from its checkpoint just before it needs
//   it. The last segment is still in its buffers when backward starts, so it
//   is not recomputed. floor(L / k) + k - 1 buffers instead of L: least near
//   k = sqrt(L) (Chen et al., "Training Deep Nets with Sublinear Memory
//   Cost", 2016: O(sqrt(n)) memory for about one extra forward pass).
struct Plan {
  int accumulate = 1, every = 0;
  static int sqrt_every(int layers) {  // the smallest k with k * k >= layers
    int k = 1;
    while (k * k < layers) ++k;
    return k;
  }
  bool checkpointed() const { return every > 0; }
  int checkpoints(int layers) const { return checkpointed() ? layers / every : 0; }
  // How many buffers of micro-batch x hidden floats hold H_1 .. H_layers,
  // and which one holds H_l (1 <= l <= layers): the checkpoints first, then
  // the segment's buffers, which every segment reuses.
  int slots(int layers) const {
    if (!checkpointed()) return layers;
    const int c = checkpoints(layers), seg = every - 1 < layers - c ? every - 1 : layers - c;
    return c + seg;
  }
  int slot(int l, int layers) const {
    if (!checkpointed()) return l - 1;
    return l % every == 0 ? l / every - 1 : checkpoints(layers) + (l - 1) % every;
  }
  // Backward recomputes the segment below checkpoint l (layers l - k + 1 ..
  // l - 1, from H_{l-k}) when it reaches l, unless that is the last segment.
  bool recompute_at(int l, int layers) const {
    return checkpointed() && l % every == 0 && (l - 1) / every < (layers - 1) / every;
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

enum Stream : uint32_t { kTeacher = 1, kWeights1 = 2, kWeights2 = 3, kWeightsHidden = 100, kBatch = 1000 };

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
// (Glorot & Bengio, AISTATS 2010, eq. 16) for the first and the output
// layer; the further hidden layers (hidden -> hidden, after a ReLU) with He's
// sqrt(6 / fan_in) (He et al., "Delving Deep into Rectifiers", ICCV 2015,
// eq. 10), which keeps a deep ReLU stack's activations from shrinking layer
// by layer; biases zero.
inline void init_params(const Shape& s, float* p) {
  const float a1 = float(std::sqrt(6.0 / (s.in + s.hidden))), a2 = float(std::sqrt(6.0 / (s.hidden + s.classes)));
  const float ah = float(std::sqrt(6.0 / s.hidden));
  for (long i = 0; i < long(s.in) * s.hidden; ++i) p[s.w1() + i] = a1 * uniform(kWeights1, uint32_t(i));
  for (long i = 0; i < s.hidden; ++i) p[s.b1() + i] = 0.f;
  for (int l = 2; l <= s.layers; ++l) {
    for (long i = 0; i < long(s.hidden) * s.hidden; ++i)
      p[s.w(l) + i] = ah * uniform(kWeightsHidden + uint32_t(l), uint32_t(i));
    for (long i = 0; i < s.hidden; ++i) p[s.b(l) + i] = 0.f;
  }
  for (long i = 0; i < long(s.hidden) * s.classes; ++i) p[s.w2() + i] = a2 * uniform(kWeights2, uint32_t(i));
  for (long i = 0; i < s.classes; ++i) p[s.b2() + i] = 0.f;
}

}  // namespace lab::mlp
