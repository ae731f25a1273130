// Lesson 9, exercise row-sum: y[row] = the sum of row `row` of X, one block
// of 256 threads per row (grid = M).
//
// This version is correct, and serialised: thread 0 adds the whole row while
// the other 255 threads wait. `gpulab check 09/row-sum` says which counters
// give it away. Rewrite it so that every thread works:
//
// TODO 1: each thread adds its own strided share of the row in a register
//         (thread t takes columns t, t + blockDim.x, ...): coalesced loads.
// TODO 2: combine the 256 partial sums: a tree in shared memory with
//         sequential addressing (s[tid] += s[tid + k], k = 128, 64, ..., 1,
//         __syncthreads() between steps), or warp shuffles
//         (__shfl_down_sync) and one value per warp through shared memory.
// TODO 3: one thread writes y[blockIdx.x] once; no atomics are needed.
#define BLOCK 256

extern "C" __global__ void row_sum(const float* X, float* y, int M, int N) {
  const float* row = X + (size_t)blockIdx.x * N;
  if (threadIdx.x == 0) {
    float v = 0.f;
    for (int j = 0; j < N; ++j) v += row[j];
    y[blockIdx.x] = v;
  }
}
