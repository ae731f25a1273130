// kernels/mechanisms/chase.cu: pointer-chase latency (one thread; every load
// needs the one before). `next` is zero-filled, so the loaded value adds
// nothing, but the address of each load depends on the value of the last:
// nothing can overlap. `step_words` apart and wrapped at `span_words`, the
// footprint picks the level that serves it (L1, L2 or DRAM). `span_words` is
// a power of two: the wrap is a mask, not a modulo (an integer modulo by a
// register is a ~20-instruction sequence of its own).
extern "C" __global__ void chase(const unsigned* next, unsigned* out, int steps, unsigned step_words,
                                 unsigned span_words) {
  unsigned i = 0;
  for (int k = 0; k < steps; ++k) i = (next[i] + i + step_words) & (span_words - 1);
  out[0] = i;
}
