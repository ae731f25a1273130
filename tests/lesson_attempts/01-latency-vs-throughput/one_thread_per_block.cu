// exercise: vector-add
// dodge: thread 0 of each block loops over the block's 256 elements
// expect: max_busiest_warp_vs_mean max_global_load_requests
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  if (threadIdx.x != 0) return;
  for (int j = 0; j < blockDim.x; ++j) {
    int i = blockIdx.x * blockDim.x + j;
    if (i < n) c[i] = a[i] + b[i];
  }
}
