// exercise: flash
// dodge: online softmax, but no tiles in shared memory: lane j reads key t0 + j and the values
//        straight from global memory, so every warp fetches the whole of K and V for itself and a
//        warp's key load touches 32 rows of K (32 sectors per request)
// expect: min_shared_loads_per_global_load max_sectors_per_global_load max_global_load_sectors
#define D 64
#define FULL 0xffffffffu
#define NEG_INF __int_as_float(0xff800000)
extern "C" __global__ void attention(int BH, int L, const float* Q, const float* K, const float* V, float* O) {
  const int lane = threadIdx.x, w = threadIdx.y;
  const size_t head = (size_t)blockIdx.y * L * D;
  for (int r = 0; r < 2; ++r) {
    const int i = blockIdx.x * 32 + w + 16 * r;
    if (i >= L) continue;
    const float* q = Q + head + (size_t)i * D;
    float m = NEG_INF, l = 0.f, o0 = 0.f, o1 = 0.f;
    for (int t0 = 0; t0 < L; t0 += 32) {
      float s = NEG_INF;
      if (t0 + lane < L) {
        const float* k = K + head + (size_t)(t0 + lane) * D;
        s = 0.f;
        for (int c = 0; c < D; ++c) s += 0.125f * q[c] * k[c];
      }
      float mx = s;
      for (int off = 16; off > 0; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(FULL, mx, off));
      const float m_new = fmaxf(m, mx);
      const float p = t0 + lane < L ? __expf(s - m_new) : 0.f;
      float ps = p;
      for (int off = 16; off > 0; off >>= 1) ps += __shfl_xor_sync(FULL, ps, off);
      const float rescale = __expf(m - m_new);
      l = l * rescale + ps, o0 *= rescale, o1 *= rescale, m = m_new;
      for (int j = 0; j < 32 && t0 + j < L; ++j) {
        const float pj = __shfl_sync(FULL, p, j);
        o0 += pj * V[head + (size_t)(t0 + j) * D + lane];
        o1 += pj * V[head + (size_t)(t0 + j) * D + lane + 32];
      }
    }
    O[head + (size_t)i * D + lane] = o0 / l;
    O[head + (size_t)i * D + lane + 32] = o1 / l;
  }
}
