// exercise: scan
// dodge: the row is staged in shared memory, then every thread adds its whole prefix s[0..t] itself: O(N^2) reads
// expect: max_shared_wavefronts
#define BLOCK 256
extern "C" __global__ void scan_rows(const float* X, float* Y, int M, int N) {
  __shared__ float s[BLOCK];
  int t = threadIdx.x;
  size_t at = (size_t)blockIdx.x * N + t;
  s[t] = t < N ? X[at] : 0.f;
  __syncthreads();
  float v = 0.f;
  for (int j = 0; j <= t; ++j) v += s[j];
  if (t < N) Y[at] = v;
}
