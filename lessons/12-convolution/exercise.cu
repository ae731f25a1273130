// Lesson 12 exercise: a 3x3 convolution as an implicit GEMM.
//
//   Y[N][K][H][W] = X[N][C][H][W] convolved with F[K][C][3][3], stride 1, padding 1 (NCHW)
//   launched with 32 x 32 threads, grid (ceil(H*W/32), ceil(K/32), N).
//
// Seen per image n as a GEMM, Y_n[K][H*W] = F[K][C*9] x col_n[C*9][H*W]: row
// j = c*9 + r*3 + s of the im2col matrix col_n holds, in column p*W + q, the input
// X[n][c][p + r - 1][q + s - 1] (0 outside the image). Each block computes a
// 32 x 32 tile of Y_n (32 output channels x 32 output pixels). The inner product
// below is lesson 4's; what is missing are the two tile loads. The im2col matrix
// is never written anywhere: its tile is gathered from X as it is loaded.
//
// Fill in the two TODOs. A thread whose element lies outside F or outside the
// image (the padding) must store 0 into the tile.
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
    // TODO 1: the filter tile. Fs[ty][tx] is weight t + tx of filter k (F is [K][C*9] row-major).
    Fs[ty][tx] = 0.f;
    // TODO 2: the im2col tile, gathered from x. Row j = t + ty is channel c = j / 9 and
    // tap (r, s) = ((j % 9) / 3, j % 3); for this thread's pixel (p, q) it reads
    // x[c][p + r - 1][q + s - 1], or 0 when that lies outside the image or j >= C*9.
    Xs[ty][tx] = 0.f;
    __syncthreads();
    // Fs[ty][i]: one address for the warp (broadcast); Xs[i][tx]: 32 banks.
    for (int i = 0; i < TILE; ++i) acc += Fs[ty][i] * Xs[i][tx];
    __syncthreads();
  }
  if (k < K && pix < HW) Y[((size_t)blockIdx.z * K + k) * HW + pix] = acc;
}
