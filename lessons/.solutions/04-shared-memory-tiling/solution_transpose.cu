// Lesson 4 reference solution, exercise 2: the padded tile.
//
// With 33 floats per row, element [i][j] sits at word 33*i + j, in bank
// (33*i + j) mod 32 = (i + j) mod 32. Reading a column (i = lane, j fixed)
// now visits 32 different banks: one wavefront instead of 32.
#define TILE 32

extern "C" __global__ void transpose_tiled(const float* in, float* out, int M, int N) {
  __shared__ float tile[TILE][TILE + 1];  // +1: one padding word per row shifts each row by one bank
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < N && y < M) tile[threadIdx.y][threadIdx.x] = in[y * N + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < M && y < N) out[y * M + x] = tile[threadIdx.x][threadIdx.y];
}
