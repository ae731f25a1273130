// exercise: vector-add
// dodge: thread 0 of the grid loops over the whole vector; every other thread exits at once
// expect: max_busiest_warp_vs_mean max_global_load_requests
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
