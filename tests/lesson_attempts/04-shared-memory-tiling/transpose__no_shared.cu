// exercise: transpose
// dodge: no shared memory, so no bank conflicts: each thread copies its element straight across,
//        and the warp's store to `out` walks down a column (32 sectors per request)
// expect: max_sectors_per_global_store
extern "C" __global__ void transpose_tiled(const float* in, float* out, int M, int N) {
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  if (x < N && y < M) out[x * M + y] = in[y * N + x];
}
