// Lesson 7 exercise: one layer, Y = X * W, with a small batch.
//
//   Y[M][N] = alpha * X[M][K] * W[K][N]   (M = batch rows, at most MAX_BATCH; beta is 0)
//   launched with 128 threads per block, grid ceil(N / 128): one thread per output COLUMN.
//
// As shipped the kernel is CORRECT, but it handles the batch one row at a
// time, so every row of the batch reads all of W again. At small batch a
// layer is bound by reading W; reading it M times makes that M times worse.
// `gpulab check 07` fails max_global_load_sectors.
//
// TODO: restructure so that each element of W is loaded once and used for
// every row of the batch (keep one accumulator per row in registers).
#define MAX_BATCH 8

extern "C" __global__ void layer_forward(int M, int N, int K, float alpha, const float* X, const float* W,
                                         float beta, float* Y) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  for (int row = 0; row < M; ++row) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += X[row * K + k] * W[k * N + col];  // W re-read for every row
    Y[row * N + col] = alpha * acc;
  }
}
