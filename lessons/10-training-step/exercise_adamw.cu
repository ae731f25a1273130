// Lesson 10 exercise: the AdamW update (gpulab check 10-training-step/adamw).
//
// The last kernel of every training step updates each parameter from its
// gradient g and the optimizer's two running moments m and v (AdamW:
// Loshchilov & Hutter 2019, Algorithm 2):
//
//   m = beta1 m + (1 - beta1) g
//   v = beta2 v + (1 - beta2) g^2
//   p = p - lr (m c1 / (sqrt(v c2) + eps) + wd p)
//
// c1 = 1 / (1 - beta1^t) and c2 = 1 / (1 - beta2^t) are the bias corrections
// for step t; the host computes them once per step. Launched with 256
// threads per block and ceil(n / 256) blocks.
//
// As shipped the kernel is plain SGD (p -= lr g): it never touches m and v.
extern "C" __global__ void adamw(int n, float* p, const float* g, float* m, float* v, float lr, float beta1,
                                 float beta2, float eps, float wd, float c1, float c2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // TODO: update m[i] and v[i], then p[i] with AdamW's rule.
  p[i] = p[i] - lr * g[i];
}
