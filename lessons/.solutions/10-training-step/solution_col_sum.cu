// Lesson 10 exercise, reference solution: the bias gradient db[j] = sum over
// the M rows of dY[i][j] (+= db[j] when accumulating micro-batches), with
// all 32 warps of a 32 x 32 block. Thread (x, y) sums rows y, y + 32, ... of
// column 32 b + x: a warp reads 32 consecutive floats of one row (4 sectors).
// The 32 partial sums of a column meet in shared memory and fold in a tree
// (lesson 9's sequential addressing, along y: each warp works on one row of
// the array, 32 banks, no conflict), and one thread writes db[j].
extern "C" __global__ void col_sum(int M, int N, const float* dY, float* db, int accumulate) {
  __shared__ float s[32][32];
  const int j = blockIdx.x * 32 + threadIdx.x;
  float acc = 0.f;
  if (j < N)
    for (int i = threadIdx.y; i < M; i += 32) acc += dY[long(i) * N + j];
  s[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  for (int w = 16; w > 0; w /= 2) {
    if (threadIdx.y < w) s[threadIdx.y][threadIdx.x] += s[threadIdx.y + w][threadIdx.x];
    __syncthreads();
  }
  if (threadIdx.y == 0 && j < N) db[j] = accumulate ? db[j] + s[0][threadIdx.x] : s[0][threadIdx.x];
}
