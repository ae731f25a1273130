// exercise: histogram
// dodge: thread 0 counts the block's whole chunk into shared bins, alone, then 16 threads add them to hist
// expect: max_busiest_warp_vs_mean max_global_load_requests
#define BINS 16
#define CHUNK 4096
extern "C" __global__ void histogram(const int* x, int* hist, int N) {
  __shared__ int local[BINS];
  int t = threadIdx.x;
  if (t < BINS) local[t] = 0;
  __syncthreads();
  if (t == 0) {
    int end = min(N, (int)(blockIdx.x + 1) * CHUNK);
    for (int i = blockIdx.x * CHUNK; i < end; ++i) local[x[i]] += 1;
  }
  __syncthreads();
  if (t < BINS && local[t] != 0) atomicAdd(&hist[t], local[t]);
}
