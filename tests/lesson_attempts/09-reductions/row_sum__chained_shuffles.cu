// exercise: row-sum
// dodge: all 256 threads load the row, but each warp sums its 32 partial sums by passing a running total
//        from lane to lane: 31 dependent shuffles where a tree needs 5 (issue 26's serial-chain kind)
// expect: max_shuffles_per_warp
extern "C" __global__ void row_sum(const float* X, float* y, int M, int N) {
  const float* row = X + (size_t)blockIdx.x * N;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  float v = 0.f;
  for (int j = tid; j < N; j += blockDim.x) v += row[j];
  // Lane l ends with the sum of lanes 0..l: a prefix passed along, one lane a step.
  float run = v;
  for (int s = 1; s < 32; ++s) {
    float from_left = __shfl_up_sync(0xffffffffu, run, 1);
    run = lane == s ? from_left + v : run;
  }
  __shared__ float warp_sum[8];
  if (lane == 31) warp_sum[warp] = run;
  __syncthreads();
  if (tid == 0) {
    float t = 0.f;
    for (int w = 0; w < 8; ++w) t += warp_sum[w];
    y[blockIdx.x] = t;
  }
}
