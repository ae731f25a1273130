// expect: race line 15
// run: --kernel race_warp_sync_reduce --grid 1 --block 64 --arg i32[64]=iota --arg i32[1]
// The pre-Volta "warp-synchronous" last steps of a reduction: lanes read what
// other lanes of their warp wrote one step earlier, with no __syncwarp(). Since
// Volta the lanes of a warp are not in lockstep; the twin ok_warp_sync_reduce.cu
// orders the steps with __syncwarp().
extern "C" __global__ void race_warp_sync_reduce(const int* in, int* out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t < 32) {
    volatile int* v = s;
    v[t] += v[t + 32];
    v[t] += v[t + 16];  // <- planted bug
    v[t] += v[t + 8];
    v[t] += v[t + 4];
    v[t] += v[t + 2];
    v[t] += v[t + 1];
  }
  if (t == 0) out[0] = s[0];
}
