// cpu_01_naive: the textbook triple loop, i-j-k.
//
// What it does to the numbers: the inner k loop walks A along a row (good) and
// B down a column, one float per row of B, N*4 bytes apart. Every B access
// touches a new 64-byte cache line and uses 4 of its bytes: the CPU version of
// an uncoalesced load (GPU 01_naive). Nothing is reused from cache once B
// outgrows L2, so the run is bound by memory latency, not arithmetic.
#include "lab/cpu/gemm.h"

namespace lab::cpu {

void gemm_01_naive(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                   unsigned /*threads*/) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float acc = 0.f;
      for (int k = 0; k < K; ++k) acc += A[size_t(i) * K + k] * B[size_t(k) * N + j];
      float* c = &C[size_t(i) * N + j];
      // BLAS convention: beta == 0 means C is not read (it may hold NaN).
      *c = beta == 0.f ? alpha * acc : alpha * acc + beta * *c;
    }
}

}  // namespace lab::cpu
