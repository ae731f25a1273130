// cpu_02_reordered: the same loops in i-k-j order.
//
// What changed since cpu_01: k moved out of the inner loop. The inner loop now
// does c[i][j] += a[i][k] * b[k][j] for consecutive j, so it streams one row of
// B and one row of C, both contiguous: every byte of every cache line is used
// and the compiler vectorises the loop with 8-wide FMAs. This is the CPU
// analogue of coalescing (GPU 02_coalesced): same arithmetic, far fewer
// memory transactions per useful byte. B is still re-read from memory once
// per row of C, so for large N*K the loop is bound by L3/DRAM bandwidth.
#include "lab/cpu/gemm.h"

namespace lab::cpu {

void gemm_02_reordered(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                       float* C, unsigned /*threads*/) {
  for (int i = 0; i < M; ++i) {
    float* __restrict c = C + size_t(i) * N;
    for (int j = 0; j < N; ++j) c[j] = beta == 0.f ? 0.f : beta * c[j];
    for (int k = 0; k < K; ++k) {
      const float a = alpha * A[size_t(i) * K + k];
      const float* __restrict b = B + size_t(k) * N;
      for (int j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}

}  // namespace lab::cpu
