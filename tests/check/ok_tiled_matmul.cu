// expect: clean
// run: --kernel ok_tiled_matmul --grid 2,2 --block 16,16 --arg f32[1024]=rand --arg f32[1024]=rand --arg f32[1024] --arg i32=32
// Shared-memory tiled matrix multiply, two barriers per tile.
#define TILE 16
extern "C" __global__ void ok_tiled_matmul(const float* A, const float* B, float* C, int n) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += TILE) {
    As[threadIdx.y][threadIdx.x] = A[row * n + k0 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
}
