// exercise: wmma-gemm
// dodge: one token mma per tile on zero fragments (into a discarded accumulator) while FP32
//        multiply-adds compute the product: "uses tensor cores" holds, the tensor cores do nothing
// expect: min_tensor_core_mac_share
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
  wmma::fragment<wmma::accumulator, T, T, T, float> junk;
  wmma::fill_fragment(junk, 0.f);
  float part[T * T / 32] = {};
  for (int t = 0; t < K; t += T) {
    for (int e = threadIdx.x; e < T * T; e += 32) {
      int r = e / T, c = e % T;
      As[e] = (row0 + r < M && t + c < K) ? A[(row0 + r) * K + t + c] : __float2half(0.f);
      Bs[e] = (t + r < K && col0 + c < N) ? B[(t + r) * N + col0 + c] : __float2half(0.f);
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, T, T, T, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, T, T, T, __half, wmma::row_major> b;
    // The token: one mma per tile on zero fragments, into a throw-away accumulator.
    wmma::fill_fragment(a, __float2half(0.f));
    wmma::fill_fragment(b, __float2half(0.f));
    wmma::mma_sync(junk, a, b, junk);
    // The real product, on the FP32 units: lane e of the warp owns outputs e, e + 32, ...
    for (int e = threadIdx.x; e < T * T; e += 32) {
      int r = e / T, c = e % T;
      float s = 0.f;
      for (int k = 0; k < T; ++k) s += __half2float(As[r * T + k]) * __half2float(Bs[k * T + c]);
      part[e / 32] += s;
    }
    __syncwarp();
  }
  wmma::store_matrix_sync(Cs, acc, T, wmma::mem_row_major);  // acc is still 0
  __syncwarp();
  for (int e = threadIdx.x; e < T * T; e += 32) Cs[e] += part[e / 32];
  __syncwarp();
  for (int e = threadIdx.x; e < T * T; e += 32) {
    int r = e / T, c = e % T;
    if (row0 + r < M && col0 + c < N) C[(row0 + r) * N + col0 + c] = alpha * Cs[e];
  }
}
