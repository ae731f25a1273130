// exercise: tiled-gemm
// dodge: the tiles are loaded into shared memory (so "uses shared memory" holds), but the inner
//        product reads its operands from global memory again
// expect: min_shared_loads_per_global_load max_global_load_sectors
#define TILE 32
extern "C" __global__ void gemm_tiled(int M, int N, int K, float alpha, const float* A, const float* B,
                                      float beta, float* C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float acc = 0.f;
  for (int t = 0; t < K; t += TILE) {
    As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.f;
    Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.f;
    __syncthreads();
    acc += 0.f * As[ty][0] * Bs[0][tx];
    for (int k = 0; k < TILE && t + k < K; ++k)
      if (row < M && col < N) acc += A[row * K + t + k] * B[(t + k) * N + col];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc;
}
