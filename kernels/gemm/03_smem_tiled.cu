// 03_smem_tiled: stage 32 x 32 tiles of A and B in shared memory.
//
//   Block 32 x 32 threads, grid (ceil(N/32), ceil(M/32)), 8 KiB static shared.
//
// What changed since 02: the block walks K in steps of 32. Each thread loads
// one element of the A tile and one of the B tile (coalesced, 4 sectors per
// request), the block synchronises, and the 32-step inner product runs out of
// shared memory. Every global element is now fetched once per block instead
// of once per thread: global traffic drops 32x (arithmetic intensity against
// DRAM/L2 ~8 flops per byte instead of ~0.25). In the inner loop As[ty][k] is
// one word for the warp (broadcast) and Bs[k][tx] is 32 consecutive words (32
// banks): 1 wavefront each, no bank conflicts. Now shared-memory bandwidth and
// instruction issue bound the kernel (2 shared loads per FMA), which 04 fixes.
// Edges: out-of-range tile elements are loaded as 0, so any M, N, K works.
#define TILE 32

extern "C" __global__ void gemm_03_smem_tiled(int M, int N, int K, float alpha, const float* A, const float* B,
                                              float beta, float* C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();  // nobody overwrites a tile another warp is still reading
  }
  if (row < M && col < N) C[row * N + col] = beta == 0.f ? alpha * acc : alpha * acc + beta * C[row * N + col];
}
