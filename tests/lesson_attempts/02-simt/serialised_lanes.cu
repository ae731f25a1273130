// exercise: matrix-axpy
// dodge: consecutive lanes walk DOWN a column (32 rows apart), but take turns four at a time, so
//        each request touches only 4 sectors: per-request figures look coalesced, the requests are 8x
// expect: max_global_load_requests max_global_store_requests
extern "C" __global__ void matrix_axpy(int M, int N, float a, const float* X, const float* Y, float* Z) {
  int t = (blockIdx.y * gridDim.x + blockIdx.x) * (blockDim.x * blockDim.y) + threadIdx.y * blockDim.x + threadIdx.x;
  int row = t % M, col = t / M;  // column-major: lanes 32 rows apart
  for (int g = 0; g < 8; ++g) {
    if (threadIdx.x / 4 == g && col < N) Z[row * N + col] = a * X[row * N + col] + Y[row * N + col];
    __syncwarp();
  }
}
