// expect: clean
// run: --kernel ok_atomic_exch_syncwarp --grid 1 --block 64 --arg i32[64]=iota --arg i32[64]
// The twin of race_atomic_exch_same_warp: __syncwarp() orders lane 0's
// atomicExch before the other lanes' reads (CUDA Programming Guide, __syncwarp).
extern "C" __global__ void ok_atomic_exch_syncwarp(const int* in, int* out) {
  __shared__ int slot[2];
  int t = threadIdx.x, w = t >> 5;
  if (t < 2) slot[t] = 0;
  __syncthreads();
  if ((t & 31) == 0) atomicExch(&slot[w], in[t]);
  __syncwarp();
  out[t] = slot[w];
}
