// Lesson 8 demo: bias + GELU as two kernels, the way a framework runs two
// separate ops. Each kernel reads its whole input from global memory and
// writes its whole output back: the intermediate T makes a round trip.
__device__ float gelu_tanh(float x) {
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (Hendrycks & Gimpel 2016)
  return 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

extern "C" __global__ void add_bias(int M, int N, const float* X, const float* b, float* T) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (col < N) T[row * N + col] = X[row * N + col] + b[col];
}

extern "C" __global__ void gelu(int M, int N, const float* T, float* Y) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (col < N) Y[row * N + col] = gelu_tanh(T[row * N + col]);
}
