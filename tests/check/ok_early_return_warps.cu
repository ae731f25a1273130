// expect: clean
// run: --kernel ok_early_return_warps --grid 1 --block 128 --arg f32[64]
// Whole warps return before the barrier. bar.sync waits only for threads that have not exited (PTX ISA, exit:
// "If the exiting threads are holding up the barrier, the barrier is released"), so the warps left synchronise.
extern "C" __global__ void ok_early_return_warps(float* out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  if (t >= 64) return;
  s[t] = float(t);
  __syncthreads();
  out[t] = s[63 - t];
}
