// Lesson 4 exercise 2: bank conflicts and padding, on a matrix transpose.
//
//   out[N][M] = in[M][N] transposed (row-major floats)
//   launched with 32 x 32 threads per block, grid (ceil(N/32), ceil(M/32)).
//
// Reading a row of `in` and writing a row of `out` are both coalesced because
// the block stages a 32 x 32 tile in shared memory: it writes the tile by
// rows and reads it back by columns. As shipped the kernel is CORRECT, but
// `gpulab check 04-shared-memory-tiling/transpose` fails max_bank_conflicts:
// tile[threadIdx.x][threadIdx.y] puts the 32 lanes of a warp on addresses
// 32 words apart, which all fall in the same one of the 32 banks.
//
// TODO: change the tile's declaration (one line) so that the column read is
// conflict-free. The rest of the kernel stays as it is.
#define TILE 32

extern "C" __global__ void transpose_tiled(const float* in, float* out, int M, int N) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;  // column in `in`
  int y = blockIdx.y * TILE + threadIdx.y;  // row in `in`
  if (x < N && y < M) tile[threadIdx.y][threadIdx.x] = in[y * N + x];
  __syncthreads();
  // Transposed block: blockIdx.y now picks the column of `out`.
  x = blockIdx.y * TILE + threadIdx.x;  // column in `out` (a row index of `in`)
  y = blockIdx.x * TILE + threadIdx.y;  // row in `out` (a column index of `in`)
  if (x < M && y < N) out[y * M + x] = tile[threadIdx.x][threadIdx.y];
}
