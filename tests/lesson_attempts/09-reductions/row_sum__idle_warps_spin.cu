// exercise: row-sum
// dodge: warp 0 reads the whole row while the other 7 warps spin through as many steps on shared memory, so every
//        warp issues about as many instructions and an instruction-count balance passes; warp 0 alone makes every
//        global request
// expect: max_busiest_warp_vs_mean
extern "C" __global__ void row_sum(const float* X, float* y, int M, int N) {
  __shared__ float idle[256];
  int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const float* row = X + (long)blockIdx.x * N;
  float acc = 0.f;
  if (warp == 0) {
    for (int i = lane; i < N; i += 32) acc += row[i];
  } else {
    volatile float* spin = idle;
    spin[t] = 0.f;
    for (int i = lane; i < N; i += 32) acc += spin[t];  // spins as long as warp 0 works
  }
  for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if (t == 0) y[blockIdx.x] = acc;
}
