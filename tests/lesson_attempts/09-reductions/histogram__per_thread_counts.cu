// exercise: histogram
// dodge: each thread counts its 16 values in registers, then adds all 16 bins to the global histogram: 16 atomics per thread
// expect: max_global_store_requests
#define BINS 16
#define CHUNK 4096
extern "C" __global__ void histogram(const int* x, int* hist, int N) {
  int c[BINS] = {};
  int t = threadIdx.x;
  int end = min(N, (int)(blockIdx.x + 1) * CHUNK);
  for (int i = blockIdx.x * CHUNK + t; i < end; i += blockDim.x)
    for (int b = 0; b < BINS; ++b) c[b] += x[i] == b;
  for (int b = 0; b < BINS; ++b)
    if (c[b]) atomicAdd(&hist[b], c[b]);
}
