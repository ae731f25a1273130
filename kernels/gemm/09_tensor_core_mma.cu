// 09_tensor_core_mma: mma.sync m16n8k16 with ldmatrix and cp.async double
// buffering (the instructions WMMA hides, used directly).
//
//   A, B: __half (row-major), C: float. Block tile 128 x 128, BK = 32, 8 warps
//   (2 x 4) of 64 x 32, each 4 x 4 mma tiles of m16n8k16: 256 threads,
//   grid (ceil(N/128), ceil(M/128)), 37 KiB static shared. Needs sm_80+.
//
// What changed since 08:
//  * PTX mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 directly, with
//    fragments loaded by ldmatrix (x4 for A; x4.trans for B, which lies
//    k-major in shared memory and must arrive n-major): one ldmatrix moves four
//    8 x 8 tiles into exactly the registers mma expects (PTX ISA 9.7.14.5.8,
//    "Matrix Fragments for mma.m16n8k16"), no shuffles.
//  * Bigger tiles: 128 x 128 per block and 64 x 32 per warp (64 fp32
//    accumulators per thread) double the reuse of every shared byte vs 08.
//  * cp.async (PTX ISA 9.7.9.25) copies global -> shared without passing
//    through registers, and two shared buffers let the copy of tile k+1 run
//    while the tensor cores work on tile k (commit_group / wait_group 1):
//    memory latency is hidden instead of waited for at every barrier.
//  * Padding: shared rows are 40 (A) and 136 (B) halves, so the 8 row
//    addresses of each ldmatrix 8 x 8 tile fall in 8 distinct 16-byte bank
//    groups: no bank conflicts.
// Edges: a 16-byte chunk fully outside the matrix is copied with src-size 0
// (cp.async zero-fills the rest); when K or N is not a multiple of 8 the
// chunks are not 16-byte aligned, so those tiles are loaded element by
// element with zero fill instead. Any M, N, K works.
#include <cuda_fp16.h>

#define BM 128
#define BN 128
#define BK 32
#define AS_LD (BK + 8)  // 80-byte rows: ldmatrix rows hit distinct bank groups
#define BS_LD (BN + 8)  // 272-byte rows

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 16-byte async copy; src_bytes < 16 zero-fills the remainder (0: all zeros, src not read).
__device__ __forceinline__ void cp_async16(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src), "r"(src_bytes));
}

// Loads one BM x BK tile of A and one BK x BN tile of B into shared stage buffers.
__device__ __forceinline__ void load_tiles(int M, int N, int K, const __half* A, const __half* B, __half* As,
                                           __half* Bs, int bm, int bn, int k0, int tid, bool a_vec, bool b_vec) {
#pragma unroll
  for (int p = 0; p < 2; ++p) {  // A: 128 x 32 halves = 512 chunks of 8
    const int f = tid + p * 256;
    const int r = f / (BK / 8), c = (f % (BK / 8)) * 8;
    const int gr = bm + r, gc = k0 + c;
    __half* dst = &As[r * AS_LD + c];
    if (a_vec) {
      const bool in = gr < M && gc < K;  // K % 8 == 0: a chunk is all in or all out
      cp_async16(dst, in ? &A[gr * K + gc] : A, in ? 16 : 0);
    } else {
      for (int e = 0; e < 8; ++e) dst[e] = (gr < M && gc + e < K) ? A[gr * K + gc + e] : __float2half(0.f);
    }
  }
#pragma unroll
  for (int p = 0; p < 2; ++p) {  // B: 32 x 128 halves = 512 chunks of 8
    const int f = tid + p * 256;
    const int r = f / (BN / 8), c = (f % (BN / 8)) * 8;
    const int gr = k0 + r, gc = bn + c;
    __half* dst = &Bs[r * BS_LD + c];
    if (b_vec) {
      const bool in = gr < K && gc < N;
      cp_async16(dst, in ? &B[gr * N + gc] : B, in ? 16 : 0);
    } else {
      for (int e = 0; e < 8; ++e) dst[e] = (gr < K && gc + e < N) ? B[gr * N + gc + e] : __float2half(0.f);
    }
  }
}

