// exercise: vector-add
// dodge: the right index, but the lanes of a warp take turns in groups of 8, so every load is
//        four requests of 8 lanes (1 sector each: sectors per request look perfect)
// expect: max_global_load_requests
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int group = (threadIdx.x % 32) / 8;
  for (int g = 0; g < 4; ++g) {
    if (g == group && i < n) c[i] = a[i] + b[i];
    __syncwarp();
  }
}
