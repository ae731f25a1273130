// Lesson 13: attention on the tensor cores, unfused and fused (fp16 Q, K, V; fp32 accumulation).
//
// The same two designs as naive.cu and the exercise, with the products on the tensor
// cores (wmma, m16n16k16, lesson 6) instead of fp32 FMAs, so that the products become
// cheap and the traffic of the score matrix is what is left. L must be a multiple of
// 64 (the compare steps' sizes are); the head dimension is 64.
//
//   tc_scores   S[h] = Q K^T / 8, fp32          grid (L/32, L/32, BH), 128 threads
//   tc_softmax  P[h] = softmax(S[h]), fp16      grid (L/8, BH), 32 x 8 threads
//   tc_pv       O[h] = P V, fp32                grid (L/64, BH), 128 threads
//   tc_flash    O[h] fused, online softmax      grid (L/64, BH), 128 threads
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define D 64
#define FULL 0xffffffffu
#define NEG_INF __int_as_float(0xff800000)

// Each warp computes a 16 x 16 tile of S from fragments loaded straight from global memory
// (Q row-major; K read as K^T, column-major); the block's 4 warps share rows and columns
// through L1.
extern "C" __global__ void tc_scores(int BH, int L, const __half* Q, const __half* K, float* S) {
  const int warp = threadIdx.x / 32;
  const int i0 = blockIdx.y * 32 + (warp / 2) * 16, j0 = blockIdx.x * 32 + (warp % 2) * 16;
  const __half* q = Q + (size_t)blockIdx.z * L * D;
  const __half* k = K + (size_t)blockIdx.z * L * D;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.f);
  for (int c = 0; c < D; c += 16) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::load_matrix_sync(a, q + (size_t)i0 * D + c, D);
    wmma::load_matrix_sync(b, k + (size_t)j0 * D + c, D);
    wmma::mma_sync(acc, a, b, acc);
  }
  for (int e = 0; e < acc.num_elements; ++e) acc.x[e] *= 0.125f;
  wmma::store_matrix_sync(S + (size_t)blockIdx.z * L * L + (size_t)i0 * L + j0, acc, L, wmma::mem_row_major);
}

// A warp per row, as naive.cu's attn_softmax, writing fp16 probabilities for the P V product.
extern "C" __global__ void tc_softmax(int BH, int L, const float* S, __half* P) {
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
  for (int j = lane; j < L; j += 32) P[r + j] = __float2half(__expf(S[r + j] - m) / l);
}

// Each warp computes 16 rows x 64 columns of O: 4 accumulator fragments, stepping through P's row.
extern "C" __global__ void tc_pv(int BH, int L, const __half* P, const __half* V, float* O) {
  const int warp = threadIdx.x / 32;
  const int i0 = blockIdx.x * 64 + warp * 16;
  const __half* p = P + (size_t)blockIdx.y * L * L + (size_t)i0 * L;
  const __half* v = V + (size_t)blockIdx.y * L * D;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4];
  for (int n = 0; n < 4; ++n) wmma::fill_fragment(acc[n], 0.f);
  for (int j = 0; j < L; j += 16) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::load_matrix_sync(a, p + j, L);
    for (int n = 0; n < 4; ++n) {
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
      wmma::load_matrix_sync(b, v + (size_t)j * D + n * 16, D);
      wmma::mma_sync(acc[n], a, b, acc[n]);
    }
  }
  for (int n = 0; n < 4; ++n)
    wmma::store_matrix_sync(O + (size_t)blockIdx.y * L * D + (size_t)i0 * D + n * 16, acc[n], D, wmma::mem_row_major);
}

