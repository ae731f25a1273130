// exercise: softmax
// dodge: the warp loads and stores the row coalesced, once, but lane 0 computes the max and the
//        sum alone, looping over the row in shared memory while 31 lanes wait
// expect: min_warp_efficiency
#define MAX_N 256
extern "C" __global__ void softmax_rows(int M, int N, const float* X, float* Y) {
  __shared__ float row_v[MAX_N];
  __shared__ float stats[2];
  int row = blockIdx.x, lane = threadIdx.x;
  for (int j = lane; j < N; j += 32) row_v[j] = X[row * N + j];
  __syncwarp();
  if (lane == 0) {
    float mx = row_v[0];
    for (int j = 1; j < N; ++j) mx = fmaxf(mx, row_v[j]);
    float sum = 0.f;
    for (int j = 0; j < N; ++j) sum += __expf(row_v[j] - mx);
    stats[0] = mx;
    stats[1] = sum;
  }
  __syncwarp();
  for (int j = lane; j < N; j += 32) Y[row * N + j] = __expf(row_v[j] - stats[0]) / stats[1];
}
