// kernels/mechanisms/l2_read.cu: the L2's read bandwidth. Every thread of a
// full grid reads float4s from a buffer the L2 holds (a few MB; the first
// pass brings it in from DRAM), `reps` passes, past the L1: the loads are
// ld.global.cg (cache in L2, not L1), or the L1 would serve each SM's
// share (128 KB a pass) again.
// The bench counts every pass over the whole time (lab/bench/mechanisms.cpp).
// elems: a multiple of 4.
extern "C" __global__ void l2_read(const float4* src, float* out, unsigned elems, int reps) {
  const unsigned threads = gridDim.x * blockDim.x;
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f;
  // Four independent loads in flight per thread, one from each quarter of
  // the buffer (a warp's latency would otherwise bound the rate, not the L2);
  // every element read once a pass.
  const unsigned quarter = elems / 4;
  for (int r = 0; r < reps; ++r) {
    for (unsigned i = t; i < quarter; i += threads) {
      const float4 a = __ldcg(src + i);
      const float4 b = __ldcg(src + i + quarter);
      const float4 c = __ldcg(src + i + 2 * quarter);
      const float4 d = __ldcg(src + i + 3 * quarter);
      s += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) + (d.x + d.y + d.z + d.w);
    }
  }
  out[t] = s;
}
