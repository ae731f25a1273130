// tests/test_sim_kernels.cpp: whole CUDA kernels compiled with NVRTC, run in
// the simulator and checked against CPU results (exact where the GPU's
// arithmetic is exactly rounded and the order of operations is the same).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <mutex>
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

namespace {
const char* kMisc = R"(
// Block reduction: grid-stride loop, warp shuffles, shared memory, one atomicAdd per block.
extern "C" __global__ void reduce_sum(const int* x, int* out, int n) {
  int v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i];
  for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  __shared__ int partial[32];
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < (blockDim.x + 31) / 32 ? partial[threadIdx.x] : 0;
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) atomicAdd(out, v);
  }
}
// Transpose through a padded shared tile.
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
// Data-dependent trip counts and divergence: Collatz steps per element.
extern "C" __global__ void collatz(const unsigned* start, unsigned* steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = start[i], s = 0;
  while (v != 1) {
    if (v & 1) v = 3 * v + 1; else v >>= 1;
    ++s;
    if (s > 1000) break;
  }
  steps[i] = s;
}
// 3D grid and 3D block indexing.
extern "C" __global__ void index3d(unsigned* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = (x * 7 + y * 131 + z * 9973) ^ (threadIdx.x << 20);
}
// Dynamic shared memory: reverse each block's chunk.
extern "C" __global__ void reverse_dyn(const int* in, int* out, int n) {
  extern __shared__ int buf[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[threadIdx.x] = in[i];
  __syncthreads();
  int j = blockDim.x - 1 - threadIdx.x;
  int src = blockIdx.x * blockDim.x + j;
  if (i < n && src < n) out[i] = buf[j];
}
)";
}  // namespace

TEST_CASE("block reduction with shuffles and atomics") {
  Program p = Program::from_cuda(kMisc, "reduce_sum");
  REQUIRE(p.kernel);
  const int n = 100000;
  std::vector<int> x(n);
  std::mt19937 rng(5);
  for (auto& v : x) v = int(rng() % 2001) - 1000;
  long long expect = 0;
  for (int v : x) expect += v;
  uint64_t dx = p.buffer(x, "x"), dout = p.buffer(std::vector<int>{0}, "out");
  p.arg(dx); p.arg(dout); p.arg(int32_t(n));
  auto r = p.run(Dim3{37}, Dim3{192});
  for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
  REQUIRE(r.ok);
  CHECK(p.read<int>(dout, 1)[0] == int(expect));
}

TEST_CASE("transpose through shared memory, non-multiple sizes, no bank conflicts with padding") {
  Program p = Program::from_cuda(kMisc, "transpose");
  REQUIRE(p.kernel);
  const int rows = 70, cols = 45;
  auto in = random_floats(size_t(rows) * cols, 9);
  uint64_t din = p.buffer(in, "in"), dout = p.buffer(std::vector<float>(size_t(rows) * cols, 0.f), "out");
  p.arg(din); p.arg(dout); p.arg(int32_t(rows)); p.arg(int32_t(cols));
  auto r = p.run(Dim3{(cols + 31) / 32, (rows + 31) / 32}, Dim3{32, 8});
  REQUIRE(r.ok);
  auto out = p.read<float>(dout, size_t(rows) * cols);
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x) REQUIRE(out[size_t(x) * rows + y] == in[size_t(y) * cols + x]);
  uint64_t wf = 0, ideal = 0;
  for (auto& pc : r.metrics.per_pc) { wf += pc.wavefronts; ideal += pc.ideal_wavefronts; }
  CHECK(wf > 0);
  CHECK(wf == ideal);  // the +1 padding removes every conflict
}

