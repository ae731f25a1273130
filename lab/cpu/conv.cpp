// lab/cpu/conv.cpp: lesson 12's CPU convolutions (conv.h).
#include "lab/cpu/conv.h"

#include <algorithm>
#include <cstring>

#include "lab/cpu/gemm.h"

namespace lab::cpu {

void conv3x3_direct(const ConvShape& s, const float* X, const float* F, float* Y) {
  const int H = s.H, W = s.W;
  const size_t HW = size_t(H) * W;
  std::fill(Y, Y + size_t(s.N) * s.K * HW, 0.f);
  for (int n = 0; n < s.N; ++n)
    for (int k = 0; k < s.K; ++k) {
      float* y = Y + (size_t(n) * s.K + k) * HW;
      for (int c = 0; c < s.C; ++c) {
        const float* x = X + (size_t(n) * s.C + c) * HW;
        const float* f = F + (size_t(k) * s.C + c) * 9;
        for (int r = 0; r < 3; ++r)
          for (int t = 0; t < 3; ++t) {
            const float w = f[r * 3 + t];
            // Output columns q whose input column q + t - 1 lies inside the row.
            const int q0 = std::max(0, 1 - t), q1 = std::min(W, W + 1 - t);
            for (int p = std::max(0, 1 - r); p < std::min(H, H + 1 - r); ++p) {
              const float* xr = x + size_t(p + r - 1) * W + (t - 1);
              float* yr = y + size_t(p) * W;
              for (int q = q0; q < q1; ++q) yr[q] += w * xr[q];
            }
          }
      }
    }
}

void im2col3x3(const ConvShape& s, const float* X, int n, float* col) {
  const int H = s.H, W = s.W;
  const size_t HW = size_t(H) * W;
  for (int c = 0; c < s.C; ++c) {
    const float* x = X + (size_t(n) * s.C + c) * HW;
    for (int r = 0; r < 3; ++r)
      for (int t = 0; t < 3; ++t) {
        float* row = col + (size_t(c) * 9 + r * 3 + t) * HW;
        for (int p = 0; p < H; ++p) {
          const int ih = p + r - 1;
          for (int q = 0; q < W; ++q) {
            const int iw = q + t - 1;
            row[size_t(p) * W + q] = (ih >= 0 && ih < H && iw >= 0 && iw < W) ? x[size_t(ih) * W + iw] : 0.f;
          }
        }
      }
  }
}

namespace {

// Per image: col_n written out (9x the image's floats), then Y_n = F x col_n.
void im2col_then(GemmFn gemm, const ConvShape& s, const float* X, const float* F, float* Y) {
  const int HW = s.H * s.W, CRS = s.C * 9;
  std::vector<float> col(size_t(CRS) * HW);
  for (int n = 0; n < s.N; ++n) {
    im2col3x3(s, X, n, col.data());
    gemm(s.K, HW, CRS, 1.f, F, col.data(), 0.f, Y + size_t(n) * s.K * HW, 0);
  }
}

}  // namespace

void conv3x3_im2col_lab_gemm(const ConvShape& s, const float* X, const float* F, float* Y) {
  im2col_then(gemm_04_simd_threads, s, X, F, Y);
}

void conv3x3_im2col_openblas(const ConvShape& s, const float* X, const float* F, float* Y) {
  im2col_then(gemm_openblas, s, X, F, Y);
}

const std::vector<CpuConvVersion>& cpu_conv_versions() {
  static const std::vector<CpuConvVersion> v = {
      {"direct", conv3x3_direct, false},
      {"im2col + cpu_04 GEMM", conv3x3_im2col_lab_gemm, true},
      {"im2col + OpenBLAS", conv3x3_im2col_openblas, true},
  };
  return v;
}

}  // namespace lab::cpu
