// Lesson 10 exercise, reference solution: the AdamW update, one parameter per
// thread. Each of p, g, m, v is read once and p, m, v written once, by
// consecutive lanes at consecutive addresses: 28 bytes per parameter, the
// least AdamW can move (it is memory-bound: about 12 FLOPs per 28 bytes).
//
//   m = beta1 m + (1 - beta1) g
//   v = beta2 v + (1 - beta2) g^2
//   p = p - lr (m c1 / (sqrt(v c2) + eps) + wd p)     c1, c2: bias corrections
extern "C" __global__ void adamw(int n, float* p, const float* g, float* m, float* v, float lr, float beta1,
                                 float beta2, float eps, float wd, float c1, float c2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float gi = g[i], pi = p[i];
  float mi = beta1 * m[i] + (1.f - beta1) * gi;
  float vi = beta2 * v[i] + (1.f - beta2) * gi * gi;
  m[i] = mi;
  v[i] = vi;
  p[i] = pi - lr * ((mi * c1) / (sqrtf(vi * c2) + eps) + wd * pi);
}
