// exercise: tiled-gemm
// dodge: none: a correct kernel that keeps 96 values live per thread, 122 registers x 1024 threads, more
//        than the 65,536 registers an H100 block may use; a GPU refuses the launch (cudaErrorLaunchOutOfResources)
// expect: stage:launch
#define TILE 32
#define HOLD 96
extern "C" __global__ void gemm_tiled(int M, int N, int K, float alpha, const float* A, const float* B,
                                      float beta, float* C) {
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float v[HOLD];
#pragma unroll
  for (int i = 0; i < HOLD; ++i) v[i] = (row < M && i < K) ? A[row * K + i] : 0.f;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += (row < M ? A[row * K + k] : 0.f) * (col < N ? B[k * N + col] : 0.f);
#pragma unroll
  for (int i = 0; i < HOLD; ++i) acc += v[i] * v[HOLD - 1 - i] * 0.f;
  if (row < M && col < N) C[row * N + col] = alpha * acc;
}
