// expect: clean
// run: --kernel ok_named_barrier_pipeline --grid 1 --block 128 --arg f32[64]=iota --arg f32[64]
// Warps 0-1 produce into shared memory and arrive on named barrier 1; warps
// 2-3 wait there (bar.sync 1, 128: all four warps' 128 threads), then
// consume. Named barriers order only the threads that use them (PTX ISA,
// bar/barrier), which is all this kernel needs.
extern "C" __global__ void ok_named_barrier_pipeline(const float* in, float* out) {
  __shared__ float buf[64];
  int t = threadIdx.x;
  if (t < 64) {
    buf[t] = in[t] * 2.0f;
    asm volatile("bar.arrive 1, 128;" ::: "memory");
  } else {
    asm volatile("bar.sync 1, 128;" ::: "memory");
    out[t - 64] = buf[127 - t];
  }
}
