// expect: clean
// run: --kernel ok_transpose --grid 2,2 --block 32,8 --arg f32[4096]=iota --arg f32[4096] --arg i32=64
// Shared-memory transpose with a padded tile (no bank conflicts) and one barrier.
#define TILE 32
extern "C" __global__ void ok_transpose(const float* in, float* out, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
