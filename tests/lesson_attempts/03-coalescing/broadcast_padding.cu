// exercise: coalesced-gemm
// dodge: the uncoalesced mapping, with cheap broadcast loads of A[0] and B[0] added to the line that
//        reads A, so that the line's AVERAGE sectors per request falls to about 4 (a per-line
//        criterion passed it); judged per instruction, the load of A still costs 32 sectors
// expect: max_sectors_per_global_load max_sectors_per_global_store
extern "C" __global__ void gemm_coalesced(int M, int N, int K, float alpha, const float* A, const float* B,
                                          float beta, float* C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.x;
  const int col = blockIdx.x * blockDim.x + threadIdx.y;
  if (row >= M || col >= N) return;
  const volatile float* a0 = A;
  const volatile float* b0 = B;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col] + 0.f * (a0[0] + a0[0] + a0[0] + b0[0] + b0[0] + b0[0] + a0[0] + b0[0] + a0[0] + b0[0] + a0[0] + b0[0] + a0[0] + b0[0]);
  C[row * N + col] = alpha * acc;
}
