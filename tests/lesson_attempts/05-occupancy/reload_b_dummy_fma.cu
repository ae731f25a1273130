// exercise: register-tiling
// dodge: Bs[k][tx] is read again for every output (through a volatile pointer, so the compiler
//        cannot reuse it), 2 shared loads per FMA as in lesson 4, and dummy FMAs added to dilute a
//        loads-per-FMA ratio
// expect: max_shared_load_requests
#define TILE 32
#define ROWS 4
extern "C" __global__ void gemm_regtile(int M, int N, int K, float alpha, const float* A, const float* B,
                                        float beta, float* C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * TILE, col = blockIdx.x * TILE + tx;
  float acc[ROWS] = {0.f, 0.f, 0.f, 0.f};
  float dummy = 1.f;
  const volatile float* bs = &Bs[0][0];
  for (int t = 0; t < K; t += TILE) {
    for (int i = 0; i < ROWS; ++i) {
      int r = ty + 8 * i;
      As[r][tx] = (row0 + r < M && t + tx < K) ? A[(row0 + r) * K + t + tx] : 0.f;
      Bs[r][tx] = (t + r < K && col < N) ? B[(t + r) * N + col] : 0.f;
    }
    __syncthreads();
    for (int k = 0; k < TILE; ++k) {
      for (int i = 0; i < ROWS; ++i) acc[i] += As[ty + 8 * i][k] * bs[k * TILE + tx];
      for (int d = 0; d < 8; ++d) dummy = fmaf(dummy, 1.0f, 0.f);
    }
    __syncthreads();
  }
  for (int i = 0; i < ROWS; ++i) {
    int r = row0 + ty + 8 * i;
    if (r < M && col < N) C[r * N + col] = alpha * acc[i] * dummy;
  }
}
