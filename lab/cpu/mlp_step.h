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
  double gemm_ms = 0, elementwise_ms = 0, adamw_ms = 0, data_ms = 0;
  double total_ms() const { return gemm_ms + elementwise_ms + adamw_ms + data_ms; }
};

class MlpCpu {
 public:
  // `threads`: OpenBLAS threads (0: its default).
  explicit MlpCpu(const mlp::Shape& shape, unsigned threads = 0);

  // Draws batch `step_index` (0-based), runs the whole step, returns the
  // batch's mean cross-entropy loss before the update.
  float step(int step_index, MlpStepTimes* times = nullptr);

  const mlp::Shape& shape() const { return s_; }
  const std::vector<float>& params() const { return p_; }

 private:
  mlp::Shape s_;
  mlp::AdamW opt_;
  int t_ = 0;  // AdamW's step count
  std::vector<float> p_, g_, m_, v_;
  std::vector<float> X_, H_, L_, dL_, dH_;
  std::vector<int> y_;
};

}  // namespace lab::cpu
