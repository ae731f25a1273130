// Lesson 8 exercise 2: row softmax in one pass over memory.
//
//   Y[M][N] = softmax of each row of X: exp(x - max) / sum(exp(x - max)), N <= 256
//   launched with ONE warp (32 threads) per row: grid M, block 32.
//
// As shipped the kernel is CORRECT but slow for two reasons: lane 0 does all
// the work while the other 31 lanes of the warp return at once, and it reads
// the row from global memory three times (max, sum, write), one element per
// request: every load moves a 32-byte sector for 4 useful bytes.
// `gpulab check 08-fusion/softmax` fails on memory traffic
// (max_memory_traffic_bytes), on warp efficiency (min_warp_efficiency) and
// on the predicted time.
//
// TODO: let the 32 lanes share the row (lane j takes columns j, j+32, ...),
// read each element ONCE into registers (at most 256/32 = 8 per lane), reduce
// max and sum across the warp with __shfl_xor_sync, then write the results.
#define MAX_N 256
#define NEG_INF __int_as_float(0xff800000)  // -infinity (NVRTC has no <math.h> INFINITY)

extern "C" __global__ void softmax_rows(int M, int N, const float* X, float* Y) {
  int row = blockIdx.x;
  if (threadIdx.x != 0) return;
  const float* x = X + row * N;
  float mx = NEG_INF;
  for (int j = 0; j < N; ++j) mx = fmaxf(mx, x[j]);        // pass 1
  float sum = 0.f;
  for (int j = 0; j < N; ++j) sum += __expf(x[j] - mx);    // pass 2
  for (int j = 0; j < N; ++j) Y[row * N + j] = __expf(x[j] - mx) / sum;  // pass 3
}
