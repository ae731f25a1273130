// exercise: softmax
// better: online softmax's merge (Milakov and Gimelshein, 2018): each lane keeps a (max, sum) pair for its values,
//         and the lanes merge the pairs with shuffles, rescaling each sum to the larger maximum, in one reduction
//         instead of a max reduction then a sum reduction; the row is still read once and written once
// expect: pass
#define MAX_N 256
#define NEG_INF __int_as_float(0xff800000)
#define PER_LANE (MAX_N / 32)
extern "C" __global__ void softmax_rows(int M, int N, const float* X, float* Y) {
  int row = blockIdx.x, lane = threadIdx.x;
  const float* x = X + row * N;
  float v[PER_LANE];
  float m = NEG_INF, d = 0.f;
#pragma unroll
  for (int i = 0; i < PER_LANE; ++i) {
    int j = lane + 32 * i;
    v[i] = j < N ? x[j] : NEG_INF;
    m = fmaxf(m, v[i]);
  }
#pragma unroll
  for (int i = 0; i < PER_LANE; ++i) d += lane + 32 * i < N ? __expf(v[i] - m) : 0.f;  // the lane's own (max, sum)
  for (int o = 16; o > 0; o /= 2) {  // merge (max, sum) pairs across the warp
    float mo = __shfl_xor_sync(0xffffffffu, m, o), dx = __shfl_xor_sync(0xffffffffu, d, o);
    float mn = fmaxf(m, mo);
    d = (m == NEG_INF ? 0.f : d * __expf(m - mn)) + (mo == NEG_INF ? 0.f : dx * __expf(mo - mn));
    m = mn;
  }
#pragma unroll
  for (int i = 0; i < PER_LANE; ++i) {
    int j = lane + 32 * i;
    if (j < N) Y[row * N + j] = __expf(v[i] - m) / d;
  }
}
