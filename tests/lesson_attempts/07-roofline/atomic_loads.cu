// exercise: layer-small-batch
// dodge: W re-read for every row of the batch, with atomicOr(p, 0) as the load, which a check
//        that counts atomics as stores does not see as a read
// expect: max_global_load_sectors
extern "C" __global__ void layer_forward(int M, int N, int K, float alpha, const float* X, const float* W,
                                         float beta, float* Y) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  unsigned int* w_bits = (unsigned int*)W;
  for (int row = 0; row < M; ++row) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += X[row * K + k] * __uint_as_float(atomicOr(&w_bits[k * N + col], 0u));
    Y[row * N + col] = alpha * acc;
  }
}
