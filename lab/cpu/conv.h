// lab/cpu/conv.h: the CPU side of lesson 12, a 3x3 convolution (stride 1,
// padding 1, NCHW: X[N][C][H][W], F[K][C][3][3], Y[N][K][H][W]), the layer the
// lesson's kernels compute, in the two ways a CPU library would:
//
//   direct            loops over the filter taps, the inner loop along a row
//                     of pixels (vectorised); one thread
//   im2col + GEMM     the im2col matrix of each image written out, then
//                     Y_n = F x col_n with a GEMM: the lab's fastest CPU GEMM
//                     (cpu_04_simd_threads) or OpenBLAS, on every thread
#pragma once

#include <string>
#include <vector>

namespace lab::cpu {

struct ConvShape {
  int N = 1, C = 1, H = 1, W = 1, K = 1;
  double flop() const { return 2.0 * N * K * H * W * double(C) * 9; }
};

using ConvFn = void (*)(const ConvShape& s, const float* X, const float* F, float* Y);

void conv3x3_direct(const ConvShape& s, const float* X, const float* F, float* Y);
void conv3x3_im2col_lab_gemm(const ConvShape& s, const float* X, const float* F, float* Y);
void conv3x3_im2col_openblas(const ConvShape& s, const float* X, const float* F, float* Y);

// Image n's im2col matrix, col[C*9][H*W]: row c*9 + r*3 + s, column p*W + q
// holds X[n][c][p + r - 1][q + s - 1], 0 outside the image.
void im2col3x3(const ConvShape& s, const float* X, int n, float* col);

struct CpuConvVersion {
  std::string name;
  ConvFn fn;
  bool threaded;
};
const std::vector<CpuConvVersion>& cpu_conv_versions();

}  // namespace lab::cpu
