// exercise: adamw
// dodge: stores the new m and v, then loads them back from global memory to update p (two trips for each moment)
// expect: max_memory_traffic_bytes max_global_load_sectors
extern "C" __global__ void adamw(int n, float* p, const float* g, float* m, float* v, float lr, float beta1,
                                 float beta2, float eps, float wd, float c1, float c2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  volatile float* vm = m;
  volatile float* vv = v;
  vm[i] = beta1 * vm[i] + (1.f - beta1) * g[i];
  vv[i] = beta2 * vv[i] + (1.f - beta2) * g[i] * g[i];
  p[i] = p[i] - lr * ((vm[i] * c1) / (sqrtf(vv[i] * c2) + eps) + wd * p[i]);
}
