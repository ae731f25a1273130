// exercise: matrix-axpy
// dodge: the warp with threadIdx.y == 0 computes all 8 rows of its block; the other 7 warps exit,
//        so every remaining instruction has 32 lanes on (warp efficiency 100%)
// expect: max_busiest_warp_vs_mean
extern "C" __global__ void matrix_axpy(int M, int N, float a, const float* X, const float* Y, float* Z) {
  if (threadIdx.y != 0) return;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < blockDim.y; ++r) {
    int row = blockIdx.y * blockDim.y + r;
    if (row < M && col < N) Z[row * N + col] = a * X[row * N + col] + Y[row * N + col];
  }
}
