// lessons/10-training-step/accumulate.h: what the accumulation program
// (accumulate.cu) gives your training step (exercise_accumulate.cu).
//
// The batch is BATCH rows; a micro-batch is any run of consecutive rows.
// The loss and its gradient are always the whole batch's mean (divided by
// BATCH, not by the micro-batch's rows), so K micro-batches' gradients,
// added up, are the whole batch's gradient.
#pragma once

int batch_rows();  // BATCH, the rows of one step's batch

// Device room for the activations and the input of `rows` rows (cudaMalloc,
// in accumulate.cu): what a micro-batch of that many rows needs. A call
// with a different count frees the old buffers first. Prints "reserve rows R".
void reserve_rows(int rows);

// Rows [first, first + rows) of this step's batch: copied to the device,
// forward, loss, backward. accumulate = 0: the gradients and the loss are
// overwritten with this micro-batch's; 1: added to those before it.
// `rows` must fit the last reserve_rows.
void micro_batch(int first, int rows, int accumulate);

// One AdamW step over every parameter with the gradients as they are.
void adamw_step();

// Yours: one training step of the whole batch as `micro_batches` micro-batches.
void train_step(int micro_batches);
