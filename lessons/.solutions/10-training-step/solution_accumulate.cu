// Lesson 10's accumulation exercise, solved: room for one micro-batch of
// B / K rows, K micro-batches whose gradients add up (the first writes
// them, the rest add), then one AdamW step on the sum.
#include "../../10-training-step/accumulate.h"

void train_step(int micro_batches) {
  const int rows = batch_rows() / micro_batches;
  reserve_rows(rows);
  for (int u = 0; u < micro_batches; ++u) micro_batch(u * rows, rows, u > 0);
  adamw_step();
}