TEST_CASE("data-dependent loops with divergence reconverge and count divergent branches") {
  Program p = Program::from_cuda(kMisc, "collatz");
  REQUIRE(p.kernel);
  const int n = 777;
  std::vector<unsigned> start(n);
  for (int i = 0; i < n; ++i) start[i] = unsigned(i + 1);
  uint64_t ds = p.buffer(start, "start"), dsteps = p.buffer(std::vector<unsigned>(n, 0xdead), "steps");
  p.arg(ds); p.arg(dsteps); p.arg(int32_t(n));
  auto r = p.run(Dim3{(n + 63) / 64}, Dim3{64});
  REQUIRE(r.ok);
  auto steps = p.read<unsigned>(dsteps, n);
  for (int i = 0; i < n; ++i) {
    unsigned v = start[i], s = 0;
    while (v != 1) { v = (v & 1) ? 3 * v + 1 : v >> 1; ++s; if (s > 1000) break; }
    REQUIRE(steps[i] == s);
  }
  uint64_t divergent = 0, active = 0, warp = 0;
  for (auto& pc : r.metrics.per_pc) { divergent += pc.divergent; active += pc.active_lanes; warp += pc.warp_insts; }
  CHECK(divergent > 0);
  CHECK(active < warp * 32);  // warp execution efficiency below 100%
}

TEST_CASE("3D grid and block indexing") {
  Program p = Program::from_cuda(kMisc, "index3d");
  REQUIRE(p.kernel);
  const int nx = 19, ny = 7, nz = 5;
  uint64_t d = p.buffer(std::vector<unsigned>(size_t(nx) * ny * nz, 0), "out");
  p.arg(d); p.arg(int32_t(nx)); p.arg(int32_t(ny)); p.arg(int32_t(nz));
  auto r = p.run(Dim3{3, 2, 3}, Dim3{8, 4, 2});
  REQUIRE(r.ok);
  auto out = p.read<unsigned>(d, size_t(nx) * ny * nz);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x)
        REQUIRE(out[size_t(z * ny + y) * nx + x] == unsigned((x * 7 + y * 131 + z * 9973) ^ ((x % 8) << 20)));
}

// Every lane's access the same word, or lane i at i * size: after the first
// execution of a pc the interpreter copies these as one (exec_memory.cpp
// fast_shared). Each runs three times at one pc, so the later two take that
// path, and must agree with lane by lane: a broadcast store keeps the last
// lane's value, as lanes stored in order do.
const char* kSharedPatterns = R"(
extern "C" __global__ void shared_patterns(const double* in, double* out_d, int* out_i, int zero) {
  __shared__ double sd[32];
  __shared__ int si[32];
  __shared__ int sb[1];
  __shared__ double sbd[1];
  volatile double* vd = sd;
  volatile int* vi = si;
  volatile int* vb = sb;
  volatile double* vbd = sbd;
  const int t = threadIdx.x;
  double acc_d = 0;
  int acc_i = 0;
#pragma unroll 1
  for (int rep = 0; rep < 3; ++rep) {
    vd[t] = in[t] + rep;       // unit stride, 8 bytes
    vi[t] = t * 3 + rep;       // unit stride, 4 bytes
    vb[zero] = t + 100 * rep;     // broadcast store, 4 bytes (a register address: `zero` is 0)
    vbd[zero] = in[t] * 2 + rep;  // broadcast store, 8 bytes
    __syncwarp();
    acc_d += vd[31 - t] + vbd[zero] + vd[t];
    acc_i += vi[t] + vb[zero];
    __syncwarp();
  }
  out_d[t] = acc_d;
  out_i[t] = acc_i;
}
)";

TEST_CASE("full-warp shared broadcast and unit-stride copies agree with lane by lane") {
  Program p = Program::from_cuda(kSharedPatterns, "shared_patterns");
  REQUIRE(p.kernel);
  std::vector<double> in(32);
  for (int i = 0; i < 32; ++i) in[size_t(i)] = 0.25 * i - 3;
  uint64_t din = p.buffer(in, "in"), dd = p.buffer(std::vector<double>(32, 0), "out_d"),
           di = p.buffer(std::vector<int>(32, 0), "out_i");
  p.arg(din); p.arg(dd); p.arg(di); p.arg(int32_t(0));
  auto r = p.run(Dim3{1}, Dim3{32}, 0);
  REQUIRE(r.ok);
  auto od = p.read<double>(dd, 32);
  auto oi = p.read<int>(di, 32);
  for (int t = 0; t < 32; ++t) {
    double want_d = 0;
    int want_i = 0;
    for (int rep = 0; rep < 3; ++rep) {
      want_d += (in[size_t(31 - t)] + rep) + (in[31] * 2 + rep) + (in[size_t(t)] + rep);
      want_i += (t * 3 + rep) + (31 + 100 * rep);
    }
    CAPTURE(t);
    CHECK(od[size_t(t)] == want_d);
    CHECK(oi[size_t(t)] == want_i);
  }
}

