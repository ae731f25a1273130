// 06_vectorized: 16-byte loads, a transposed A tile, no bank conflicts.
//
//   BM = BN = 128, BK = 8, 8 x 8 outputs per thread: 256 threads (1D block),
//   grid (ceil(N/128), ceil(M/128)), 8.3 KiB static shared.
//
// What changed since 05:
//  * Global loads are float4 (ld.global.v4.f32): one request moves 512 bytes
//    (16 sectors, all used), 4x fewer load instructions. Used when the row
//    stride keeps 16-byte alignment (K % 4 == 0 for A, N % 4 == 0 for B) and
//    the 4 elements are in range; otherwise scalar loads with zero fill, so
//    any M, N, K still works. Interior tiles (the whole tile in range and
//    aligned, tested once per block and k-step) skip the per-element checks,
//    so the tile's loads issue together before its shared stores.
//  * A is stored transposed (As[k][m]) so a thread's 8 A values for one k are
//    contiguous: 2 float4 shared loads instead of 8 scalar ones. The row
//    stride is padded to BM + 4 floats so the transposing stores (16 rows x 2
//    k-quads per warp) land in 32 distinct banks.
//  * A thread's 8 x 8 tile is split into 2 x 2 quads 64 apart (rows ty*4 and
//    64 + ty*4, columns tx*4 and 64 + tx*4), so the 8 lanes served together
//    in one 128-bit phase read 8 consecutive float4s: 0 bank conflicts
//    (05 had 4-way ones). C is written with float4 stores.
// Expected: shared wavefronts per FMA fall ~4x vs 05, conflicts reach 0.
#define BM 128
#define BN 128
#define BK 8
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

extern "C" __global__ void __launch_bounds__(256) gemm_06_vectorized(int M, int N, int K, float alpha,
                                                                      const float* A, const float* B,
                                                                      float beta, float* C) {
  __shared__ __align__(16) float As[BK * AS_STRIDE];  // transposed: As[k][m]
  __shared__ __align__(16) float Bs[BK * BN];         // Bs[k][n]
  const int tid = threadIdx.x;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  const int tx = tid % 16, ty = tid / 16;
  const bool a_vec = (K % 4) == 0, b_vec = (N % 4) == 0;
  // Loader coordinates: A tile 128 x 8 = 256 float4 (row, k-quad); B tile 8 x 128.
  const int a_row = tid / 2, a_kq = (tid % 2) * 4;
  const int b_k = tid / 32, b_col = (tid % 32) * 4;

  float acc[8][8] = {{0.f}};
  for (int k0 = 0; k0 < K; k0 += BK) {
    const int ga_r = bm + a_row, ga_k = k0 + a_kq;  // this thread's A float4
    const int gb_k = k0 + b_k, gb_c = bn + b_col;   // this thread's B float4
    float4 va, vb;
    if (a_vec && b_vec && bm + BM <= M && bn + BN <= N && k0 + BK <= K) {
      // Interior fast path: the whole A and B tile of this k-step is in range
      // and 16-byte aligned. The test is the same for every thread of the
      // block (no divergence), and with no bounds check between them both
      // loads issue back to back before any shared store, so their latencies
      // overlap. Edge tiles and odd sizes take the checked path below.
      va = *reinterpret_cast<const float4*>(&A[ga_r * K + ga_k]);
      vb = *reinterpret_cast<const float4*>(&B[gb_k * N + gb_c]);
    } else {
      va = load_a4_checked(A, M, K, a_vec, ga_r, ga_k);
      vb = load_b4_checked(B, N, K, b_vec, gb_k, gb_c);
    }
    As[(a_kq + 0) * AS_STRIDE + a_row] = va.x;
    As[(a_kq + 1) * AS_STRIDE + a_row] = va.y;
    As[(a_kq + 2) * AS_STRIDE + a_row] = va.z;
    As[(a_kq + 3) * AS_STRIDE + a_row] = va.w;
    *reinterpret_cast<float4*>(&Bs[b_k * BN + b_col]) = vb;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[8], b[8];
      *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&As[k * AS_STRIDE + ty * 4]);
      *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&As[k * AS_STRIDE + 64 + ty * 4]);
      *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Bs[k * BN + tx * 4]);
      *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Bs[k * BN + 64 + tx * 4]);
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = bm + (i / 4) * 64 + ty * 4 + (i % 4);
    if (row >= M) continue;
#pragma unroll
    for (int jq = 0; jq < 2; ++jq) {
      const int col = bn + jq * 64 + tx * 4;
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
