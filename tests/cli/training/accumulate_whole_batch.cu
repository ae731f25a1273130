// A wrong-reason answer to lesson 10's accumulation exercise: the whole
// batch at once, as one "micro-batch". Its losses are the full batch's
// (they are), but the device holds the batch's activations, not one
// micro-batch's: the check must reject it on max_gpu_peak_bytes, naming
// the reserve_rows line (tests/cli/train.sh).
#include "../../../lessons/10-training-step/accumulate.h"

void train_step(int micro_batches) {
  (void)micro_batches;
  reserve_rows(batch_rows());
  micro_batch(0, batch_rows(), 0);
  adamw_step();
}
