// Lesson 9, exercise histogram (reference solution): hist[b] += the number of
// x[i] equal to b, for 16 bins; each block of 256 threads takes a chunk of
// 4096 values.
//
// Privatised: the block counts into its own 16 bins in shared memory
// (atomicAdd on shared memory: cheap, on chip, contended only by this
// block), then 16 threads add the block's counts to the global histogram:
// one global atomic per bin per block instead of one per value.
#define BINS 16
#define CHUNK 4096

extern "C" __global__ void histogram(const int* x, int* hist, int N) {
  __shared__ int local[BINS];
  int t = threadIdx.x;
  if (t < BINS) local[t] = 0;
  __syncthreads();
  int end = min(N, (int)(blockIdx.x + 1) * CHUNK);
  for (int i = blockIdx.x * CHUNK + t; i < end; i += blockDim.x) atomicAdd(&local[x[i]], 1);
  __syncthreads();
  if (t < BINS && local[t] != 0) atomicAdd(&hist[t], local[t]);
}
