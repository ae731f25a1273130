// Lesson 12: a 3x3 convolution as im2col, then a GEMM.
//
// im2col3x3 writes the im2col matrix col[N][C*9][H*W] to global memory: row
// j = c*9 + r*3 + s, column p*W + q holds X[n][c][p + r - 1][q + s - 1] (0 outside
// the image: padding 1). Every input value is copied 9 times. gemm_im2col then
// multiplies, per image n (blockIdx.z), Y_n[K][H*W] = F[K][C*9] x col_n, with
// lesson 4's 32 x 32 shared-memory tiles, reading col back from global memory.
#define TILE 32

extern "C" __global__ void im2col3x3(int N, int C, int H, int W, const float* X, float* col) {
  const int HW = H * W;
  const int pix = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y, n = blockIdx.z;  // row j of image n's im2col matrix
  if (pix >= HW) return;
  const int c = j / 9, r = (j % 9) / 3, s = j % 3;
  const int ih = pix / W + r - 1, iw = pix % W + s - 1;
  const bool inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
  col[((size_t)n * C * 9 + j) * HW + pix] = inside ? X[(((size_t)n * C + c) * H + ih) * W + iw] : 0.f;
}

extern "C" __global__ void gemm_im2col(int N, int C, int H, int W, int K, const float* F, const float* col,
                                       float* Y) {
  __shared__ float Fs[TILE][TILE];
  __shared__ float Cs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int HW = H * W, CRS = C * 9;
  const int k = blockIdx.y * TILE + ty, pix = blockIdx.x * TILE + tx;
  const float* b = col + (size_t)blockIdx.z * CRS * HW;
  float acc = 0.f;
  for (int t = 0; t < CRS; t += TILE) {
    Fs[ty][tx] = (k < K && t + tx < CRS) ? F[k * CRS + t + tx] : 0.f;
    Cs[ty][tx] = (t + ty < CRS && pix < HW) ? b[(size_t)(t + ty) * HW + pix] : 0.f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) acc += Fs[ty][i] * Cs[i][tx];
    __syncthreads();
  }
  if (k < K && pix < HW) Y[((size_t)blockIdx.z * K + k) * HW + pix] = acc;
}