// Fused: each warp owns 16 query rows and walks the keys 64 at a time. The tile's 16 x 64
// scores go from the accumulators to the warp's shared scratch, lanes r and r + 16 take the
// online softmax of row r (32 columns each, read and written 16 bytes at a time), and P V is
// added on the tensor cores to the output, which stays in accumulator fragments for the whole
// walk. Rescaling a fragment row by row needs each element's row, and a fragment's layout is
// not specified (CUDA C++ Programming Guide, "Warp Matrix Functions"): so the kernel loads a
// matrix whose element (r, c) is r into a fragment of the same type once, and reads the rows
// off it. Nothing of S leaves the chip.
#define KT 64       // keys per tile
#define SLD (KT + 4)  // floats per score row: 272 bytes, so 8 lanes' 16-byte reads fall in distinct banks
#define HLD (D + 8)   // halves per P or Q row: 144 bytes, likewise
extern "C" __global__ void __launch_bounds__(128) tc_flash(int BH, int L, const __half* Q, const __half* K,
                                                           const __half* V, float* O) {
  __shared__ __align__(128) float Ss[4][16 * SLD];  // the tile's scores; first the row-index matrix
  __shared__ __align__(128) __half Ps[4][16 * HLD];  // the tile's probabilities
  __shared__ __align__(128) __half Qs[4][16 * HLD];  // the warp's 16 query rows
  __shared__ float scale_s[4][16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r = lane % 16, hf = lane / 16;  // this lane's row, and which half of its columns
  const int i0 = blockIdx.x * 64 + warp * 16;
  const size_t head = (size_t)blockIdx.y * L * D;
  float* ss = Ss[warp];
  __half* ps = Ps[warp];
  __half* qs = Qs[warp];
  for (int e = lane; e < 16 * D; e += 32) qs[(e / D) * HLD + e % D] = Q[head + (size_t)i0 * D + e];
  for (int e = lane; e < 16 * 16; e += 32) ss[(e / 16) * SLD + e % 16] = float(e / 16);  // element (r, c) = r
  __syncwarp();
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> row_of, o[4];
  wmma::load_matrix_sync(row_of, ss, SLD, wmma::mem_row_major);
  for (int n = 0; n < 4; ++n) wmma::fill_fragment(o[n], 0.f);
  float m = NEG_INF, l = 0.f;  // row r's running max and sum (both lanes of the row keep them)
  for (int t0 = 0; t0 < L; t0 += KT) {
    __syncwarp();  // the row-index matrix, or the last tile's scores and probabilities, are read
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> qf[4];
    for (int c = 0; c < 4; ++c) wmma::load_matrix_sync(qf[c], qs + c * 16, HLD);
    for (int n = 0; n < KT / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> s;
      wmma::fill_fragment(s, 0.f);
      for (int c = 0; c < 4; ++c) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> kf;
        wmma::load_matrix_sync(kf, K + head + (size_t)(t0 + n * 16) * D + c * 16, D);
        wmma::mma_sync(s, qf[c], kf, s);
      }
      wmma::store_matrix_sync(ss + n * 16, s, SLD, wmma::mem_row_major);
    }
    __syncwarp();
    // Online softmax of row r over this tile: lane r takes columns 0-31, lane r + 16 columns 32-63.
    float v[KT / 2], mx = NEG_INF;
    const float4* srow = reinterpret_cast<const float4*>(ss + r * SLD + hf * (KT / 2));
    for (int k = 0; k < KT / 8; ++k) {
      const float4 f = srow[k];
      v[4 * k] = 0.125f * f.x, v[4 * k + 1] = 0.125f * f.y, v[4 * k + 2] = 0.125f * f.z, v[4 * k + 3] = 0.125f * f.w;
      mx = fmaxf(mx, fmaxf(fmaxf(v[4 * k], v[4 * k + 1]), fmaxf(v[4 * k + 2], v[4 * k + 3])));
    }
    mx = fmaxf(mx, __shfl_xor_sync(FULL, mx, 16));
    const float m_new = fmaxf(m, mx);
    float sum = 0.f;
    __half2 h[KT / 4];
    for (int k = 0; k < KT / 4; ++k) {
      const float p0 = __expf(v[2 * k] - m_new), p1 = __expf(v[2 * k + 1] - m_new);
      sum += p0 + p1;
      h[k] = __floats2half2_rn(p0, p1);
    }
    uint4* prow = reinterpret_cast<uint4*>(ps + r * HLD + hf * (KT / 2));
    for (int k = 0; k < KT / 16; ++k) prow[k] = *reinterpret_cast<const uint4*>(&h[4 * k]);
    sum += __shfl_xor_sync(FULL, sum, 16);
    const float rescale = __expf(m - m_new);
    l = l * rescale + sum;
    m = m_new;
    if (hf == 0) scale_s[warp][r] = rescale;
    __syncwarp();
    // The output so far, rescaled row by row in its fragments (skipped when no row's max moved).
    if (!__all_sync(FULL, rescale == 1.f))
      for (int n = 0; n < 4; ++n)
        for (int e = 0; e < o[n].num_elements; ++e) o[n].x[e] *= scale_s[warp][int(row_of.x[e])];
    for (int kk = 0; kk < KT / 16; ++kk) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> pf;
      wmma::load_matrix_sync(pf, ps + kk * 16, HLD);
      for (int n = 0; n < 4; ++n) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> vf;
        wmma::load_matrix_sync(vf, V + head + (size_t)(t0 + kk * 16) * D + n * 16, D);
        wmma::mma_sync(o[n], pf, vf, o[n]);
      }
    }
  }
  if (hf == 0) scale_s[warp][r] = 1.f / l;
  __syncwarp();
  for (int n = 0; n < 4; ++n) {
    for (int e = 0; e < o[n].num_elements; ++e) o[n].x[e] *= scale_s[warp][int(row_of.x[e])];
    wmma::store_matrix_sync(O + head + (size_t)i0 * D + n * 16, o[n], D, wmma::mem_row_major);
  }
}
