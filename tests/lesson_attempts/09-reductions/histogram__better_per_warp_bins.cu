// exercise: histogram
// better: one private 16-bin histogram per warp in shared memory (only a warp's own lanes contend), summed per bin before the one global atomic per bin per block
// expect: pass
#define BINS 16
#define CHUNK 4096
#define WARPS 8
extern "C" __global__ void histogram(const int* x, int* hist, int N) {
  __shared__ int local[WARPS][BINS];
  int t = threadIdx.x, warp = t / 32;
  if (t < WARPS * BINS) local[t / BINS][t % BINS] = 0;
  __syncthreads();
  int end = min(N, (int)(blockIdx.x + 1) * CHUNK);
  for (int i = blockIdx.x * CHUNK + t; i < end; i += blockDim.x) atomicAdd(&local[warp][x[i]], 1);
  __syncthreads();
  if (t < BINS) {
    int n = 0;
    for (int w = 0; w < WARPS; ++w) n += local[w][t];
    if (n) atomicAdd(&hist[t], n);
  }
}