TEST_CASE("dynamic shared memory") {
  Program p = Program::from_cuda(kMisc, "reverse_dyn");
  REQUIRE(p.kernel);
  const int n = 512, bs = 128;
  std::vector<int> in(n);
  std::iota(in.begin(), in.end(), 100);
  uint64_t din = p.buffer(in, "in"), dout = p.buffer(std::vector<int>(n, 0), "out");
  p.arg(din); p.arg(dout); p.arg(int32_t(n));
  auto r = p.run(Dim3{n / bs}, Dim3{bs}, bs * sizeof(int));
  REQUIRE(r.ok);
  auto out = p.read<int>(dout, n);
  for (int i = 0; i < n; ++i) REQUIRE(out[i] == in[(i / bs) * bs + (bs - 1 - i % bs)]);
  // Without the dynamic allocation the same launch faults out of bounds.
  Program q = Program::from_cuda(kMisc, "reverse_dyn");
  uint64_t qin = q.buffer(in, "in"), qout = q.buffer(std::vector<int>(n, 0), "out");
  q.arg(qin); q.arg(qout); q.arg(int32_t(n));
  auto bad = q.run(Dim3{n / bs}, Dim3{bs}, 0);
  REQUIRE(!bad.ok);
  CHECK(bad.errors[0].kind == "out-of-bounds");
  CHECK(bad.errors[0].line > 0);
}

TEST_CASE("faults: out-of-bounds global write names the buffer; barrier deadlock; hang budget") {
  const char* src = R"(
extern "C" __global__ void oob(float* a, int n) { a[blockIdx.x * blockDim.x + threadIdx.x] = 1.f; }
extern "C" __global__ void deadlock(int* a) { if (threadIdx.x < 16) __syncthreads(); a[threadIdx.x] = 1; }
extern "C" __global__ void spin(volatile int* a) { while (a[0] == 0) {} }
)";
  {
    Program p = Program::from_cuda(src, "oob");
    uint64_t d = p.buffer(std::vector<float>(100, 0.f), "a");
    p.arg(d); p.arg(int32_t(100));
    auto r = p.run(Dim3{1}, Dim3{64});
    // 100 floats = 400 bytes; allocations leave a guard gap, so lanes 100..
    // fault only with checks on. Without checks the write must stay in the arena.
    CHECK(r.ok);
    lab::sim::SimOptions opt;
    opt.check = true;
    Program p2 = Program::from_cuda(src, "oob");
    uint64_t d2 = p2.buffer(std::vector<float>(50, 0.f), "a");
    p2.arg(d2); p2.arg(int32_t(50));
    auto r2 = p2.run(Dim3{1}, Dim3{64}, 0, opt);
    REQUIRE(!r2.ok);
    CHECK(r2.errors[0].kind == "out-of-bounds");
    CHECK(r2.errors[0].message.find("'a'") != std::string::npos);
    CHECK(r2.errors[0].line == 2);
  }
  {
    Program p = Program::from_cuda(src, "deadlock");
    uint64_t d = p.buffer(std::vector<int>(64, 0), "a");
    p.arg(d);
    // Since Volta the threads that skip the barrier run on and exit, which
    // releases it (PTX ISA: bar.sync waits for non-exited threads): a plain
    // run finishes, as on a GPU. The checks name the skipped barrier.
    auto plain = p.run(Dim3{2}, Dim3{64});
    CHECK(plain.ok);
    lab::sim::SimOptions opt;
    opt.check = true;
    auto r = p.run(Dim3{2}, Dim3{64}, 0, opt);
    REQUIRE(!r.ok);
    CHECK(r.errors[0].kind == "barrier-divergence");
    CHECK(r.errors[0].line == 3);
    CHECK(r.errors[0].count == 4);  // per block: warp 0's lanes 16-31 and warp 1 ran past it
  }
  {
    Program p = Program::from_cuda(src, "spin");
    uint64_t d = p.buffer(std::vector<int>(1, 0), "a");
    p.arg(d);
    lab::sim::SimOptions opt;
    opt.max_steps = 10000;
    auto r = p.run(Dim3{1}, Dim3{32}, 0, opt);
    REQUIRE(!r.ok);
    CHECK(r.errors[0].kind == "hang");
  }
}

