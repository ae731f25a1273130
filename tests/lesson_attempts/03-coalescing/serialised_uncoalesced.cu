// exercise: coalesced-gemm
// dodge: the uncoalesced mapping of the template (threadIdx.x picks the row), with the lanes taking
//        turns four at a time: each request reads 4 rows of A (4 sectors) and one B (1 sector), so
//        sectors per request look coalesced while the warp issues 8x the requests
// expect: max_global_load_requests max_global_load_sectors
extern "C" __global__ void gemm_coalesced(int M, int N, int K, float alpha, const float* A, const float* B,
                                          float beta, float* C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.x;
  const int col = blockIdx.x * blockDim.x + threadIdx.y;
  for (int g = 0; g < 8; ++g) {
    if (threadIdx.x / 4 == g && row < M && col < N) {
      float acc = 0.f;
      for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
      C[row * N + col] = alpha * acc;
    }
    __syncwarp();
  }
}
