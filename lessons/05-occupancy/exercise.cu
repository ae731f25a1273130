// Lesson 5 exercise: register tiling. Each thread computes FOUR outputs.
//
//   C[M][N] = alpha * A[M][K] * B[K][N]   (row-major floats; beta is 0)
//   launched with 32 x 8 threads per block, grid (ceil(N/32), ceil(M/32)).
//
// The block still computes a 32 x 32 tile of C from 32 x 32 shared tiles of
// A and B (lesson 4), but with 256 threads instead of 1024: thread (tx, ty)
// owns rows ty, ty+8, ty+16, ty+24 of column tx. The tile loads are written
// for you. In lesson 4 every FMA needed two shared-memory loads; here one
// value of B, read once into a register, feeds four FMAs.
//
// TODO: the inner product. As shipped it does nothing, so C comes out 0.
#define TILE 32
#define ROWS 4  // outputs per thread (TILE / blockDim.y)

extern "C" __global__ void gemm_regtile(int M, int N, int K, float alpha, const float* A, const float* B,
                                        float beta, float* C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * TILE, col = blockIdx.x * TILE + tx;
  float acc[ROWS] = {0.f, 0.f, 0.f, 0.f};
  for (int t = 0; t < K; t += TILE) {
    for (int i = 0; i < ROWS; ++i) {
      int r = ty + 8 * i;
      As[r][tx] = (row0 + r < M && t + tx < K) ? A[(row0 + r) * K + t + tx] : 0.f;
      Bs[r][tx] = (t + r < K && col < N) ? B[(t + r) * N + col] : 0.f;
    }
    __syncthreads();
    // TODO: for each k, read Bs[k][tx] once into a register and use it for
    // all ROWS outputs: acc[i] += As[ty + 8*i][k] * b.
    __syncthreads();
  }
  for (int i = 0; i < ROWS; ++i) {
    int r = row0 + ty + 8 * i;
    if (r < M && col < N) C[r * N + col] = alpha * acc[i];
  }
}
