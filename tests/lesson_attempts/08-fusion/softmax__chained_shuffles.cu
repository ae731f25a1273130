// exercise: softmax
// expect: max_shuffles_per_warp
// dodge: the row in registers, one read and one write, but each reduction passes its
// value round the warp one lane at a time: 31 dependent shuffles where a tree
// needs 5, 62 in all (the held-out corpus's serial chain, issue 26).
#define MAX_N 256
#define NEG_INF __int_as_float(0xff800000)
#define PER_LANE (MAX_N / 32)

extern "C" __global__ void softmax_rows(int M, int N, const float* X, float* Y) {
  int row = blockIdx.x, lane = threadIdx.x;
  const float* x = X + row * N;
  float v[PER_LANE];
  float mx = NEG_INF;
#pragma unroll
  for (int i = 0; i < PER_LANE; ++i) {
    int j = lane + 32 * i;
    v[i] = j < N ? x[j] : NEG_INF;
    mx = fmaxf(mx, v[i]);
  }
  // A ring: after 31 steps every lane has seen every other lane's value.
  float m = mx;
  for (int s = 1; s < 32; ++s) m = fmaxf(mx, __shfl_sync(0xffffffffu, m, (lane + 1) & 31));
  mx = m;
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < PER_LANE; ++i) {
    v[i] = lane + 32 * i < N ? __expf(v[i] - mx) : 0.f;
    sum += v[i];
  }
  float t = sum;
  for (int s = 1; s < 32; ++s) t = sum + __shfl_sync(0xffffffffu, t, (lane + 1) & 31);
  sum = t;
#pragma unroll
  for (int i = 0; i < PER_LANE; ++i) {
    int j = lane + 32 * i;
    if (j < N) Y[row * N + j] = v[i] / sum;
  }
}
