// Lesson 13 exercise: attention fused, with an online softmax.
//
//   O[h] = softmax(Q[h] K[h]^T / sqrt(64)) V[h], one head h per blockIdx.y, head dimension 64,
//   launched with 32 x 16 threads (16 warps, two query rows each), grid (ceil(L/32), BH).
//
// The block walks the keys 32 at a time, with each tile of K and V in shared
// memory and a row's 32 scores in its warp's lanes: the L x L score matrix
// never reaches global memory. The softmax is taken online: m[r] is the
// largest score of row r seen so far, l[r] the sum of exp(score - m[r]),
// o0[r]/o1[r] the output so far, all relative to m[r]. The kernel is complete
// except for one thing: when a tile raises the max, the sums accumulated
// under the old max are not rescaled. With L <= 32 (one tile) it is right;
// with more keys it is wrong.
//
// TODO: rescale l, o0 and o1 to the new max before the tile's terms are added.
#define D 64   // head dimension
#define BR 32  // query rows per block: two per warp
#define BC 32  // keys per tile: one per lane
#define FULL 0xffffffffu
#define NEG_INF __int_as_float(0xff800000)

extern "C" __global__ void attention(int BH, int L, const float* Q, const float* K, const float* V, float* O) {
  __shared__ float Qs[BR][D];
  __shared__ float Ks[BC][D + 1];  // +1: lane j reads row j at one column: a 65-word stride, 32 banks
  __shared__ float Vs[BC][D];
  __shared__ float Ps[BR][BC];     // a row's probabilities for this tile, read back as broadcasts
  const int lane = threadIdx.x, w = threadIdx.y;  // 32 x 16 threads
  const size_t head = (size_t)blockIdx.y * L * D;
  // The block's query rows, scaled by 1/sqrt(D) = 0.125 once here rather than on every score.
  for (int e = w * 32 + lane; e < BR * D; e += 512) {
    const int i = blockIdx.x * BR + e / D;
    Qs[e / D][e % D] = i < L ? 0.125f * Q[head + (size_t)i * D + e % D] : 0.f;
  }
  float m[2] = {NEG_INF, NEG_INF}, l[2] = {0.f, 0.f};  // per row: running max, sum of exp(score - m)
  float o0[2] = {0.f, 0.f}, o1[2] = {0.f, 0.f};        // per row: output columns lane and lane + 32
  for (int t0 = 0; t0 < L; t0 += BC) {
    __syncthreads();  // every warp is done with the previous tile (and the first time: Qs is written)
    for (int e = w * 32 + lane; e < BC * D; e += 512) {
      const int j = e / D, c = e % D;
      const bool in = t0 + j < L;
      Ks[j][c] = in ? K[head + (size_t)(t0 + j) * D + c] : 0.f;
      Vs[j][c] = in ? V[head + (size_t)(t0 + j) * D + c] : 0.f;
    }
    __syncthreads();
    // Lane j's scores: rows w and w + 16 against key t0 + j.
    float s[2] = {NEG_INF, NEG_INF};
    if (t0 + lane < L) {
      float a0 = 0.f, a1 = 0.f;
      for (int c = 0; c < D; ++c) {
        const float k = Ks[lane][c];
        a0 += Qs[w][c] * k;
        a1 += Qs[w + 16][c] * k;
      }
      s[0] = a0, s[1] = a1;
    }
    for (int r = 0; r < 2; ++r) {
      float tile_max = s[r];
      for (int off = 16; off > 0; off >>= 1) tile_max = fmaxf(tile_max, __shfl_xor_sync(FULL, tile_max, off));
      const float m_new = fmaxf(m[r], tile_max);
      const float p = t0 + lane < L ? __expf(s[r] - m_new) : 0.f;
      float p_sum = p;
      for (int off = 16; off > 0; off >>= 1) p_sum += __shfl_xor_sync(FULL, p_sum, off);
      // TODO: l[r], o0[r] and o1[r] were summed relative to the old max m[r]; the tile's
      // terms are relative to m_new. Multiply them by exp(m[r] - m_new) first.
      l[r] = l[r] + p_sum;
      m[r] = m_new;
      Ps[w + 16 * r][lane] = p;
    }
    __syncwarp();
    for (int j = 0; j < BC; ++j) {
      const float v0 = Vs[j][lane], v1 = Vs[j][lane + 32];
      for (int r = 0; r < 2; ++r) {
        const float pj = Ps[w + 16 * r][j];  // one address for the warp: a broadcast
        o0[r] += pj * v0;
        o1[r] += pj * v1;
      }
    }
    __syncwarp();
  }
  for (int r = 0; r < 2; ++r) {
    const int i = blockIdx.x * BR + w + 16 * r;
    if (i < L) {
      O[head + (size_t)i * D + lane] = o0[r] / l[r];
      O[head + (size_t)i * D + lane + 32] = o1[r] / l[r];
    }
  }
}
