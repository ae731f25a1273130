// lessons/.solutions/09-reductions/row_sum_trees.cu: the row-sum exercise's kernel as
// the two shared-memory trees of the progression, for `gpulab lesson 09` and
// `gpulab view 09` to measure side by side (same launch: one block of 256
// threads per row). Each thread first adds its strided share of the row.
// Kept with the solutions: the sequential tree passes the row-sum exercise.
#define BLOCK 256

// Interleaved addressing: at step k thread tid adds s[2k*tid + k] into
// s[2k*tid]. A warp's lanes touch words 2k apart: 2-, 4-, 8-, 16-way conflicts.
extern "C" __global__ void row_sum_interleaved(const float* X, float* y, int M, int N) {
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

// Sequential addressing: the first k threads add the next k words: a warp's
// lanes read 32 consecutive words, one per bank.
extern "C" __global__ void row_sum_sequential(const float* X, float* y, int M, int N) {
  __shared__ float s[BLOCK];
  const float* row = X + (size_t)blockIdx.x * N;
  int tid = threadIdx.x;
  float v = 0.f;
  for (int j = tid; j < N; j += blockDim.x) v += row[j];
  s[tid] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (tid < k) s[tid] += s[tid + k];
    __syncthreads();
  }
  if (tid == 0) y[blockIdx.x] = s[0];
}
