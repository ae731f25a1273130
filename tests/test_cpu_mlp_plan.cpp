// tests/test_cpu_mlp_plan.cpp: lesson 10's step schedule (lab/cpu/mlp_task.h,
// Plan) and the CPU step that follows it (lab/cpu/mlp_step.cpp).
//
// The checkpoint schedule is checked by replaying it on labels: every buffer
// records which layer's output it holds, forward writes, backward's
// recomputes write, and every read backward makes (H_l for ReLU's mask,
// H_{l-1} for the weight gradient) must find exactly that layer there. Then
// the CPU step: checkpointing must not move a loss by one bit, accumulation
// must keep them to float rounding, and the recompute must be timed.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "lab/cpu/mlp_step.h"
#include "lab/cpu/mlp_task.h"

using lab::mlp::Plan;
using lab::mlp::Shape;

namespace {
// Replays forward and backward on buffer labels; returns the number of
// layers recomputed, or -1 when a read finds the wrong layer.
int replay(int layers, const Plan& plan) {
  std::vector<int> holds(size_t(plan.slots(layers)), -1);
  auto write = [&](int l) { holds.at(size_t(plan.slot(l, layers))) = l; };
  auto holds_layer = [&](int l) { return l == 0 || holds.at(size_t(plan.slot(l, layers))) == l; };
  for (int l = 1; l <= layers; ++l) {
    if (!holds_layer(l - 1)) return -1;  // forward reads its input
    write(l);
  }
  if (!holds_layer(layers)) return -1;  // the output layer reads H_L
  int recomputed = 0;
  for (int l = layers; l >= 1; --l) {
    if (plan.recompute_at(l, layers))
      for (int r = l - plan.every + 1; r < l; ++r) {
        if (!holds_layer(r - 1)) return -1;
        write(r);
        ++recomputed;
      }
    if (!holds_layer(l) || !holds_layer(l - 1)) return -1;
  }
  return recomputed;
}
}  // namespace

TEST_CASE("the checkpoint schedule: every read backward finds its layer, in about 2 sqrt(L) buffers") {
  for (int layers = 1; layers <= 40; ++layers) {
    CHECK(replay(layers, Plan{}) == 0);
    CHECK(Plan{}.slots(layers) == layers);
    for (int every = 1; every <= layers; ++every) {
      Plan p;
      p.every = every;
      INFO("layers " << layers << ", every " << every);
      const int recomputed = replay(layers, p);
      CHECK(recomputed >= 0);
      // Every segment but the last is recomputed, all but its checkpoint.
      const int segments = (layers + every - 1) / every;
      CHECK(recomputed == (segments - 1) * (every - 1));
      CHECK(p.slots(layers) <= layers);
    }
    Plan sq;
    sq.every = Plan::sqrt_every(layers);
    CHECK(sq.every * sq.every >= layers);
    CHECK((sq.every - 1) * (sq.every - 1) < layers);
    CHECK(double(sq.slots(layers)) <= 2 * std::sqrt(double(layers)) + 1);
  }
  Plan p;
  p.every = 4;
  CHECK(p.slots(16) == 7);  // H4, H8, H12, H16 and 3 shared: the lesson's figure
  p.every = 3;
  CHECK(p.slots(9) == 5);
}

TEST_CASE("the CPU step: checkpointing keeps the losses bit for bit, accumulation to float rounding") {
  Shape s;
  s.batch = 32, s.hidden = 32, s.layers = 5;
  Plan ck;
  ck.every = Plan::sqrt_every(s.layers);
  Plan acc;
  acc.accumulate = 4;
  lab::cpu::MlpCpu plain(s, lab::cpu::Precision::fp32, 1), checkpointed(s, lab::cpu::Precision::fp32, 1, ck),
      accumulated(s, lab::cpu::Precision::fp32, 1, acc);
  for (int step = 0; step < 3; ++step) {
    lab::cpu::MlpStepTimes t;
    const float a = plain.step(step), b = checkpointed.step(step, &t), c = accumulated.step(step);
    CHECK(a == b);
    CHECK(std::fabs(a - c) <= 1e-5f);
    CHECK(t.recompute_ms > 0);
    CHECK(std::isfinite(a));
  }
  CHECK(plain.params() == checkpointed.params());
}
