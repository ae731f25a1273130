// exercise: adamw
// dodge: every read and write coalesced and made once, but only the grid's first block works, striding
//        over all n parameters while the other blocks return at once (this exercise had no balance limit)
// expect: max_busiest_warp_vs_mean
extern "C" __global__ void adamw(int n, float* p, const float* g, float* m, float* v, float lr, float beta1,
                                 float beta2, float eps, float wd, float c1, float c2) {
  if (blockIdx.x != 0) return;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float gi = g[i], pi = p[i];
    float mi = beta1 * m[i] + (1.f - beta1) * gi;
    float vi = beta2 * v[i] + (1.f - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = pi - lr * ((mi * c1) / (sqrtf(vi * c2) + eps) + wd * pi);
  }
}
