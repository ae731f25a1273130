// tests/test_sim_kernels.cpp: whole CUDA kernels compiled with NVRTC, run in
// the simulator and checked against CPU results (exact where the GPU's
// arithmetic is exactly rounded and the order of operations is the same).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>

#include "sim_harness.h"

using simtest::Program;
using lab::sim::Dim3;

namespace {

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

const char* kVectorAdd = R"(
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

const char* kGemm = R"(
#define TILE 16
extern "C" __global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc = fmaf(A[row * K + k], B[k * N + col], acc);
    C[row * N + col] = acc;
  }
}
extern "C" __global__ void sgemm_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
)";

// CPU GEMM in the same order as the kernels (fma over k ascending): exact match expected.
std::vector<float> cpu_gemm(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K) {
  std::vector<float> C(size_t(M) * N);
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      float acc = 0.f;
      for (int k = 0; k < K; ++k) acc = std::fma(A[size_t(r) * K + k], B[size_t(k) * N + c], acc);
      C[size_t(r) * N + c] = acc;
    }
  return C;
}

}  // namespace

TEST_CASE("vector add matches the CPU exactly, partial last block, metrics counted") {
  Program p = Program::from_cuda(kVectorAdd, "vadd");
  REQUIRE(p.kernel);
  const int n = 1000;
  auto a = random_floats(n, 1), b = random_floats(n, 2);
  uint64_t da = p.buffer(a, "a"), db = p.buffer(b, "b"), dc = p.buffer(std::vector<float>(n, -7.f), "c");
  p.arg(da); p.arg(db); p.arg(dc); p.arg(int32_t(n));
  auto r = p.run(Dim3{(n + 127) / 128}, Dim3{128});
  for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
  REQUIRE(r.ok);
  auto c = p.read<float>(dc, n);
  for (int i = 0; i < n; ++i) REQUIRE(c[i] == a[i] + b[i]);
  CHECK(r.metrics.blocks == 8);
  CHECK(r.metrics.threads == 1024);
  // Every thread runs at least the index computation; 1000 threads do the add.
  CHECK(r.metrics.total_thread_insts() > 1000 * 5);
  uint64_t requests = 0, sectors = 0;
  for (auto& pc : r.metrics.per_pc) { requests += pc.requests; sectors += pc.sectors; }
  // 3 requests per warp with live lanes: 32 warps; loads/stores coalesced: 4 sectors per full warp.
  CHECK(requests == 3 * 32);
  CHECK(sectors == 3 * (31 * 4 + 1));  // last warp: 8 lanes (992..999) -> 1 sector
}

TEST_CASE("naive and tiled SGEMM with sizes that are not tile multiples") {
  const int M = 37, N = 45, K = 29;
  auto A = random_floats(size_t(M) * K, 3), B = random_floats(size_t(K) * N, 4);
  auto ref = cpu_gemm(A, B, M, N, K);
  for (const char* name : {"sgemm_naive", "sgemm_tiled"}) {
    CAPTURE(name);
    Program p = Program::from_cuda(kGemm, name);
    REQUIRE(p.kernel);
    uint64_t dA = p.buffer(A, "A"), dB = p.buffer(B, "B"), dC = p.buffer(std::vector<float>(size_t(M) * N, 0.f), "C");
    p.arg(dA); p.arg(dB); p.arg(dC); p.arg(int32_t(M)); p.arg(int32_t(N)); p.arg(int32_t(K));
    auto r = p.run(Dim3{(N + 15) / 16, (M + 15) / 16}, Dim3{16, 16});
    for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message << " line " << e.line);
    REQUIRE(r.ok);
    auto C = p.read<float>(dC, size_t(M) * N);
    size_t bad = 0;
    for (size_t i = 0; i < C.size(); ++i) bad += C[i] != ref[i];
    CHECK(bad == 0);
    if (std::string(name) == "sgemm_tiled") CHECK(r.metrics.barriers == uint64_t(3 * 2) * 2 * 8 * 3);
  }
}
