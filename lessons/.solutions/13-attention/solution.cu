// Lesson 13 reference solution: attention fused, FlashAttention style.
//
//   O[h] = softmax(Q[h] K[h]^T / sqrt(64)) V[h], one head h per blockIdx.y, head dimension 64.
//
// A block of 16 warps takes 32 query rows (warp w: rows w and w + 16) and walks the
// keys 32 at a time. Each tile of K and V is loaded once into shared memory and used
// by all 32 rows; a row's 32 scores live in its warp's lanes (one each) and never
// leave the chip. Each warp keeps two rows so that every key and value it reads from
// shared memory feeds two multiply-adds. The softmax is computed online (Milakov &
// Gimelshein 2018): a running max m and running sum l per row, and when a tile raises
// the max, everything accumulated so far (l and the output) is rescaled by
// exp(m_old - m_new) before the tile is added.
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
      // Online softmax: what was summed under the old max is rescaled to the new one.
      const float rescale = __expf(m[r] - m_new);
      l[r] = l[r] * rescale + p_sum;
      o0[r] *= rescale;
      o1[r] *= rescale;
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
