// exercise: transpose
// dodge: no padding; the column read of the tile is issued one lane at a time, so no request has a
//        bank conflict, but each warp's read takes 32 requests (32 wavefronts) instead of 1
// expect: max_shared_wavefronts
#define TILE 32
extern "C" __global__ void transpose_tiled(const float* in, float* out, int M, int N) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < N && y < M) tile[threadIdx.y][threadIdx.x] = in[y * N + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  float v = 0.f;
  for (int l = 0; l < 32; ++l) {
    if (threadIdx.x == l && x < M && y < N) v = tile[threadIdx.x][threadIdx.y];
    __syncwarp();
  }
  if (x < M && y < N) out[y * M + x] = v;
}
