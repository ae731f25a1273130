// 02_coalesced: the same arithmetic with threadIdx.x picking the COLUMN.
//
//   Block 32 x 32 threads, grid (ceil(N/32), ceil(M/32)).
//
// What changed since 01: two index expressions swapped. Now the 32 lanes of a
// warp hold consecutive columns of one row of C, so B[k][col..col+31] and
// C[row][col..col+31] are 128 contiguous bytes: 4 sectors per request, the
// minimum (global load efficiency ~100%). A[row][k] is one address for the
// warp (broadcast). Same instruction count as 01, ~8x fewer sectors for B and
// C; DRAM traffic drops and the kernel runs several times faster. It still
// re-reads every A and B element from L1/L2 once per output it feeds
// (arithmetic intensity ~0.25 flop/byte), which 03 addresses.
extern "C" __global__ void gemm_02_coalesced(int M, int N, int K, float alpha, const float* A, const float* B,
                                             float beta, float* C) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // lanes walk along a row of C: coalesced
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = beta == 0.f ? alpha * acc : alpha * acc + beta * C[row * N + col];
}
