// exercise: scan
// better: Blelloch's work-efficient scan: an up-sweep and a down-sweep over a tree in shared memory, 2N additions
//         instead of Hillis-Steele's N log N, with one padding word per 32 so the tree's strides spread over the banks
// expect: pass
#define BLOCK 256
#define PAD(i) ((i) + ((i) >> 5))
extern "C" __global__ void scan_rows(const float* X, float* Y, int M, int N) {
  __shared__ float s[BLOCK + BLOCK / 32];
  int t = threadIdx.x;
  size_t at = (size_t)blockIdx.x * N + t;
  float x = t < N ? X[at] : 0.f;
  s[PAD(t)] = x;
  __syncthreads();
  for (int d = 1; d < BLOCK; d *= 2) {  // up-sweep: partial sums up the tree
    int i = (t + 1) * 2 * d - 1;
    if (i < BLOCK) s[PAD(i)] += s[PAD(i - d)];
    __syncthreads();
  }
  if (t == 0) s[PAD(BLOCK - 1)] = 0.f;
  __syncthreads();
  for (int d = BLOCK / 2; d >= 1; d /= 2) {  // down-sweep: each node passes its prefix down
    int i = (t + 1) * 2 * d - 1;
    if (i < BLOCK) {
      float left = s[PAD(i - d)];
      s[PAD(i - d)] = s[PAD(i)];
      s[PAD(i)] += left;
    }
    __syncthreads();
  }
  if (t < N) Y[at] = s[PAD(t)] + x;  // the exclusive prefix plus the thread's own value
}
