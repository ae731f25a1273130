// exercise: softmax
// dodge: one read of X and one write of Y, but the row is kept in a dynamically indexed array,
//        which lives in local memory: the "registers" are a round trip to memory
// expect: max_memory_traffic_bytes max_dram_bytes
#define MAX_N 256
#define NEG_INF __int_as_float(0xff800000)
extern "C" __global__ void softmax_rows(int M, int N, const float* X, float* Y) {
  int row = blockIdx.x, lane = threadIdx.x;
  volatile float v[MAX_N / 32];
  int n_mine = 0;
  float mx = NEG_INF;
  for (int j = lane; j < N; j += 32) { float t = X[row * N + j]; v[n_mine++] = t; mx = fmaxf(mx, t); }
  for (int o = 16; o > 0; o /= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
  float sum = 0.f;
  for (int i = 0; i < n_mine; ++i) { float e = __expf(v[i] - mx); v[i] = e; sum += e; }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  for (int i = 0; i < n_mine; ++i) Y[row * N + lane + 32 * i] = v[i] / sum;
}
