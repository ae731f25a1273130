// lab/train/schedule.cpp: train.cu's step as `gpulab train` expects it
// (see schedule.h). The loops here are train.cu's main loop, launch for
// launch; a change to one that is not made to the other fails `gpulab train`
// with the first launch that differs.
#include "lab/train/schedule.h"

namespace lab::train {

std::vector<StepLaunch> step_launches(const mlp::Shape& s, const mlp::Plan& plan) {
  std::vector<StepLaunch> out;
  const int L = s.layers;
  // One layer's forward: its GEMM and its bias + ReLU; checkpointing's
  // second pass of the same is the step's "recompute" part.
  auto forward = [&](int l, bool again) {
    const std::string pre = again ? "recompute " : "";
    const std::string gemm = again ? "recompute" : "gemm", elementwise = again ? "recompute" : "elementwise";
    out.push_back({"matmul", pre + (l == 1 ? "X W1 -> H" : "H W_l -> H, layers 2..L"), gemm});
    out.push_back({"bias_relu", pre + (l == 1 ? "H + b1, ReLU" : "H + b_l, ReLU, layers 2..L"), elementwise});
  };
  for (int u = 0; u < plan.accumulate; ++u) {
    for (int l = 1; l <= L; ++l) forward(l, false);
    out.push_back({"matmul", "H W2 -> logits", "gemm"});
    out.push_back({"softmax_xent", "loss rows, dlogits", "elementwise"});
    out.push_back({"mean_loss", "mean of the rows", "elementwise"});
    out.push_back({"matmul", "H^T dlogits -> dW2", "gemm"});
    out.push_back({"col_sum", "-> db2", "elementwise"});
    out.push_back({"matmul", "dlogits W2^T -> dH", "gemm"});
    for (int l = L; l >= 1; --l) {
      if (plan.recompute_at(l, L))
        for (int r = l - plan.every + 1; r < l; ++r) forward(r, true);
      out.push_back({"relu_backward", "dH masked", "elementwise"});
      if (l == 1) {
        out.push_back({"matmul", "X^T dH -> dW1", "gemm"});
        out.push_back({"col_sum", "-> db1", "elementwise"});
      } else {
        out.push_back({"matmul", "H^T dH -> dW_l, layers 2..L", "gemm"});
        out.push_back({"col_sum", "-> db_l, layers 2..L", "elementwise"});
        out.push_back({"matmul", "dH W_l^T -> dH, layers 2..L", "gemm"});
      }
    }
  }
  out.push_back({"adamw", "every parameter", "adamw"});
  return out;
}

double recompute_gemm_flops(const mlp::Shape& s, const mlp::Plan& plan) {
  double flops = 0;
  for (int l = s.layers; l >= 1; --l)
    if (plan.recompute_at(l, s.layers))
      for (int r = l - plan.every + 1; r < l; ++r) flops += 2.0 * s.batch * (r == 1 ? s.in : s.hidden) * s.hidden;
  return flops;  // every micro-batch recomputes its rows: the batch's rows in all
}

StepBytes step_bytes(const mlp::Shape& s, const mlp::Plan& plan) {
  const uint64_t P = uint64_t(s.params()), f = sizeof(float), rows = uint64_t(s.batch / plan.accumulate);
  const uint64_t hidden_buffers = uint64_t(plan.slots(s.layers)) + (s.layers > 1 ? 2 : 1);  // H's, then dH's
  StepBytes b;
  b.weights = f * P;
  b.gradients = f * P;
  b.optimizer = 2 * f * P;  // AdamW's m and v
  // H buffers and dH, logits and dlogits, the rows' losses, the loss.
  b.activations = f * (hidden_buffers * rows * uint64_t(s.hidden) + 2 * rows * uint64_t(s.classes) + rows + 1);
  b.batch = f * rows * uint64_t(s.in) + sizeof(int) * rows;  // X and the labels
  return b;
}

}  // namespace lab::train
