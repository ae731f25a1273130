// 05_blocktile_2d: each thread computes an 8 x 8 tile of C (2D register tile).
//
//   BM = BN = 128, BK = 8, TM = TN = 8: 256 threads (1D block), grid
//   (ceil(N/128), ceil(M/128)), 8 KiB static shared.
//
// What changed since 04: the thread tile is 8 x 8 = 64 accumulators. Per k
// the thread loads 8 A values and 8 B values into registers and does 64 FMAs:
// 16 shared loads per 64 FMAs (0.25 per FMA, vs ~1.1 in 04). The block tile
// is 128 x 128, so each global element is reused 128 times from shared memory:
// arithmetic intensity against L2/DRAM ~16 flops per byte, enough to be
// compute bound on every modelled GPU at large sizes. Costs: ~100+ registers
// per thread (occupancy falls to ~2 blocks per SM) and bank conflicts: the
// 16 lanes of a half-warp read Bs at a stride of 8 words (4-way conflict) and
// the two half-warps read As words 64 apart (same bank, 2-way). All loads are
// scalar (4 bytes). 06 fixes the conflicts and vectorises the loads.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

extern "C" __global__ void __launch_bounds__(256) gemm_05_blocktile_2d(int M, int N, int K, float alpha,
                                                                        const float* A, const float* B,
                                                                        float beta, float* C) {
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  const int tid = threadIdx.x;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  const int thread_row = tid / (BN / TN), thread_col = tid % (BN / TN);  // 16 x 16 threads
  float acc[TM][TN] = {{0.f}};
  float a_reg[TM], b_reg[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
    // 1024 elements per tile, 256 threads: 4 each. A: 8 consecutive k per row;
    // B: 128 consecutive columns per row (coalesced).
    for (int i = 0; i < 4; ++i) {
      const int f = tid + i * 256;
      const int ar = f / BK, ac = f % BK;
      As[ar * BK + ac] = (bm + ar < M && k0 + ac < K) ? A[(bm + ar) * K + k0 + ac] : 0.f;
      const int br = f / BN, bc = f % BN;
      Bs[br * BN + bc] = (k0 + br < K && bn + bc < N) ? B[(k0 + br) * N + bn + bc] : 0.f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
      for (int i = 0; i < TM; ++i) a_reg[i] = As[(thread_row * TM + i) * BK + k];
      for (int j = 0; j < TN; ++j) b_reg[j] = Bs[k * BN + thread_col * TN + j];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i) {
    const int row = bm + thread_row * TM + i;
    if (row >= M) continue;
    for (int j = 0; j < TN; ++j) {
      const int col = bn + thread_col * TN + j;
      if (col < N) C[row * N + col] = beta == 0.f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * C[row * N + col];
    }
  }
}
