// expect: clean
// run: --kernel ok_partial_warp_exit_barrier --grid 1 --block 64 --arg f32[64]
// Lanes 4-31 of each warp return; lanes 0-3 go on to the barrier. bar.sync
// waits only for threads that have not exited (PTX ISA, bar/barrier: "the
// barrier is released" when exiting threads hold it up), whole or partial warps.
extern "C" __global__ void ok_partial_warp_exit_barrier(float* out) {
  __shared__ float s[8];
  int t = threadIdx.x;
  if ((t & 31) >= 4) return;
  int i = (t >> 5) * 4 + (t & 31);
  s[i] = float(t);
  __syncthreads();
  out[i] = s[7 - i];
}
