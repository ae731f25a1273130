// Lesson 6 reference solution: a GEMM on the tensor cores with WMMA.
//
//   C[M][N] = alpha * A[M][K] * B[K][N]   A, B in fp16 (__half), C in fp32, beta is 0
//   launched with ONE warp (32 threads) per block, grid (ceil(N/16), ceil(M/16)).
//
// Each warp computes a 16 x 16 tile of C with 16 x 16 x 16 matrix
// multiply-accumulates (D = A * B + C on the tensor cores: fp16 inputs, fp32
// accumulation). Tiles of A and B are staged in shared memory padded with
// zeros, so sizes that are not multiples of 16 work too. Everything is written
// except the multiply itself: as shipped, the accumulator stays 0.
//
// Products of two fp16 numbers are exact in fp32 (11 + 11 significand bits
// fit in 24), so the only rounding is in the fp32 accumulation.
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

#define T 16

extern "C" __global__ void gemm_wmma(int M, int N, int K, float alpha, const __half* A, const __half* B,
                                     float beta, float* C) {
  __shared__ __half As[T * T];
  __shared__ __half Bs[T * T];
  __shared__ float Cs[T * T];
  const int row0 = blockIdx.y * T, col0 = blockIdx.x * T;
  wmma::fragment<wmma::accumulator, T, T, T, float> acc;
  wmma::fill_fragment(acc, 0.f);
  for (int t = 0; t < K; t += T) {
    for (int e = threadIdx.x; e < T * T; e += 32) {
      int r = e / T, c = e % T;
      As[e] = (row0 + r < M && t + c < K) ? A[(row0 + r) * K + t + c] : __float2half(0.f);
      Bs[e] = (t + r < K && col0 + c < N) ? B[(t + r) * N + col0 + c] : __float2half(0.f);
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, T, T, T, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, T, T, T, __half, wmma::row_major> b;
    wmma::load_matrix_sync(a, As, T);  // the warp's 32 lanes each hold a slice of the 16 x 16 tile
    wmma::load_matrix_sync(b, Bs, T);
    wmma::mma_sync(acc, a, b, acc);    // 16 x 16 x 16 multiply-accumulate on the tensor cores
    __syncwarp();
  }
  wmma::store_matrix_sync(Cs, acc, T, wmma::mem_row_major);
  __syncwarp();
  for (int e = threadIdx.x; e < T * T; e += 32) {
    int r = e / T, c = e % T;
    if (row0 + r < M && col0 + c < N) C[(row0 + r) * N + col0 + c] = alpha * Cs[e];
  }
}
