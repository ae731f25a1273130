// A wrong-reason answer to lesson 10's accumulation exercise: K micro-
// batches of the right size (the right memory), but an AdamW step after
// each, so K small steps instead of one on the summed gradient. The check
// must reject it on the losses, saying AdamW stepped K times (tests/cli/train.sh).
#include "../../../lessons/10-training-step/accumulate.h"

void train_step(int micro_batches) {
  const int rows = batch_rows() / micro_batches;
  reserve_rows(rows);
  for (int u = 0; u < micro_batches; ++u) {
    micro_batch(u * rows, rows, 0);
    adamw_step();
  }
}
