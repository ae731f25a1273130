// Lesson 12: a direct 3x3 convolution, one thread per output element.
//
// Launched like the exercise: 32 x 32 threads per block, grid (ceil(H*W/32),
// ceil(K/32), N); thread (tx, ty) of a block computes output channel
// blockIdx.y*32 + ty at pixel blockIdx.x*32 + tx of image blockIdx.z. It reads
// its 9*C inputs and 9*C weights from global memory: the loads are coalesced
// (lanes take neighbouring pixels; the weight is one address for the warp),
// but nothing is staged on chip. Each input value is read again by every
// filter (K times) and by the 9 taps around it, and each weight by every pixel
// of every image; only the caches stand between those reads and DRAM.
extern "C" __global__ void conv3x3_direct(int N, int C, int H, int W, int K, const float* X, const float* F,
                                          float* Y) {
  const int HW = H * W;
  const int pix = blockIdx.x * 32 + threadIdx.x, k = blockIdx.y * 32 + threadIdx.y;
  if (pix >= HW || k >= K) return;
  const int p = pix / W, q = pix % W;
  const float* x = X + (size_t)blockIdx.z * C * HW;
  const float* f = F + (size_t)k * C * 9;
  float acc = 0.f;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < 3; ++r) {
      const int ih = p + r - 1;
      for (int s = 0; s < 3; ++s) {
        const int iw = q + s - 1;
        if (ih >= 0 && ih < H && iw >= 0 && iw < W) acc += f[c * 9 + r * 3 + s] * x[(c * H + ih) * W + iw];
      }
    }
  Y[((size_t)blockIdx.z * K + k) * HW + pix] = acc;
}