namespace {
struct CountingSink : lab::sim::EventSink {
  std::mutex mu;
  uint64_t placed = 0, retired = 0, instrs = 0, barriers = 0, mem = 0, sectors = 0, lanes_with_addr = 0;
  void on_event(const lab::sim::WarpEvent& e) override {
    std::lock_guard<std::mutex> lock(mu);
    switch (e.kind) {
      case lab::sim::WarpEvent::BlockPlaced: ++placed; break;
      case lab::sim::WarpEvent::BlockRetired: ++retired; break;
      case lab::sim::WarpEvent::Barrier: ++barriers; break;
      default:
        ++instrs;
        if (e.access_bytes) {
          ++mem;
          sectors += e.sectors;
          for (uint32_t l = 0; l < 32; ++l) lanes_with_addr += ((e.active_mask >> l) & 1) && e.lane_addr[l] != 0;
        }
    }
  }
};
}  // namespace

TEST_CASE("events: blocks placed/retired, one event per warp instruction, lane addresses on memory instructions") {
  Program p = Program::from_cuda(kGemm, "sgemm_tiled");
  const int M = 20, N = 20, K = 20;
  auto A = random_floats(size_t(M) * K, 3), B = random_floats(size_t(K) * N, 4);
  uint64_t dA = p.buffer(A, "A"), dB = p.buffer(B, "B"), dC = p.buffer(std::vector<float>(size_t(M) * N, 0.f), "C");
  p.arg(dA); p.arg(dB); p.arg(dC); p.arg(int32_t(M)); p.arg(int32_t(N)); p.arg(int32_t(K));
  CountingSink sink;
  lab::sim::SimOptions opt;
  opt.events = &sink;
  auto r = p.run(Dim3{2, 2}, Dim3{16, 16}, 0, opt);
  REQUIRE(r.ok);
  CHECK(sink.placed == 4);
  CHECK(sink.retired == 4);
  CHECK(sink.instrs + sink.barriers == r.metrics.total_warp_insts());
  CHECK(sink.barriers == r.metrics.barriers);
  uint64_t requests = 0, sectors = 0;
  for (auto& pc : r.metrics.per_pc) { requests += pc.requests; sectors += pc.sectors; }
  CHECK(sink.mem == requests);
  CHECK(sink.sectors == sectors);
  CHECK(sink.lanes_with_addr > 0);
  // The same launch without events gives the same metrics (fast paths agree with the general path).
  Program q = Program::from_cuda(kGemm, "sgemm_tiled");
  uint64_t qA = q.buffer(A, "A"), qB = q.buffer(B, "B"), qC = q.buffer(std::vector<float>(size_t(M) * N, 0.f), "C");
  q.arg(qA); q.arg(qB); q.arg(qC); q.arg(int32_t(M)); q.arg(int32_t(N)); q.arg(int32_t(K));
  auto r2 = q.run(Dim3{2, 2}, Dim3{16, 16});
  REQUIRE(r2.ok);
  for (size_t i = 0; i < r.metrics.per_pc.size(); ++i) {
    CAPTURE(i);
    CHECK(r.metrics.per_pc[i].thread_insts == r2.metrics.per_pc[i].thread_insts);
    CHECK(r.metrics.per_pc[i].sectors == r2.metrics.per_pc[i].sectors);
    CHECK(r.metrics.per_pc[i].wavefronts == r2.metrics.per_pc[i].wavefronts);
    CHECK(r.metrics.per_pc[i].ideal_wavefronts == r2.metrics.per_pc[i].ideal_wavefronts);
    CHECK(r.metrics.per_pc[i].bytes == r2.metrics.per_pc[i].bytes);
  }
  CHECK(q.read<float>(qC, size_t(M) * N) == p.read<float>(dC, size_t(M) * N));
}

