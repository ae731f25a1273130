// exercise: vector-add
// dodge: warp 0 of each block does the block's 256 elements, 32 at a time (coalesced, same number
//        of requests); the other 7 warps exit at once, so warp efficiency stays at 100%
// expect: max_busiest_warp_vs_mean
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  if (threadIdx.x >= 32) return;
  for (int j = threadIdx.x; j < blockDim.x; j += 32) {
    int i = blockIdx.x * blockDim.x + j;
    if (i < n) c[i] = a[i] + b[i];
  }
}
