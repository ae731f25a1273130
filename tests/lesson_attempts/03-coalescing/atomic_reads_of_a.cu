// exercise: coalesced-gemm
// dodge: the template's uncoalesced mapping, with A read through atomicAdd(p, 0.f): a read hidden
//        in an atomic, hoping the per-load sector bound only looks at ld.global
// expect: max_sectors_per_global_load max_global_load_sectors
extern "C" __global__ void gemm_coalesced(int M, int N, int K, float alpha, const float* A, const float* B,
                                          float beta, float* C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.x;
  const int col = blockIdx.x * blockDim.x + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += atomicAdd(const_cast<float*>(&A[row * K + k]), 0.f) * B[k * N + col];
  C[row * N + col] = alpha * acc;
}
