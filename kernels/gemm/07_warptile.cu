// 07_warptile: a warp owns a 64 x 64 tile of C; each thread 8 x 16 outputs.
//
//   BM = BN = 128, BK = 16: 4 warps (2 x 2) of 64 x 64, 128 threads (1D block),
//   grid (ceil(N/128), ceil(M/128)), 16.6 KiB static shared.
//
// What changed since 06:
//  * The block is split into warp tiles, and lanes within a warp form an
//    8 x 4 grid over their 64 x 64 tile: a thread owns rows {ly*4 + 32*i} and
//    columns {lx*4 + 16*j} (i < 2, j < 4), 8 x 16 = 128 accumulators. Per k
//    it issues 2 + 4 float4 shared loads for 128 FMAs: 0.047 loads per FMA
//    (06: 4 per 64 = 0.0625), and each warp touches only 64 + 64 shared
//    words per k (06: 16 + 128), so shared wavefronts per FMA fall again.
//  * BK = 16 halves the barriers per flop; half the threads per block for the
//    same tile (128 vs 256) means more registers per thread (~170) and lower
//    occupancy, traded for instruction-level parallelism inside a thread.
//  * Loads stay float4 and conflict-free: each warp stores a 16-row x 2-k-quad
//    slab of the transposed A tile (stride BM + 4 puts the two quads 16 banks
//    apart) and 512 contiguous bytes of B. As in 06, interior tiles skip
//    the per-element bounds checks, so a thread's 8 tile loads all issue
//    before its first shared store.
// This is the CUTLASS hierarchy (block tile, warp tile, thread tile) on SIMT
// cores; 08 keeps the warp tile and hands its inner product to tensor cores.
#define BM 128
#define BN 128
#define BK 16
#define WM 64
#define WN 64
#define AS_STRIDE (BM + 4)

// Checked loads for edge tiles: a float4 where the row stride keeps 16-byte
// alignment and all 4 elements are in range, else scalar loads with zero fill.
__device__ __forceinline__ float4 load_a4_checked(const float* A, int M, int K, bool a_vec, int gr, int gk) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (gr < M) {
    if (a_vec && gk + 3 < K) {
      v = *reinterpret_cast<const float4*>(&A[gr * K + gk]);
    } else {
      if (gk + 0 < K) v.x = A[gr * K + gk + 0];
      if (gk + 1 < K) v.y = A[gr * K + gk + 1];
      if (gk + 2 < K) v.z = A[gr * K + gk + 2];
      if (gk + 3 < K) v.w = A[gr * K + gk + 3];
    }
  }
  return v;
}
__device__ __forceinline__ float4 load_b4_checked(const float* B, int N, int K, bool b_vec, int gk, int gc) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (gk < K) {
    if (b_vec && gc + 3 < N) {
      v = *reinterpret_cast<const float4*>(&B[gk * N + gc]);
    } else {
      if (gc + 0 < N) v.x = B[gk * N + gc + 0];
      if (gc + 1 < N) v.y = B[gk * N + gc + 1];
      if (gc + 2 < N) v.z = B[gk * N + gc + 2];
      if (gc + 3 < N) v.w = B[gk * N + gc + 3];
    }
  }
  return v;
}

