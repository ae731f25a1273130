// exercise: bias-gelu
// dodge: the intermediate goes through local memory (a volatile per-thread array), which a check
//        that counts only global traffic does not see
// expect: max_memory_traffic_bytes max_dram_bytes
extern "C" __global__ void bias_gelu(int M, int N, const float* X, const float* b, float* Y) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (col >= N) return;
  volatile float t[4];
  t[col & 3] = X[row * N + col] + b[col];
  float x = t[col & 3];
  Y[row * N + col] = 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}
