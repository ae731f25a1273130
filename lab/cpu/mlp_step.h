// lab/cpu/mlp_step.h: one training step of lab/cpu/mlp_task.h's MLP on the
// CPU: forward, softmax cross-entropy, backward and AdamW, with the GEMMs in
// OpenBLAS (cblas_sgemm) and the rest as plain loops. It is the CPU half of
// lesson 10 (`gpulab train`): the step the lesson times, and the losses the
// simulated GPU's must match.
#pragma once

#include <string>
#include <vector>

#include "lab/cpu/mlp_task.h"

namespace lab::cpu {

// Where one CPU step's time goes, measured with a steady clock.
struct MlpStepTimes {
  // recompute_ms: gradient checkpointing's second forward of the segments
  // (GEMMs and ReLUs), kept apart so the trade's cost shows.
  double gemm_ms = 0, elementwise_ms = 0, adamw_ms = 0, recompute_ms = 0, data_ms = 0;
  // The step proper: drawing the batch (data_ms) is host work in both
  // versions and stays outside, as it stays outside train.cu's timed events.
  double total_ms() const { return gemm_ms + elementwise_ms + adamw_ms + recompute_ms; }
};

// The GEMMs' operand precision. bf16/fp16: each GEMM's operands are rounded
// to 16 bits (round to nearest even, as the GPU's __float2bfloat16 /
// __float2half) and multiplied in fp32, which is exact for 16-bit inputs
// (8 + 8 or 11 + 11 significand bits fit in fp32's 24), so the results are
// the tensor cores' up to the order of the fp32 sums. The weights AdamW
// updates stay fp32: the master copy. The CPU gains no speed from this (its
// GEMMs stay fp32 and the rounding is extra work); it is here so that the
// simulated GPU's mixed-precision losses have a CPU twin to match.
enum class Precision { fp32, bf16, fp16 };
const char* precision_name(Precision p);
float round_to(Precision p, float x);

class MlpCpu {
 public:
  // `threads`: OpenBLAS threads (0: its default). `plan`: micro-batches and
  // checkpointing, scheduled as train.cu schedules them (mlp_task.h).
  explicit MlpCpu(const mlp::Shape& shape, Precision precision = Precision::fp32, unsigned threads = 0,
                  mlp::Plan plan = {});

  // Draws batch `step_index` (0-based), runs the whole step, returns the
  // batch's mean cross-entropy loss before the update.
  float step(int step_index, MlpStepTimes* times = nullptr);

  const mlp::Shape& shape() const { return s_; }
  const std::vector<float>& params() const { return p_; }

 private:
  // C = op(A) op(B), or C += with `accumulate`.
  void gemm(bool ta, bool tb, int M, int N, int K, const float* A, const float* B, float* C, bool accumulate = false);
  float* act(int l);                                 // H_l of the current micro-batch (H_0: its rows of X)
  void forward(int l, int rows, double& gemm_ms, double& relu_ms);  // H_l = relu(H_{l-1} W_l + b_l)

  mlp::Shape s_;
  mlp::Plan plan_;
  int micro_ = 0;  // the micro-batch being run
  Precision precision_;
  mlp::AdamW opt_;
  std::vector<float> a16_, b16_;  // rounded copies of a GEMM's operands
  int t_ = 0;  // AdamW's step count
  std::vector<float> p_, g_, m_, v_;
  std::vector<float> X_, Hs_, L_, dL_, dHs_;  // Hs_: plan_.slots() hidden buffers; dHs_: one or two
  std::vector<int> y_;
};

}  // namespace lab::cpu
