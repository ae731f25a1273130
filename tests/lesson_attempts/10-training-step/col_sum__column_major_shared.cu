// exercise: col-sum
// dodge: the partial sums go to s[threadIdx.x][threadIdx.y]: a warp's 32 lanes (32 columns, one y) hit one bank 32 times
// expect: max_bank_conflicts
extern "C" __global__ void col_sum(int M, int N, const float* dY, float* db, int accumulate) {
  __shared__ float s[32][32];
  const int j = blockIdx.x * 32 + threadIdx.x;
  float acc = 0.f;
  if (j < N)
    for (int i = threadIdx.y; i < M; i += 32) acc += dY[long(i) * N + j];
  s[threadIdx.x][threadIdx.y] = acc;
  __syncthreads();
  for (int w = 16; w > 0; w /= 2) {
    if (threadIdx.y < w) s[threadIdx.x][threadIdx.y] += s[threadIdx.x][threadIdx.y + w];
    __syncthreads();
  }
  if (threadIdx.y == 0 && j < N) db[j] = accumulate ? db[j] + s[threadIdx.x][0] : s[threadIdx.x][0];
}
