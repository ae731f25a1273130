// Lesson 9, exercise histogram: hist[b] += the number of x[i] equal to b, for
// 16 bins (every x[i] is in 0..15); each block of 256 threads takes a chunk
// of 4096 values (grid = cdiv(N, 4096)).
//
// This version is correct: every value is one atomicAdd on the global
// histogram. 4096 global atomics per block on 16 addresses, applied one at a
// time at the L2 where they collide. Privatise instead:
//
// TODO 1: a __shared__ int local[16], zeroed by 16 threads, then __syncthreads().
// TODO 2: count the chunk into `local` with atomicAdd on shared memory.
// TODO 3: __syncthreads(), then 16 threads each add one bin of `local` to
//         `hist` with one global atomicAdd.
#define BINS 16
#define CHUNK 4096

extern "C" __global__ void histogram(const int* x, int* hist, int N) {
  int t = threadIdx.x;
  int end = min(N, (int)(blockIdx.x + 1) * CHUNK);
  for (int i = blockIdx.x * CHUNK + t; i < end; i += blockDim.x) atomicAdd(&hist[x[i]], 1);
}
