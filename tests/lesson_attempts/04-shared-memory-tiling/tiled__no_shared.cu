// exercise: tiled-gemm
// dodge: no shared memory at all: lesson 3's coalesced kernel, every operand from global memory
// expect: min_shared_loads_per_global_load max_global_load_sectors
// (max_predicted_time_ratio no longer rejects it at the metric size: since
// every shared access is timed (issue 24), the reference's 64 shared loads
// per 32 FMAs cost their wavefronts, and at K = 64 (two tiles) this kernel is
// predicted 1.07x the reference, inside the 1.25x limit: docs/fidelity.md.)
extern "C" __global__ void gemm_tiled(int M, int N, int K, float alpha, const float* A, const float* B,
                                          float beta, float* C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // lanes walk along a row: coalesced
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = alpha * acc;  // beta is 0 in this exercise
}
