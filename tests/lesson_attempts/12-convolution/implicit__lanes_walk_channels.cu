// exercise: implicit-gemm
// dodge: the im2col tile is gathered with lanes walking its rows (channel and tap) instead of
//        output pixels: every lane of a warp's load reads a different input row (one sector each),
//        and the transposed store into the tile puts the 32 lanes in one bank
// expect: max_sectors_per_global_load max_bank_conflicts
#define TILE 32
extern "C" __global__ void conv3x3(int N, int C, int H, int W, int K, const float* X, const float* F, float* Y) {
  __shared__ float Fs[TILE][TILE];
  __shared__ float Xs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int HW = H * W, CRS = C * 9;
  const int k = blockIdx.y * TILE + ty, pix = blockIdx.x * TILE + tx;
  const int lp = blockIdx.x * TILE + ty;  // the pixel this thread loads: the warp's rows
  const int p = lp / W, q = lp % W;
  const float* x = X + (size_t)blockIdx.z * C * HW;
  float acc = 0.f;
  for (int t = 0; t < CRS; t += TILE) {
    Fs[ty][tx] = (k < K && t + tx < CRS) ? F[k * CRS + t + tx] : 0.f;
    const int j = t + tx, c = j / 9, r = (j % 9) / 3, s = j % 3;  // lanes walk im2col rows
    const int ih = p + r - 1, iw = q + s - 1;
    Xs[tx][ty] = (j < CRS && lp < HW && ih >= 0 && ih < H && iw >= 0 && iw < W) ? x[(c * H + ih) * W + iw] : 0.f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) acc += Fs[ty][i] * Xs[i][tx];
    __syncthreads();
  }
  if (k < K && pix < HW) Y[((size_t)blockIdx.z * K + k) * HW + pix] = acc;
}
