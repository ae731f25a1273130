// Lesson 12: the implicit GEMM with register tiles (lesson 5's 2D block tiling, applied unchanged).
//
// A block of 256 threads computes a 64 x 64 tile of Y_n (64 output channels x 64
// output pixels), stepping through C*9 sixteen at a time. Each thread keeps a 4 x 4
// piece of that tile in registers: per step it reads 4 weights and 4 gathered inputs
// from shared memory and performs 16 multiply-adds with them, where the 32 x 32 kernel
// reads 2 values for every multiply-add. Thread (tm, tn) owns channels tm + 16u and
// pixels tn + 16v (u, v = 0..3): the 16 lanes of a half-warp read 16 consecutive words
// of Xs (no bank conflict) and write 16 consecutive pixels of Y.
#define BM 64  // output channels per block
#define BN 64  // output pixels per block
#define BK 16  // im2col rows per step

extern "C" __global__ void conv3x3_regtile(int N, int C, int H, int W, int K, const float* X, const float* F,
                                           float* Y) {
  // Rows of 17 words, not 16: banks do not need it (a warp's reads fall 16 or 17 words apart
  // either way, and 17 costs the tile's store a 2-way conflict on one bank), but with it ptxas
  // allocates 56 registers a thread instead of 72, and 4 blocks fit on an H100 SM instead of 3
  // (`gpulab sim` on both files shows it); the model predicts this version the faster.
  __shared__ float Fs[BM][BK + 1];
  __shared__ float Xs[BK][BN];
  const int tid = threadIdx.x, tm = tid / 16, tn = tid % 16;
  const int HW = H * W, CRS = C * 9;
  const int k0 = blockIdx.y * BM, pix0 = blockIdx.x * BN;
  const float* x = X + (size_t)blockIdx.z * C * HW;
  // The pixel this thread gathers into the input tile, in rows tid / 64 + 4l: lanes walk pixels.
  const int lc = tid % BN, lpix = pix0 + lc, lp = lpix / W, lq = lpix % W;
  float acc[4][4] = {};
  for (int t = 0; t < CRS; t += BK) {
    for (int l = 0; l < 4; ++l) {
      const int e = tid + 256 * l;
      const int m = e / BK, i = e % BK;  // lanes walk a filter's weights
      Fs[m][i] = (k0 + m < K && t + i < CRS) ? F[(k0 + m) * CRS + t + i] : 0.f;
      const int row = e / BN, j = t + row;
      const int c = j / 9, r = (j % 9) / 3, s = j % 3;
      const int ih = lp + r - 1, iw = lq + s - 1;
      Xs[row][lc] = (j < CRS && lpix < HW && ih >= 0 && ih < H && iw >= 0 && iw < W) ? x[(c * H + ih) * W + iw] : 0.f;
    }
    __syncthreads();
    for (int i = 0; i < BK; ++i) {
      float a[4], b[4];
      for (int u = 0; u < 4; ++u) a[u] = Fs[tm + 16 * u][i];
      for (int v = 0; v < 4; ++v) b[v] = Xs[i][tn + 16 * v];
      for (int u = 0; u < 4; ++u)
        for (int v = 0; v < 4; ++v) acc[u][v] += a[u] * b[v];
    }
    __syncthreads();
  }
  for (int u = 0; u < 4; ++u)
    for (int v = 0; v < 4; ++v) {
      const int k = k0 + tm + 16 * u, pix = pix0 + tn + 16 * v;
      if (k < K && pix < HW) Y[((size_t)blockIdx.z * K + k) * HW + pix] = acc[u][v];
    }
}
