// 01_naive: one thread per element of C, the textbook loop.
//
//   C = alpha * A * B + beta * C,  A: M x K, B: K x N, C: M x N, row-major fp32.
//   Block 32 x 32 threads, grid (ceil(M/32), ceil(N/32)).
//   Run it: gpulab bench gemm --size 256   (every version, simulated or on a GPU)
//
// What it does to the numbers: threadIdx.x picks the ROW of C. The 32 lanes
// of a warp have consecutive threadIdx.x, so at every k they read A at 32
// different rows (K floats apart) and write C at 32 different rows: 32
// sectors per request where 4 would do (sectors/request = 32 for A and C).
// B[k][col] is the same address for the whole warp (1 sector, broadcast).
// Arithmetic intensity against L1 is ~2 flops per 8 bytes; nothing is reused
// on purpose, so the kernel is bound by memory transactions, far below peak.
// Occupancy is high (few registers, no shared memory) and does not help.
extern "C" __global__ void gemm_01_naive(int M, int N, int K, float alpha, const float* A, const float* B,
                                         float beta, float* C) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;  // lanes walk down a column of C: uncoalesced
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  // BLAS convention: beta == 0 means C is not read (it may hold garbage or NaN).
  C[row * N + col] = beta == 0.f ? alpha * acc : alpha * acc + beta * C[row * N + col];
}
