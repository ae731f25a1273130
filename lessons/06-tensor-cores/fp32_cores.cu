// lessons/06-tensor-cores/fp32_cores.cu: the WMMA kernel's tile on the FP32 cores.
//
// The same problem, launch and staging as the lesson's WMMA kernel (one warp
// per 16 x 16 tile of C, fp16 tiles of A and B in shared memory, fp32
// accumulation), but the multiply is done by the warp's 32 lanes with FP32
// multiply-adds: each lane owns 8 of the tile's 256 outputs. The lesson's
// before/after runs this beside the tensor-core version.
#include <cuda_fp16.h>

#define T 16

extern "C" __global__ void gemm_fp32_cores(int M, int N, int K, float alpha, const __half* A, const __half* B,
                                           float beta, float* C) {
  __shared__ __half As[T * T];
  __shared__ __half Bs[T * T];
  const int row0 = blockIdx.y * T, col0 = blockIdx.x * T;
  const int c = threadIdx.x % T, r0 = threadIdx.x / T;  // rows r0, r0 + 2, ..., r0 + 14
  float acc[8] = {};
  for (int t = 0; t < K; t += T) {
    for (int e = threadIdx.x; e < T * T; e += 32) {
      int r = e / T, cc = e % T;
      As[e] = (row0 + r < M && t + cc < K) ? A[(row0 + r) * K + t + cc] : __float2half(0.f);
      Bs[e] = (t + r < K && col0 + cc < N) ? B[(t + r) * N + col0 + cc] : __float2half(0.f);
    }
    __syncwarp();
    for (int k = 0; k < T; ++k) {
      float b = __half2float(Bs[k * T + c]);
      for (int i = 0; i < 8; ++i) acc[i] += __half2float(As[(r0 + 2 * i) * T + k]) * b;
    }
    __syncwarp();
  }
  for (int i = 0; i < 8; ++i) {
    int row = row0 + r0 + 2 * i, col = col0 + c;
    if (row < M && col < N) C[row * N + col] = alpha * acc[i] + (beta != 0.f ? beta * C[row * N + col] : 0.f);
  }
}
