// Lesson 2 reference solution: x picks the column (consecutive lanes,
// consecutive addresses), y picks the row.
extern "C" __global__ void matrix_axpy(int M, int N, float a, const float* X, const float* Y, float* Z) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) Z[row * N + col] = a * X[row * N + col] + Y[row * N + col];
}
