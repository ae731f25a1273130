// matmul_tiled.cu: C = A * B with shared-memory tiles, as a whole program.
// Each block computes a TILE x TILE piece of C; its threads stage one tile of
// A and one of B in shared memory per step along k, so every element loaded
// from global memory is used TILE times. Checked against a CPU matmul in
// double precision; timed with events; the same launch also runs the naive
// kernel so the two can be compared (`gpulab run --report` shows why).
//
//   gpulab run examples/matmul_tiled.cu --report          (M = N = K = 128)
//   gpulab run examples/matmul_tiled.cu -- 256 256 256
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                                      \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,              \
                   cudaGetErrorString(err_));                                                 \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

constexpr int TILE = 16;

// One thread per element of C, reading A's row and B's column from global memory.
__global__ void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

// The same with TILE x TILE tiles of A and B in shared memory.
__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    // Out-of-range elements load as zero, so partial tiles need no other care.
    As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[row * K + k0 + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < K && col < N) ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();  // the tile is not overwritten while others still read it
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

// Max relative error against a double-precision CPU product.
double check(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C, int M, int N, int K) {
  double worst = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += double(A[i * K + k]) * double(B[k * N + j]);
      double err = std::fabs(C[i * N + j] - ref) / (std::fabs(ref) + 1.0);
      if (!(err <= worst)) worst = err;  // NaN never passes
    }
  return worst;
}

int main(int argc, char** argv) {
  const int M = argc > 1 ? std::atoi(argv[1]) : 128;
  const int N = argc > 2 ? std::atoi(argv[2]) : M;
  const int K = argc > 3 ? std::atoi(argv[3]) : M;
  std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N);
  unsigned seed = 12345;
  auto next = [&] { seed = seed * 1664525u + 1013904223u; return float(seed >> 8) / float(1 << 24) - 0.5f; };
  for (float& x : A) x = next();
  for (float& x : B) x = next();

  float *dA, *dB, *dC;
  CUDA_CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));

  dim3 block(TILE, TILE);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  cudaEvent_t t0, t1, t2, t3;  // naive from t0 to t1, tiled from t2 to t3
  CUDA_CHECK(cudaEventCreate(&t0));
  CUDA_CHECK(cudaEventCreate(&t1));
  CUDA_CHECK(cudaEventCreate(&t2));
  CUDA_CHECK(cudaEventCreate(&t3));

  CUDA_CHECK(cudaEventRecord(t0));
  matmul_naive<<<grid, block>>>(dA, dB, dC, M, N, K);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(t1));
  CUDA_CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double err_naive = check(A, B, C, M, N, K);

  CUDA_CHECK(cudaMemset(dC, 0, C.size() * sizeof(float)));
  CUDA_CHECK(cudaEventRecord(t2));
  matmul_tiled<<<grid, block>>>(dA, dB, dC, M, N, K);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(t3));
  CUDA_CHECK(cudaEventSynchronize(t3));
  CUDA_CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double err_tiled = check(A, B, C, M, N, K);

  float ms_naive = 0, ms_tiled = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms_naive, t0, t1));
  CUDA_CHECK(cudaEventElapsedTime(&ms_tiled, t2, t3));
  const double flop = 2.0 * M * N * K;
  std::printf("matmul %dx%dx%d\n", M, N, K);
  std::printf("  naive: %.4f ms (%.1f GFLOP/s), max rel error %.2e\n", ms_naive, flop / (ms_naive * 1e6), err_naive);
  std::printf("  tiled: %.4f ms (%.1f GFLOP/s), max rel error %.2e\n", ms_tiled, flop / (ms_tiled * 1e6), err_tiled);
  const bool ok = err_naive < 1e-4 && err_tiled < 1e-4;
  std::printf("%s\n", ok ? "PASSED" : "FAILED");

  for (cudaEvent_t e : {t0, t1, t2, t3}) CUDA_CHECK(cudaEventDestroy(e));
  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  return ok ? 0 : 1;
}
