// kernels/mechanisms/latency_hiding.cu: a latency-bound kernel, each warp a
// chain of dependent global loads that miss L1. With W warps per SM, W loads
// are in flight at once: by Little's law, loads per cycle grow with W until
// a bandwidth limit is reached (V. Volkov, "Understanding Latency Hiding on
// GPUs", PhD thesis, UC Berkeley, 2016, chapter 4).
extern "C" __global__ void warp_chase(const unsigned* next, unsigned* out, int steps, unsigned span_words) {
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned mask = span_words - 1;  // span_words is a power of two
  unsigned i = (warp * 4099u * 32u) & mask;  // each warp its own lines
  for (int k = 0; k < steps; ++k) i = (next[i] + i + 32u * 37u) & mask;  // 148 words on: a new line each step
  out[blockIdx.x * blockDim.x + threadIdx.x] = i;
}

// The same chains, but no line is read twice in the launch. warp_chase's
// chains cross (warp w starts at w x 131,168 words, modulo the span): with
// 32 warps per SM on 132 SMs, 54% of its loads read a line another warp read
// first, an L2 hit where the chain would otherwise go to DRAM. Here load k of
// warp w reads line (k x warps + w) x 4099 modulo the span's lines: distinct
// lines (4099 is odd) while k x warps + w stays below them, each a DRAM page
// apart from its neighbours'. Beside warp_chase it tells an L2 that serves the
// crossings slowly from a DRAM whose latency grows with the loads in flight.
extern "C" __global__ void warp_chase_distinct(const unsigned* next, unsigned* out, int steps, unsigned span_words) {
  const unsigned warps = (gridDim.x * blockDim.x) >> 5;
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned mask = span_words - 1;  // span_words is a power of two
  unsigned i = (warp * 4099u * 32u) & mask;
  for (int k = 1; k <= steps; ++k) i = (next[i] + (unsigned(k) * warps + warp) * 4099u * 32u) & mask;
  out[blockIdx.x * blockDim.x + threadIdx.x] = i;
}
