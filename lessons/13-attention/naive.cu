// Lesson 13: attention unfused, as three kernels that meet in global memory.
//
//   attn_scores   S[h] = Q[h] K[h]^T / sqrt(64)          writes the L x L scores
//   attn_softmax  P[h] = softmax of each row of S[h]     reads S, writes P
//   attn_pv       O[h] = P[h] V[h]                        reads P
//
// Each kernel is a good kernel of its kind (32 x 32 shared-memory tiles for the
// two products, lesson 4; a warp per row with butterfly shuffles for the softmax,
// lesson 8). What the chain cannot avoid is the round trips of S and P: 4 L^2
// bytes each way per head, which grow with the square of the sequence length.
#define D 64
#define TILE 32
#define FULL 0xffffffffu
#define NEG_INF __int_as_float(0xff800000)

// Grid (ceil(L/32), ceil(L/32), BH), block (32, 32).
extern "C" __global__ void attn_scores(int BH, int L, const float* Q, const float* K, float* S) {
  __shared__ float Qs[TILE][TILE];
  __shared__ float Ks[TILE][TILE + 1];  // read transposed below: +1 keeps the column read conflict-free
  const int tx = threadIdx.x, ty = threadIdx.y;
  const size_t head = (size_t)blockIdx.z * L * D;
  const int i = blockIdx.y * TILE + ty, j = blockIdx.x * TILE + tx;  // S[i][j]
  const int jl = blockIdx.x * TILE + ty;                              // the key row this thread loads
  float acc = 0.f;
  for (int t = 0; t < D; t += TILE) {
    Qs[ty][tx] = i < L ? Q[head + (size_t)i * D + t + tx] : 0.f;
    Ks[ty][tx] = jl < L ? K[head + (size_t)jl * D + t + tx] : 0.f;
    __syncthreads();
    for (int c = 0; c < TILE; ++c) acc += Qs[ty][c] * Ks[tx][c];
    __syncthreads();
  }
  if (i < L && j < L) S[(size_t)blockIdx.z * L * L + (size_t)i * L + j] = 0.125f * acc;
}

// Grid (ceil(L/8), BH), block (32, 8): a warp per row. Pass 1 keeps a running
// max and sum per lane and combines the 32 pairs; pass 2 writes the probabilities.
extern "C" __global__ void attn_softmax(int BH, int L, const float* S, float* P) {
  const int lane = threadIdx.x, i = blockIdx.x * 8 + threadIdx.y;
  if (i >= L) return;
  const size_t r = (size_t)blockIdx.y * L * L + (size_t)i * L;
  float m = NEG_INF, l = 0.f;
  for (int j = lane; j < L; j += 32) {
    const float s = S[r + j], m_new = fmaxf(m, s);
    l = l * __expf(m - m_new) + __expf(s - m_new);
    m = m_new;
  }
  for (int off = 16; off > 0; off >>= 1) {
    const float m2 = __shfl_xor_sync(FULL, m, off), l2 = __shfl_xor_sync(FULL, l, off);
    const float m_new = fmaxf(m, m2);
    l = (m == NEG_INF ? 0.f : l * __expf(m - m_new)) + (m2 == NEG_INF ? 0.f : l2 * __expf(m2 - m_new));
    m = m_new;
  }
  for (int j = lane; j < L; j += 32) P[r + j] = __expf(S[r + j] - m) / l;
}

// Grid (D/32, ceil(L/32), BH), block (32, 32).
extern "C" __global__ void attn_pv(int BH, int L, const float* P, const float* V, float* O) {
  __shared__ float Ps[TILE][TILE];
  __shared__ float Vs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * TILE + ty, c = blockIdx.x * TILE + tx;  // O[i][c]
  const size_t pr = (size_t)blockIdx.z * L * L, head = (size_t)blockIdx.z * L * D;
  float acc = 0.f;
  for (int t = 0; t < L; t += TILE) {
    Ps[ty][tx] = i < L && t + tx < L ? P[pr + (size_t)i * L + t + tx] : 0.f;
    Vs[ty][tx] = t + ty < L ? V[head + (size_t)(t + ty) * D + c] : 0.f;
    __syncthreads();
    for (int j = 0; j < TILE; ++j) acc += Ps[ty][j] * Vs[j][tx];
    __syncthreads();
  }
  if (i < L) O[head + (size_t)i * D + c] = acc;
}
