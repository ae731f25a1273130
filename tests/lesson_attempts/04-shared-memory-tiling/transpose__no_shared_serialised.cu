// exercise: transpose
// dodge: no shared memory, and the uncoalesced store issued four lanes at a time, so every store
//        request touches 4 sectors (per-request figures look coalesced) while the warp issues 8x
//        the store requests
// expect: max_global_store_requests
extern "C" __global__ void transpose_tiled(const float* in, float* out, int M, int N) {
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  float v = (x < N && y < M) ? in[y * N + x] : 0.f;
  for (int g = 0; g < 8; ++g) {
    if (threadIdx.x / 4 == g && x < N && y < M) out[x * M + y] = v;
    __syncwarp();
  }
}
