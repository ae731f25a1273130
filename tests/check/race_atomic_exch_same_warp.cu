// expect: race line 12
// run: --kernel race_atomic_exch_same_warp --grid 1 --block 64 --arg i32[64]=iota --arg i32[64]
// Lane 0 of each warp swaps a new value into its warp's shared slot with
// atomicExch, and the other lanes read the slot with no __syncwarp() between:
// the atomic orders atomics, not the plain reads of other lanes.
extern "C" __global__ void race_atomic_exch_same_warp(const int* in, int* out) {
  __shared__ int slot[2];
  int t = threadIdx.x, w = t >> 5;
  if (t < 2) slot[t] = 0;
  __syncthreads();
  if ((t & 31) == 0) atomicExch(&slot[w], in[t]);
  out[t] = slot[w];  // <- planted bug
}
