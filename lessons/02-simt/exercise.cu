// Lesson 2 exercise: threads, blocks and a 2D grid.
//
//   Z[M][N] = a * X[M][N] + Y[M][N]   (row-major floats)
//   launched with blocks of 32 x 8 threads (blockDim.x = 32, blockDim.y = 8)
//   and a grid of ceil(N/32) x ceil(M/8) blocks.
//
// Each thread computes one element of Z. Compute the row and column of this
// thread's element from blockIdx, blockDim and threadIdx, and guard against
// the threads of the edge blocks that fall outside the matrix. As shipped,
// every thread computes element [0][0].
//
// Beyond correctness, `gpulab check 02` wants the 32 lanes of each warp to
// read 32 consecutive floats (at most 4 sectors per request) and every lane
// of a warp busy when M and N are multiples of the block (warp efficiency).
extern "C" __global__ void matrix_axpy(int M, int N, float a, const float* X, const float* Y, float* Z) {
  // TODO: row and column of this thread's element.
  int row = 0;
  int col = 0;
  if (row < M && col < N) Z[row * N + col] = a * X[row * N + col] + Y[row * N + col];
}
