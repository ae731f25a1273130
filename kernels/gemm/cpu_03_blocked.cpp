// cpu_03_blocked: cache tiles.
//
// What changed since cpu_02: the j and k loops are cut into tiles so that a
// kKb x kNb tile of B (128 x 256 floats = 128 KiB) stays in the core's L2
// while every row of A streams past it, and the kNb-wide strip of a C row
// (1 KiB) stays in L1 across the whole k tile. Each B element fetched from
// DRAM is now reused M times from L2 instead of once: the CPU analogue of
// staging tiles in shared memory (GPU 03_smem_tiled). Arithmetic intensity
// against DRAM rises from ~1/4 flop/byte to ~kNb*kKb/(kNb+kKb)/4.
// Two details make the tiling pay off in practice:
//  * the B tile is copied into a contiguous buffer (row stride kNb, not N),
//    exactly like the GPU's copy into shared memory: with N a multiple of 1024
//    the rows of B and C otherwise all sit 4 KiB apart, fight over the same L1
//    sets and make every load look like it depends on the last store;
//  * the inner loop folds four rows of B into one pass over the C strip
//    (c += a0*b0 + a1*b1 + a2*b2 + a3*b3), so C is loaded and stored once per
//    four FMAs instead of once per FMA.
#include <algorithm>
#include <vector>

#include "lab/cpu/gemm.h"

namespace lab::cpu {

namespace {
constexpr int kKb = 128;  // rows of B per tile
constexpr int kNb = 256;  // columns of B (and C) per tile: 128 x 256 x 4 B = 128 KiB (L2)
constexpr int kKu = 4;    // rows of B folded into one pass over the C strip

// c[0..n) += a0*b0 + a1*b1 + a2*b2 + a3*b3: one load and one store of C per
// four FMAs instead of per FMA, so the loop is bound by FMAs, not by stores.
inline void axpy4(int n, float* __restrict c, float a0, const float* __restrict b0, float a1,
                  const float* __restrict b1, float a2, const float* __restrict b2, float a3,
                  const float* __restrict b3) {
#pragma GCC ivdep
  for (int j = 0; j < n; ++j) c[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
}

inline void axpy1(int n, float* __restrict c, float a0, const float* __restrict b0) {
  for (int j = 0; j < n; ++j) c[j] += a0 * b0[j];
}
}  // namespace

void gemm_03_blocked(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                     unsigned /*threads*/) {
  for (int i = 0; i < M; ++i) {
    float* c = C + size_t(i) * N;
    for (int j = 0; j < N; ++j) c[j] = beta == 0.f ? 0.f : beta * c[j];
  }
  // The staged B tile (the "shared memory" of this version) and one row's C strip.
  std::vector<float> btile(size_t(kKb) * kNb);
  alignas(64) float cstrip[kNb + 16];
  for (int j0 = 0; j0 < N; j0 += kNb) {
    const int jn = std::min(kNb, N - j0);
    for (int k0 = 0; k0 < K; k0 += kKb) {
      const int kn = std::min(kKb, K - k0);
      const int kfull = kn - kn % kKu;
      // Stage the kn x jn tile of B contiguously (row stride jn, not N): it is
      // then read M times from L2 without cache-set or 4 KiB-alias conflicts.
      for (int k = 0; k < kn; ++k)
        std::copy_n(B + size_t(k0 + k) * N + j0, jn, btile.data() + size_t(k) * jn);
      const float* bt = btile.data();
      for (int i = 0; i < M; ++i) {
        float* crow = C + size_t(i) * N + j0;
        float* c = cstrip + 8;  // this row's C strip, kept in L1 across the whole k tile
        std::copy_n(crow, jn, c);
        const float* a = A + size_t(i) * K + k0;
        int k = 0;
        for (; k < kfull; k += kKu) {
          const float* b = bt + size_t(k) * jn;
          axpy4(jn, c, alpha * a[k], b, alpha * a[k + 1], b + jn, alpha * a[k + 2], b + 2 * jn, alpha * a[k + 3],
                b + 3 * jn);
        }
        for (; k < kn; ++k) axpy1(jn, c, alpha * a[k], bt + size_t(k) * jn);  // edge: K % 4 rows
        std::copy_n(c, jn, crow);
      }
    }
  }
}

}  // namespace lab::cpu