#include <fstream>
#include <sstream>

TEST_CASE("the repo's GEMM progression (kernels/gemm 01..07) runs and matches a float64 reference") {
  struct Case { const char* file; const char* name; Dim3 block; uint32_t tile_n, tile_m; bool x_is_m; };
  const Case cases[] = {
      {"kernels/gemm/01_naive.cu", "gemm_01_naive", Dim3{32, 32}, 32, 32, true},
      {"kernels/gemm/02_coalesced.cu", "gemm_02_coalesced", Dim3{32, 32}, 32, 32, false},
      {"kernels/gemm/03_smem_tiled.cu", "gemm_03_smem_tiled", Dim3{32, 32}, 32, 32, false},
      {"kernels/gemm/04_blocktile_1d.cu", "gemm_04_blocktile_1d", Dim3{512}, 64, 64, false},
      {"kernels/gemm/05_blocktile_2d.cu", "gemm_05_blocktile_2d", Dim3{256}, 128, 128, false},
      {"kernels/gemm/06_vectorized.cu", "gemm_06_vectorized", Dim3{256}, 128, 128, false},
      {"kernels/gemm/07_warptile.cu", "gemm_07_warptile", Dim3{128}, 128, 128, false},
  };
  const int M = 136, N = 132, K = 40;
  const float alpha = 1.5f, beta = -0.5f;
  auto A = random_floats(size_t(M) * K, 21), B = random_floats(size_t(K) * N, 22), C0 = random_floats(size_t(M) * N, 23);
  std::vector<double> ref(size_t(M) * N);
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      double acc = 0;
      for (int k = 0; k < K; ++k) acc += double(A[size_t(r) * K + k]) * B[size_t(k) * N + c];
      ref[size_t(r) * N + c] = alpha * acc + beta * double(C0[size_t(r) * N + c]);
    }
  for (const Case& cs : cases) {
    CAPTURE(cs.name);
    std::ifstream f(std::string(GPULAB_SOURCE_DIR) + "/" + cs.file);
    if (!f) { MESSAGE("skipped, not found: " << cs.file); continue; }
    std::stringstream ss;
    ss << f.rdbuf();
    Program p = Program::from_cuda(ss.str(), cs.name);
    REQUIRE(p.kernel);
    uint64_t dA = p.buffer(A, "A"), dB = p.buffer(B, "B"), dC = p.buffer(C0, "C");
    p.arg(int32_t(M)); p.arg(int32_t(N)); p.arg(int32_t(K)); p.arg(alpha); p.arg(dA); p.arg(dB); p.arg(beta); p.arg(dC);
    Dim3 grid = cs.x_is_m ? Dim3{(M + cs.tile_m - 1) / cs.tile_m, (N + cs.tile_n - 1) / cs.tile_n}
                          : Dim3{(N + cs.tile_n - 1) / cs.tile_n, (M + cs.tile_m - 1) / cs.tile_m};
    auto r = p.run(grid, cs.block);
    for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message << " (line " << e.line << ")");
    REQUIRE(r.ok);
    auto C = p.read<float>(dC, size_t(M) * N);
    size_t bad = 0;
    for (size_t i = 0; i < C.size(); ++i)
      bad += !(std::fabs(double(C[i]) - ref[i]) <= 1e-4 * (1 + std::fabs(ref[i])));
    CHECK(bad == 0);
  }
}
