// lab/train/schedule.h: what `gpulab train` expects of one step of
// lessons/10-training-step/train.cu, from the shape and the plan alone
// (lab/cpu/mlp_task.h): the launches in their order, each with the part of
// the step it belongs to, and the device bytes each group of cudaMallocs
// takes. The run is read launch by launch against the first, and the
// runtime's counted bytes are held against the second: the formula the
// lesson scales to a 7B model is the one the lab's own runs confirm.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lab/cpu/mlp_task.h"

namespace lab::train {

struct StepLaunch {
  std::string kernel;  // the name's prefix (matmul also matches matmul_bf16, matmul_fp16)
  std::string what;    // the same words for every launch that does the same job (rows add up by it)
  std::string part;    // gemm, elementwise, recompute (checkpointing's second forward) or adamw
};
std::vector<StepLaunch> step_launches(const mlp::Shape& shape, const mlp::Plan& plan);

// Multiply-adds (x2) of checkpointing's second forward over one step: the
// extra GEMM work the trade costs, against shape.gemm_flops().
double recompute_gemm_flops(const mlp::Shape& shape, const mlp::Plan& plan);

// train.cu's allocations by group, in bytes (fp32 everywhere; one micro-batch's activations).
struct StepBytes {
  uint64_t weights = 0, gradients = 0, optimizer = 0, activations = 0, batch = 0;
  uint64_t total() const { return weights + gradients + optimizer + activations + batch; }
  std::vector<std::pair<std::string, uint64_t>> groups() const {
    return {{"weights", weights}, {"gradients", gradients}, {"optimizer", optimizer},
            {"activations", activations}, {"batch", batch}};
  }
};
StepBytes step_bytes(const mlp::Shape& shape, const mlp::Plan& plan);

}  // namespace lab::train
