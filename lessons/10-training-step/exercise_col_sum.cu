// Lesson 10 exercise: the bias gradient, a column sum (gpulab check 10-training-step/col-sum).
//
// Backward turns a layer's output gradient dY[M][N] (M rows of the batch, N
// columns) into its bias gradient: db[j] = the sum of column j over the rows.
// With gradient accumulation (`gpulab train --accumulate K`) each
// micro-batch's sums are ADDED to db when `accumulate` is non-zero, and
// written over it when it is zero.
//
// Launched with blocks of 32 x 32 threads and ceil(N / 32) blocks: block b
// owns columns 32 b .. 32 b + 31, threadIdx.x picks the column and the 32
// rows of threads (threadIdx.y) are there to share the rows of the batch.
//
// As shipped it is correct but uses one warp of the 32: the threads with
// threadIdx.y == 0 walk every row alone while the other 31 warps leave.
// Make all 32 warps share the rows, then combine their partial sums on chip
// and write each db[j] once.
extern "C" __global__ void col_sum(int M, int N, const float* dY, float* db, int accumulate) {
  int j = blockIdx.x * 32 + threadIdx.x;
  if (threadIdx.y != 0 || j >= N) return;
  // TODO: give every threadIdx.y its share of the rows, and sum the 32 shares.
  float acc = 0.f;
  for (int i = 0; i < M; ++i) acc += dY[long(i) * N + j];
  db[j] = accumulate ? db[j] + acc : acc;
}
