// Lesson 9, exercise scan (reference solution): Y[row][j] = X[row][0] + ...
// + X[row][j], one block of 256 threads per row of N <= 256 floats.
//
// Hillis-Steele in shared memory: after the step with offset k, s[t] holds the
// sum of the (up to) 2k elements ending at t. Eight steps (k = 1, 2, ..., 128)
// for 256 elements; each step reads before anyone writes (two barriers), so
// no thread sees a half-updated neighbour. O(N log N) additions, all 256
// threads busy at every step: log2(N) steps instead of N.
#define BLOCK 256

extern "C" __global__ void scan_rows(const float* X, float* Y, int M, int N) {
  __shared__ float s[BLOCK];
  int t = threadIdx.x;
  size_t at = (size_t)blockIdx.x * N + t;
  s[t] = t < N ? X[at] : 0.f;
  __syncthreads();
  for (int k = 1; k < BLOCK; k *= 2) {
    float left = t >= k ? s[t - k] : 0.f;
    __syncthreads();
    s[t] += left;
    __syncthreads();
  }
  if (t < N) Y[at] = s[t];
}