extern "C" __global__ void __launch_bounds__(128) gemm_07_warptile(int M, int N, int K, float alpha,
                                                                    const float* A, const float* B,
                                                                    float beta, float* C) {
  __shared__ __align__(16) float As[BK * AS_STRIDE];  // transposed: As[k][m]
  __shared__ __align__(16) float Bs[BK * BN];         // Bs[k][n]
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  const int wm = (warp / 2) * WM, wn = (warp % 2) * WN;  // warp tile origin in the block tile
  const int ly = lane / 4, lx = lane % 4;                 // lane grid 8 x 4
  const bool a_vec = (K % 4) == 0, b_vec = (N % 4) == 0;

  float acc[8][16] = {{0.f}};
  for (int k0 = 0; k0 < K; k0 += BK) {
    // A tile 128 x 16 = 512 float4, 4 per thread. Pass p covers rows (p/2)*64 + tid/2,
    // k-quad (p%2)*2 + tid%2: a warp stores 16 rows x 2 quads (conflict-free).
    // B tile 16 x 128 = 512 float4, 4 per thread: a warp moves one 512-byte row.
    float4 va[4], vb[4];
    if (a_vec && b_vec && bm + BM <= M && bn + BN <= N && k0 + BK <= K) {
      // Interior fast path: the whole A and B tile of this k-step is in range
      // and 16-byte aligned. The test is the same for every thread of the
      // block (no divergence), and with no bounds check between them all 8
      // loads issue back to back before any shared store, so their latencies
      // overlap. Edge tiles and odd sizes take the checked path below.
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        const int r = (p / 2) * 64 + tid / 2, kq = ((p % 2) * 2 + tid % 2) * 4;
        va[p] = *reinterpret_cast<const float4*>(&A[(bm + r) * K + k0 + kq]);
      }
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        const int kr = p * 4 + tid / 32, c = (tid % 32) * 4;
        vb[p] = *reinterpret_cast<const float4*>(&B[(k0 + kr) * N + bn + c]);
      }
    } else {
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        const int r = (p / 2) * 64 + tid / 2, kq = ((p % 2) * 2 + tid % 2) * 4;
        va[p] = load_a4_checked(A, M, K, a_vec, bm + r, k0 + kq);
      }
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        const int kr = p * 4 + tid / 32, c = (tid % 32) * 4;
        vb[p] = load_b4_checked(B, N, K, b_vec, k0 + kr, bn + c);
      }
    }
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const int r = (p / 2) * 64 + tid / 2, kq = ((p % 2) * 2 + tid % 2) * 4;
      As[(kq + 0) * AS_STRIDE + r] = va[p].x;
      As[(kq + 1) * AS_STRIDE + r] = va[p].y;
      As[(kq + 2) * AS_STRIDE + r] = va[p].z;
      As[(kq + 3) * AS_STRIDE + r] = va[p].w;
    }
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const int kr = p * 4 + tid / 32, c = (tid % 32) * 4;
      *reinterpret_cast<float4*>(&Bs[kr * BN + c]) = vb[p];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[8], b[16];
#pragma unroll
      for (int i = 0; i < 2; ++i)
        *reinterpret_cast<float4*>(&a[i * 4]) =
            *reinterpret_cast<const float4*>(&As[k * AS_STRIDE + wm + i * 32 + ly * 4]);
#pragma unroll
      for (int j = 0; j < 4; ++j)
        *reinterpret_cast<float4*>(&b[j * 4]) = *reinterpret_cast<const float4*>(&Bs[k * BN + wn + j * 16 + lx * 4]);
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 16; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = bm + wm + (i / 4) * 32 + ly * 4 + (i % 4);
    if (row >= M) continue;
#pragma unroll
    for (int jq = 0; jq < 4; ++jq) {
      const int col = bn + wn + jq * 16 + lx * 4;
      float* c = &C[row * N + col];
      const float* r = &acc[i][jq * 4];
      if (b_vec && col + 3 < N) {
        float4 out = make_float4(alpha * r[0], alpha * r[1], alpha * r[2], alpha * r[3]);
        if (beta != 0.f) {
          const float4 old = *reinterpret_cast<const float4*>(c);
          out.x += beta * old.x; out.y += beta * old.y; out.z += beta * old.z; out.w += beta * old.w;
        }
        *reinterpret_cast<float4*>(c) = out;
      } else {
        for (int j = 0; j < 4; ++j)
          if (col + j < N) c[j] = beta == 0.f ? alpha * r[j] : alpha * r[j] + beta * c[j];
      }
    }
  }
}
