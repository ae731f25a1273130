// expect: race line 16
// run: --kernel race_named_barrier_pipeline --grid 1 --block 128 --arg f32[64]=iota --arg f32[64]
// The twin of ok_named_barrier_pipeline: the producers write a second value
// after arriving, so the consumers' read after bar.sync 1 is not ordered
// with it. A named barrier with a thread count no longer turns the race
// check off for the whole kernel.
extern "C" __global__ void race_named_barrier_pipeline(const float* in, float* out) {
  __shared__ float buf[64];
  int t = threadIdx.x;
  if (t < 64) {
    buf[t] = in[t] * 2.0f;
    asm volatile("bar.arrive 1, 128;" ::: "memory");
    buf[t] = in[t] * 3.0f;
  } else {
    asm volatile("bar.sync 1, 128;" ::: "memory");
    float v = buf[127 - t];  // <- planted bug (races with the write on line 13)
    out[t - 64] = v;
  }
}
