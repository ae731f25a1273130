// expect: out-of-bounds line 8
// run: --kernel sneaky --grid 1 --block 32 --arg f32[32]=rand --arg f32[32]
// Global memory read through inline-PTX ld.const (issue 26): on a GPU the
// constant space holds only __constant__ variables, so this reads something
// else; the lab faults instead of serving it from global memory.
extern "C" __global__ void sneaky(const float* in, float* out) {
  float v;
  asm volatile("ld.const.f32 %0, [%1];" : "=f"(v) : "l"(in + threadIdx.x));  // <- planted bug
  out[threadIdx.x] = v;
}