extern "C" __global__ void __launch_bounds__(256) gemm_09_tensor_core_mma(int M, int N, int K, float alpha,
                                                                           const __half* A, const __half* B,
                                                                           float beta, float* C) {
  __shared__ __align__(128) __half As[2][BM * AS_LD];
  __shared__ __align__(128) __half Bs[2][BK * BS_LD];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  const int wm = (warp / 4) * 64, wn = (warp % 4) * 32;
  const bool a_vec = (K % 8) == 0, b_vec = (N % 8) == 0;

  float acc[4][4][4] = {};  // [m16 tile][n8 tile][c0..c3]
  const int tiles = (K + BK - 1) / BK;

  load_tiles(M, N, K, A, B, As[0], Bs[0], bm, bn, 0, tid, a_vec, b_vec);
  asm volatile("cp.async.commit_group;\n" ::);
  for (int t = 0; t < tiles; ++t) {
    const int cur = t % 2;
    if (t + 1 < tiles) {  // start the next copy, then wait for all but it
      load_tiles(M, N, K, A, B, As[cur ^ 1], Bs[cur ^ 1], bm, bn, (t + 1) * BK, tid, a_vec, b_vec);
      asm volatile("cp.async.commit_group;\n" ::);
      asm volatile("cp.async.wait_group 1;\n" ::);
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::);
    }
    __syncthreads();
    const __half* as = As[cur];
    const __half* bs = Bs[cur];
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      unsigned a[4][4], b[4][2];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        // Lanes 0-15 give rows 0-15 at k, lanes 16-31 rows 0-15 at k + 8:
        // the four 8 x 8 tiles a0..a3 of the m16n8k16 A fragment.
        const __half* p = &as[(wm + mi * 16 + (lane & 15)) * AS_LD + kk + (lane >> 4) * 8];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a[mi][0]), "=r"(a[mi][1]), "=r"(a[mi][2]), "=r"(a[mi][3])
                     : "r"(smem_u32(p)));
      }
#pragma unroll
      for (int nj = 0; nj < 4; nj += 2) {
        // Lanes 0-15 give k rows 0-15 at n, lanes 16-31 the same rows at n + 8;
        // .trans delivers them as the column-major b0, b1 of two n8 tiles.
        const __half* p = &bs[(kk + (lane & 15)) * BS_LD + wn + nj * 8 + (lane >> 4) * 8];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(b[nj][0]), "=r"(b[nj][1]), "=r"(b[nj + 1][0]), "=r"(b[nj + 1][1])
                     : "r"(smem_u32(p)));
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int nj = 0; nj < 4; ++nj)
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
              "{%8, %9}, {%0, %1, %2, %3};\n"
              : "+f"(acc[mi][nj][0]), "+f"(acc[mi][nj][1]), "+f"(acc[mi][nj][2]), "+f"(acc[mi][nj][3])
              : "r"(a[mi][0]), "r"(a[mi][1]), "r"(a[mi][2]), "r"(a[mi][3]), "r"(b[nj][0]), "r"(b[nj][1]));
    }
    __syncthreads();  // the buffer just read is the next one overwritten
  }
  // Accumulator layout (PTX ISA, m16n8 f32 C/D fragment): c0, c1 at row
  // lane/4, columns 2*(lane%4) + {0, 1}; c2, c3 at row lane/4 + 8.
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int nj = 0; nj < 4; ++nj)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = bm + wm + mi * 16 + lane / 4 + (e / 2) * 8;
        const int col = bn + wn + nj * 8 + (lane % 4) * 2 + (e % 2);
        if (row < M && col < N) {
          const float v = alpha * acc[mi][nj][e];
          C[row * N + col] = beta == 0.f ? v : v + beta * C[row * N + col];
        }
      }
}
