// 08_tensor_core_wmma: fp16 inputs, fp32 accumulation, on tensor cores (WMMA).
//
//   A, B: __half (row-major), C: float. Block tile 64 x 64, BK = 32, 4 warps
//   (2 x 2) of 32 x 32, each 2 x 2 fragments of m16n16k16: 128 threads,
//   grid (ceil(N/64), ceil(M/64)), 27 KiB static shared. Needs sm_70+.
//
// What changed since 07: the warp's inner product is no longer 32 lanes of
// FMAs but wmma::mma_sync on 16 x 16 x 16 fragments (PTX wmma.mma.sync): one
// warp instruction does 4096 multiply-adds (8192 flops) where an FFMA does 64.
// Tensor cores run ~8-16x the SIMT fp32 rate on A100/H100 (H100 SXM: ~990
// dense fp16 TFLOP/s vs ~67 fp32), so the kernel becomes bound by how fast
// tiles reach shared memory; halving the input bytes (fp16) helps that too.
// Instruction counts collapse: per 16 x 16 x 16 step a warp issues 2 fragment
// loads per operand and 1 mma instead of ~512 FFMAs + shared loads.
// Tiles are staged through padded shared memory (row stride 40 / 72 halves)
// with zero fill at the edges so any M, N, K works; the accumulators go back
// through shared memory so the edge tile can be written element by element
// with alpha and beta.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define AS_LD (BK + 8)  // halves; wmma needs ldm % 8 == 0 for 16-bit types
#define BS_LD (BN + 8)
#define CS_LD (BN + 4)  // floats; ldm % 4 == 0 for 32-bit types

extern "C" __global__ void __launch_bounds__(128) gemm_08_tensor_core_wmma(int M, int N, int K, float alpha,
                                                                            const __half* A, const __half* B,
                                                                            float beta, float* C) {
  // wmma load/store need 256-bit aligned pointers (CUDA C++ Programming Guide, WMMA).
  __shared__ __align__(128) __half As[BM * AS_LD];
  __shared__ __align__(128) __half Bs[BK * BS_LD];
  __shared__ __align__(128) float Cs[BM * CS_LD];
  const int tid = threadIdx.x, warp = tid / 32;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  const bool a_vec = (K % 8) == 0, b_vec = (N % 8) == 0;  // 16-byte chunks stay aligned

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.f);

  for (int k0 = 0; k0 < K; k0 += BK) {
    // A tile 64 x 32 halves = 256 chunks of 8, B tile 32 x 64 = 256 chunks: 2 + 2 per thread.
    for (int p = 0; p < 2; ++p) {
      const int f = tid + p * 128;
      {
        const int r = f / (BK / 8), c = (f % (BK / 8)) * 8;
        const int gr = bm + r, gc = k0 + c;
        __half* dst = &As[r * AS_LD + c];
        if (a_vec && gr < M && gc + 7 < K) {
          *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(&A[gr * K + gc]);
        } else {
          for (int e = 0; e < 8; ++e) dst[e] = (gr < M && gc + e < K) ? A[gr * K + gc + e] : __float2half(0.f);
        }
      }
      {
        const int r = f / (BN / 8), c = (f % (BN / 8)) * 8;
        const int gr = k0 + r, gc = bn + c;
        __half* dst = &Bs[r * BS_LD + c];
        if (b_vec && gr < K && gc + 7 < N) {
          *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(&B[gr * N + gc]);
        } else {
          for (int e = 0; e < 8; ++e) dst[e] = (gr < K && gc + e < N) ? B[gr * N + gc + e] : __float2half(0.f);
        }
      }
    }
    __syncthreads();
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
      for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[(wm + i * 16) * AS_LD + kk], AS_LD);
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[kk * BS_LD + wn + j * 16], BS_LD);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(&Cs[(wm + i * 16) * CS_LD + wn + j * 16], acc[i][j], CS_LD, wmma::mem_row_major);
  __syncthreads();
  // Coalesced, bounds-checked write-back: a warp writes 32 consecutive columns.
  for (int f = tid; f < BM * BN; f += 128) {
    const int r = f / BN, c = f % BN;
    const int row = bm + r, col = bn + c;
    if (row < M && col < N) {
      const float v = alpha * Cs[r * CS_LD + c];
      C[row * N + col] = beta == 0.f ? v : v + beta * C[row * N + col];
    }
  }
}
