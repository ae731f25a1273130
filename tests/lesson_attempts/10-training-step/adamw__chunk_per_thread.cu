// exercise: adamw
// dodge: each thread walks its own chunk of 8 consecutive parameters, so a warp's loads are 32 bytes apart per lane
// expect: max_memory_traffic_bytes max_global_load_sectors
extern "C" __global__ void adamw(int n, float* p, const float* g, float* m, float* v, float lr, float beta1,
                                 float beta2, float eps, float wd, float c1, float c2) {
  // 8x more parameters per thread: the launch's n / 256 blocks cover it 8 times over, the extra threads exit.
  int first = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
  for (int i = first; i < first + 8 && i < n; ++i) {
    float gi = g[i], pi = p[i];
    float mi = beta1 * m[i] + (1.f - beta1) * gi;
    float vi = beta2 * v[i] + (1.f - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = pi - lr * ((mi * c1) / (sqrtf(vi * c2) + eps) + wd * pi);
  }
}
