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
