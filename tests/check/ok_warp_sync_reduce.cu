// expect: clean
// run: --kernel ok_warp_sync_reduce --grid 1 --block 64 --arg i32[64]=iota --arg i32[2]
// Warp-synchronous reduction in shared memory, ordered by __syncwarp().
extern "C" __global__ void ok_warp_sync_reduce(const int* in, int* out) {
  __shared__ int s[64];
  int t = threadIdx.x, lane = t & 31, base = t & ~31;
  s[t] = in[t];
  __syncwarp();
  for (int o = 16; o > 0; o /= 2) {
    int v = lane < o ? s[base + lane + o] : 0;
    __syncwarp();
    if (lane < o) s[t] += v;
    __syncwarp();
  }
  if (lane == 0) out[t / 32] = s[t];
}
