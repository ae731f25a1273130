// exercise: histogram
// dodge: no atomics on values: thread b < 16 reads the whole chunk and counts the values equal to b
// expect: max_global_load_requests
#define BINS 16
#define CHUNK 4096
extern "C" __global__ void histogram(const int* x, int* hist, int N) {
  int b = threadIdx.x;
  if (b >= BINS) return;
  int end = min(N, (int)(blockIdx.x + 1) * CHUNK), n = 0;
  for (int i = blockIdx.x * CHUNK; i < end; ++i) n += x[i] == b;
  if (n) atomicAdd(&hist[b], n);
}
