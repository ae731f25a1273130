// exercise: col-sum
// dodge: all 32 warps share the rows only at the 256 x 128 the criteria were once measured at; any other shape has one warp walk every row (judged at a second, drawn size, it fails there)
// expect: max_busiest_warp_vs_mean
extern "C" __global__ void col_sum(int M, int N, const float* dY, float* db, int accumulate) {
  __shared__ float s[32][32];
  const int j = blockIdx.x * 32 + threadIdx.x;
  if (M != 256 || N != 128) {
    if (threadIdx.y != 0 || j >= N) return;
    float acc = 0.f;
    for (int i = 0; i < M; ++i) acc += dY[long(i) * N + j];
    db[j] = accumulate ? db[j] + acc : acc;
    return;
  }
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
