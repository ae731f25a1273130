// exercise: matrix-axpy
// dodge: each thread owns one element, but the lane index walks DOWN a column: correct, 32 sectors
//        per request
// expect: max_sectors_per_global_load max_sectors_per_global_store
extern "C" __global__ void matrix_axpy(int M, int N, float a, const float* X, const float* Y, float* Z) {
  // Thread t of the grid (x fastest) takes element (t % M, t / M): column-major order.
  int t = (blockIdx.y * gridDim.x + blockIdx.x) * (blockDim.x * blockDim.y) + threadIdx.y * blockDim.x + threadIdx.x;
  int row = t % M, col = t / M;
  if (col < N) Z[row * N + col] = a * X[row * N + col] + Y[row * N + col];
}
