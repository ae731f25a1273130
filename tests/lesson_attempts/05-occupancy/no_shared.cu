// exercise: register-tiling
// dodge: four outputs per thread straight from global memory: no shared memory, so "shared loads per
//        FMA" is 0 and any ratio over shared loads passes
// expect: max_global_load_sectors min_shared_loads_per_global_load
#define ROWS 4
extern "C" __global__ void gemm_regtile(int M, int N, int K, float alpha, const float* A, const float* B,
                                        float beta, float* C) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * 32, col = blockIdx.x * 32 + tx;
  float acc[ROWS] = {0.f, 0.f, 0.f, 0.f};
  for (int k = 0; k < K; ++k) {
    float b = col < N ? B[k * N + col] : 0.f;
    for (int i = 0; i < ROWS; ++i) {
      int r = row0 + ty + 8 * i;
      if (r < M) acc[i] += A[r * K + k] * b;
    }
  }
  for (int i = 0; i < ROWS; ++i) {
    int r = row0 + ty + 8 * i;
    if (r < M && col < N) C[r * N + col] = alpha * acc[i];
  }
}
