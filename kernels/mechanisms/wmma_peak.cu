// kernels/mechanisms/wmma_peak.cu: the same tensor-core rate through the
// WMMA API (16x16x16 fragments, f16 in, f32 accumulate), 4 accumulators.
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void wmma_peak(const half* a, float* out, int reps) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4];
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, a, 16);
#pragma unroll
  for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[j], 0.f);
#pragma unroll 8
  for (int r = 0; r < reps; ++r)
#pragma unroll
    for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[j], fa, fb, acc[j]);
#pragma unroll
  for (int j = 1; j < 4; ++j)
    for (int e = 0; e < acc[0].num_elements; ++e) acc[0].x[e] += acc[j].x[e];
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  wmma::store_matrix_sync(out + warp * 256, acc[0], 16, wmma::mem_row_major);
}
