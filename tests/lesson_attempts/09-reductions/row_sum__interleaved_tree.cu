// exercise: row-sum
// dodge: a shared-memory tree with interleaved addressing: at step k the active lanes touch words 2k apart
// expect: max_bank_conflicts
#define BLOCK 256
extern "C" __global__ void row_sum(const float* X, float* y, int M, int N) {
  __shared__ float s[BLOCK];
  const float* row = X + (size_t)blockIdx.x * N;
  int tid = threadIdx.x;
  float v = 0.f;
  for (int j = tid; j < N; j += blockDim.x) v += row[j];
  s[tid] = v;
  __syncthreads();
  for (int k = 1; k < blockDim.x; k *= 2) {
    int at = 2 * k * tid;
    if (at < blockDim.x) s[at] += s[at + k];
    __syncthreads();
  }
  if (tid == 0) y[blockIdx.x] = s[0];
}
