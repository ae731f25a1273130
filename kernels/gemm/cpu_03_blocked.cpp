// cpu_03_blocked: cache tiles.
//
// What changed since cpu_02: the j and k loops are cut into tiles so that a
// kKb x kNb tile of B (128 x 256 floats = 128 KiB) stays in the core's L2
// while every row of A streams past it, and the kNb-wide strip of a C row
// (1 KiB) stays in L1 across the whole k tile. Each B element fetched from
// DRAM is now reused M times from L2 instead of once: the CPU analogue of
// staging tiles in shared memory (GPU 03_smem_tiled). Arithmetic intensity
// against DRAM rises from ~1/4 flop/byte to ~kNb*kKb/(kNb+kKb)/4.
#include <algorithm>

#include "lab/cpu/gemm.h"

namespace lab::cpu {

namespace {
constexpr int kKb = 128;  // rows of B per tile
constexpr int kNb = 256;  // columns of B (and C) per tile
}  // namespace

void gemm_03_blocked(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                     unsigned /*threads*/) {
  for (int i = 0; i < M; ++i) {
    float* c = C + size_t(i) * N;
    for (int j = 0; j < N; ++j) c[j] = beta == 0.f ? 0.f : beta * c[j];
  }
  for (int j0 = 0; j0 < N; j0 += kNb) {
    const int jn = std::min(kNb, N - j0);
    for (int k0 = 0; k0 < K; k0 += kKb) {
      const int kn = std::min(kKb, K - k0);
      for (int i = 0; i < M; ++i) {
        float* __restrict c = C + size_t(i) * N + j0;
        const float* a = A + size_t(i) * K + k0;
        for (int k = 0; k < kn; ++k) {
          const float av = alpha * a[k];
          const float* __restrict b = B + size_t(k0 + k) * N + j0;
          for (int j = 0; j < jn; ++j) c[j] += av * b[j];
        }
      }
    }
  }
}

}  // namespace lab::cpu
