// expect: clean
// run: --kernel ok_histogram_atomics --grid 2 --block 128 --arg u32[256]=rand:7 --arg u32[16]
// Shared-memory histogram: atomics on the same bins from every warp.
extern "C" __global__ void ok_histogram_atomics(const unsigned* in, unsigned* hist) {
  __shared__ unsigned bins[16];
  int t = threadIdx.x;
  if (t < 16) bins[t] = 0;
  __syncthreads();
  atomicAdd(&bins[in[blockIdx.x * blockDim.x + t] & 15], 1u);
  __syncthreads();
  if (t < 16) atomicAdd(&hist[t], bins[t]);
}
