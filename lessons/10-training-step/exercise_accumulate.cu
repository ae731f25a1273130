// Exercise (lesson 10, "Will it fit?"): gradient accumulation.
//
// One training step of the batch's batch_rows() rows, run as K micro-batches
// of batch_rows() / K rows each (K divides the batch), so the device holds
// one micro-batch's activations, not the batch's. The gradients of the K
// micro-batches add up to the batch's; the step must give the same loss as
// the whole batch at once (K = 1), at every step.
//
// accumulate.h has the program's calls: reserve_rows, micro_batch, adamw_step.
// Check it with `gpulab check 10-training-step/accumulate`.
#include "accumulate.h"

void train_step(int micro_batches) {
  // TODO: reserve room for one micro-batch, run the K micro-batches (the
  // first overwrites the gradients, the others add to them), then step.
  (void)micro_batches;
}
