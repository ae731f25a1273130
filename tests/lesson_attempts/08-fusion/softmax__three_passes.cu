// exercise: softmax
// dodge: all 32 lanes share the row and reduce with shuffles, but the row is read from global
//        memory three times (max, sum, write): at this size the re-reads hit L2, so DRAM bytes
//        alone would pass it
// expect: max_memory_traffic_bytes
#define NEG_INF __int_as_float(0xff800000)
extern "C" __global__ void softmax_rows(int M, int N, const float* X, float* Y) {
  int row = blockIdx.x, lane = threadIdx.x;
  const float* x = X + row * N;
  float mx = NEG_INF;
  for (int j = lane; j < N; j += 32) mx = fmaxf(mx, x[j]);
  for (int o = 16; o > 0; o /= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
  float sum = 0.f;
  for (int j = lane; j < N; j += 32) sum += __expf(x[j] - mx);
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  for (int j = lane; j < N; j += 32) Y[row * N + j] = __expf(x[j] - mx) / sum;
}
