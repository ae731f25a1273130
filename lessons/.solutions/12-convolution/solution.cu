// Lesson 12 reference solution: a 3x3 convolution as an implicit GEMM.
//
// Per image n, Y_n[K][H*W] = F[K][C*9] x col_n[C*9][H*W], where row j = c*9 + r*3 + s
// of the im2col matrix col_n holds X[n][c][p + r - 1][q + s - 1] for every output
// pixel p*W + q (0 outside the image: padding 1). The kernel never writes col_n:
// each tile step gathers a 32 x 32 piece of it from X straight into shared memory,
// beside a 32 x 32 piece of F, and 32 x 32 threads reuse both 32 times.
#define TILE 32

extern "C" __global__ void conv3x3(int N, int C, int H, int W, int K, const float* X, const float* F, float* Y) {
  __shared__ float Fs[TILE][TILE];  // Fs[row][i]: filter k0 + row, weight t + i of its C*9
  __shared__ float Xs[TILE][TILE];  // Xs[i][col]: im2col row t + i, output pixel pix0 + col
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int HW = H * W, CRS = C * 9;
  const int k = blockIdx.y * TILE + ty;    // output channel: this thread's GEMM row
  const int pix = blockIdx.x * TILE + tx;  // output pixel p*W + q: its GEMM column
  const int p = pix / W, q = pix % W;
  const float* x = X + (size_t)blockIdx.z * C * HW;  // image n = blockIdx.z
  float acc = 0.f;
  for (int t = 0; t < CRS; t += TILE) {
    // Filter tile: lanes (tx) walk along a filter's C*9 weights, which F stores contiguously.
    Fs[ty][tx] = (k < K && t + tx < CRS) ? F[k * CRS + t + tx] : 0.f;
    // im2col tile, gathered: row j is channel c and tap (r, s); lanes walk output pixels,
    // so they read neighbouring columns of one input row (coalesced, shifted by s - 1).
    const int j = t + ty;
    const int c = j / 9, r = (j % 9) / 3, s = j % 3;
    const int ih = p + r - 1, iw = q + s - 1;
    Xs[ty][tx] = (j < CRS && pix < HW && ih >= 0 && ih < H && iw >= 0 && iw < W) ? x[(c * H + ih) * W + iw] : 0.f;
    __syncthreads();
    // Fs[ty][i]: one address for the warp (broadcast); Xs[i][tx]: 32 banks.
    for (int i = 0; i < TILE; ++i) acc += Fs[ty][i] * Xs[i][tx];
    __syncthreads();
  }
  if (k < K && pix < HW) Y[((size_t)blockIdx.z * K + k) * HW + pix] = acc;
}
