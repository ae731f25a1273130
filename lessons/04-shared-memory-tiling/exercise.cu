// Lesson 4 exercise 1: a shared-memory tiled GEMM.
//
//   C[M][N] = alpha * A[M][K] * B[K][N]   (row-major floats; beta is 0)
//   launched with TILE x TILE = 32 x 32 threads, grid (ceil(N/32), ceil(M/32)).
//
// Each block computes one 32 x 32 tile of C. Instead of every thread reading
// its own row of A and column of B from global memory (lesson 3's kernel,
// which reads each element of A and B 32 times per block), the block loads a
// 32 x 32 tile of A and one of B into shared memory, waits for everyone,
// and then every thread reads its operands from the shared tiles.
//
// Fill in the two TODOs. Sizes need not be multiples of 32: a thread whose
// element lies outside A or B must store 0 into the tile (so it adds nothing),
// and only threads inside C store a result.
#define TILE 32

extern "C" __global__ void gemm_tiled(int M, int N, int K, float alpha, const float* A, const float* B,
                                      float beta, float* C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float acc = 0.f;
  for (int t = 0; t < K; t += TILE) {
    // TODO 1: load one element of the A tile (row `row`, column t + tx) and one
    // of the B tile (row t + ty, column `col`), or 0 when out of range.
    As[ty][tx] = 0.f;
    Bs[ty][tx] = 0.f;
    __syncthreads();  // the tiles are complete before anyone reads them
    // TODO 2: accumulate this tile's contribution: acc += As[ty][k] * Bs[k][tx] for k in 0..TILE-1.
    __syncthreads();  // everyone is done reading before the next tile overwrites it
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc;
}
