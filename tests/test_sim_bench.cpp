// tests/test_sim_bench.cpp: interpreter throughput on the shared-memory tiled
// SGEMM (events off). Prints figures; asserts only correctness, never time.
// Skipped by default (it takes seconds): run with
//   build/tests/test_sim_bench --no-skip
// Optional: GPULAB_BENCH_N (matrix size, default 512), GPULAB_BENCH_THREADS (default 2).
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <ctime>

#include "sim_harness.h"

using simtest::Program;
using lab::sim::Dim3;

namespace {
const char* kTiled = R"(
#define TILE 16
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
}  // namespace

TEST_CASE("bench: tiled SGEMM throughput" * doctest::skip()) {
  const int n = std::getenv("GPULAB_BENCH_N") ? std::atoi(std::getenv("GPULAB_BENCH_N")) : 512;
  const unsigned threads = std::getenv("GPULAB_BENCH_THREADS") ? unsigned(std::atoi(std::getenv("GPULAB_BENCH_THREADS"))) : 2;
  auto t0 = std::chrono::steady_clock::now();
  Program p = Program::from_cuda(kTiled, "sgemm_tiled");
  REQUIRE(p.kernel);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> A(size_t(n) * n), B(size_t(n) * n);
  for (auto& x : A) x = d(rng);
  for (auto& x : B) x = d(rng);
  uint64_t dA = p.buffer(A, "A"), dB = p.buffer(B, "B"), dC = p.buffer(std::vector<float>(size_t(n) * n), "C");
  p.arg(dA); p.arg(dB); p.arg(dC); p.arg(int32_t(n)); p.arg(int32_t(n)); p.arg(int32_t(n));
  lab::sim::SimOptions opt;
  opt.threads = threads;
  // CPU time of the whole process during the launch: on a loaded machine wall
  // time overstates the interpreter's cost, CPU time does not.
  timespec c0, c1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  auto r = p.run(Dim3{uint32_t(n / 16), uint32_t(n / 16)}, Dim3{16, 16}, 0, opt);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  const double cpu = double(c1.tv_sec - c0.tv_sec) + 1e-9 * double(c1.tv_nsec - c0.tv_nsec);
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(r.ok);
  auto C = p.read<float>(dC, size_t(n) * n);
  // Spot-check a few elements against the same fma order.
  for (int s = 0; s < 16; ++s) {
    int i = int(rng() % n), j = int(rng() % n);
    float acc = 0.f;
    for (int k = 0; k < n; ++k) acc = std::fma(A[size_t(i) * n + k], B[size_t(k) * n + j], acc);
    REQUIRE(C[size_t(i) * n + j] == acc);
  }
  const double ti = double(r.metrics.total_thread_insts()), wi = double(r.metrics.total_warp_insts());
  std::printf("tiled SGEMM %dx%dx%d on %u worker threads: simulate %.3f s, end to end (compile+parse+init+run) %.3f s\n",
              n, n, n, threads, r.metrics.sim_seconds, total);
  std::printf("  %.3g thread-instructions, %.3g warp-instructions: %.1f M thread-inst/s (%.1f M per core), %.2f M warp-inst/s\n",
              ti, wi, ti / r.metrics.sim_seconds / 1e6, ti / r.metrics.sim_seconds / 1e6 / threads,
              wi / r.metrics.sim_seconds / 1e6);
  std::printf("  CPU time of the launch %.3f s (all workers): %.1f M thread-inst per CPU-second\n", cpu, ti / cpu / 1e6);
}
