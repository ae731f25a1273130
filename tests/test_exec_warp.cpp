// tests/test_exec_warp.cpp: warp collectives, atomics, vector and local
// memory, special registers and barrier reductions, through CUDA kernels
// whose results follow from the CUDA C++ Programming Guide's definitions.
#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <numeric>

#include "sim_harness.h"

using simtest::Program;
using lab::sim::Dim3;

namespace {
const char* kWarp = R"(
extern "C" __global__ void shuffles(const int* in, int* out) {
  int t = threadIdx.x, v = in[t];
  out[0 * 64 + t] = __shfl_sync(0xffffffffu, v, (t * 7) & 31);
  out[1 * 64 + t] = __shfl_up_sync(0xffffffffu, v, 3);
  out[2 * 64 + t] = __shfl_down_sync(0xffffffffu, v, 5);
  out[3 * 64 + t] = __shfl_xor_sync(0xffffffffu, v, 6);
  out[4 * 64 + t] = __shfl_sync(0xffffffffu, v, t + 1, 8);     // width 8 segments
  out[5 * 64 + t] = __shfl_up_sync(0xffffffffu, v, 2, 16);
  out[6 * 64 + t] = __shfl_down_sync(0xffffffffu, v, 3, 8);
  out[7 * 64 + t] = __shfl_xor_sync(0xffffffffu, v, 9, 16);
}
extern "C" __global__ void votes(const int* in, unsigned* out) {
  int t = threadIdx.x, v = in[t];
  out[0 * 64 + t] = __ballot_sync(0xffffffffu, v > 0);
  out[1 * 64 + t] = __all_sync(0xffffffffu, v > -100);
  out[2 * 64 + t] = __any_sync(0xffffffffu, v == 7);
  out[3 * 64 + t] = __activemask();
  unsigned m = 0;
  if (t & 1) m = __activemask();
  out[4 * 64 + t] = m;
  out[5 * 64 + t] = __reduce_add_sync(0xffffffffu, unsigned(v));
  out[6 * 64 + t] = unsigned(__reduce_min_sync(0xffffffffu, v));
  out[7 * 64 + t] = __match_any_sync(0xffffffffu, v & 3);
  out[8 * 64 + t] = __syncthreads_count(v > 0);
  out[9 * 64 + t] = __syncthreads_or(v == 1234);
  unsigned lt; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  out[10 * 64 + t] = lt;
  unsigned wid; asm("mov.u32 %0, %%warpid;" : "=r"(wid));
  out[11 * 64 + t] = wid * 100 + (t & 31) + gridDim.x * 1000;
}
extern "C" __global__ void atomics(int* g, unsigned* u, float* f, int* out) {
  __shared__ int s[4];
  int t = threadIdx.x;
  if (t < 4) s[t] = 0;
  __syncthreads();
  atomicAdd(&g[0], t);
  atomicMax(&g[1], t * 3 - 50);
  atomicMin(&g[2], 100 - t);
  atomicInc(&u[0], 9u);
  atomicDec(&u[1], 5u);
  atomicAdd(&f[0], 0.5f);
  atomicCAS(&g[3], t, t + 1000);  // only the thread whose t equals the current value succeeds, in order
  atomicAdd(&s[0], 1);
  atomicXor(&s[1], 1 << (t & 15));
  atomicExch(&s[2], 77);
  __syncthreads();
  if (t == 0) { out[0] = s[0]; out[1] = s[1]; out[2] = s[2]; }
  atomicAdd(&g[4], s[0]);
}
extern "C" __global__ void vec_local(const float4* in, float4* out, int k) {
  int t = threadIdx.x;
  float4 v = in[t];
  float local[16];
  for (int i = 0; i < 16; ++i) local[i] = v.x * i + v.y;
  float2 w = make_float2(local[k & 15], local[(k + t) & 15]);
  out[t] = make_float4(w.x, w.y, v.z + v.w, local[t & 15]);
}
)";
}  // namespace

TEST_CASE("shfl.sync idx/up/down/bfly with widths (clamp and segment mask)") {
  Program p = Program::from_cuda(kWarp, "shuffles");
  REQUIRE(p.kernel);
  std::vector<int> in(64);
  std::iota(in.begin(), in.end(), 100);
  uint64_t din = p.buffer(in, "in"), dout = p.buffer(std::vector<int>(8 * 64, -1), "out");
  p.arg(din); p.arg(dout);
  auto r = p.run(Dim3{1}, Dim3{64});
  REQUIRE(r.ok);
  auto out = p.read<int>(dout, 8 * 64);
  // CUDA C++ Programming Guide, "Warp Shuffle Functions": a source lane out of
  // range (or outside the width segment) returns the caller's own value.
  auto src = [&](int t, int lane) { return in[(t & ~31) + lane]; };
  for (int t = 0; t < 64; ++t) {
    int l = t & 31;
    CAPTURE(t);
    CHECK(out[0 * 64 + t] == src(t, (t * 7) & 31));
    CHECK(out[1 * 64 + t] == (l >= 3 ? src(t, l - 3) : in[t]));
    CHECK(out[2 * 64 + t] == (l + 5 < 32 ? src(t, l + 5) : in[t]));
    CHECK(out[3 * 64 + t] == src(t, l ^ 6));
    CHECK(out[4 * 64 + t] == src(t, (l & ~7) + ((l + 1) & 7)));
    CHECK(out[5 * 64 + t] == ((l & 15) >= 2 ? src(t, l - 2) : in[t]));
    CHECK(out[6 * 64 + t] == ((l & 7) + 3 < 8 ? src(t, l + 3) : in[t]));
    CHECK(out[7 * 64 + t] == ((l ^ 9) / 16 == l / 16 ? src(t, l ^ 9) : in[t]));
  }
}

TEST_CASE("vote, ballot, activemask, redux, match, bar.red, special registers") {
  Program p = Program::from_cuda(kWarp, "votes");
  REQUIRE(p.kernel);
  std::vector<int> in(64);
  for (int i = 0; i < 64; ++i) in[i] = (i % 5 == 0) ? -i : i * 3 + 1;
  in[40] = 7;
  uint64_t din = p.buffer(in, "in"), dout = p.buffer(std::vector<unsigned>(12 * 64, 0xdead), "out");
  p.arg(din); p.arg(dout);
  auto r = p.run(Dim3{1}, Dim3{64});
  for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
  REQUIRE(r.ok);
  auto out = p.read<unsigned>(dout, 12 * 64);
  int positives = 0;
  for (int v : in) positives += v > 0;
  for (int t = 0; t < 64; ++t) {
    int w = t / 32;
    unsigned ballot = 0, sum = 0, match = 0;
    int mn = INT32_MAX;
    bool any7 = false;
    for (int l = 0; l < 32; ++l) {
      int v = in[w * 32 + l];
      ballot |= unsigned(v > 0) << l;
      sum += unsigned(v);
      mn = std::min(mn, v);
      any7 |= v == 7;
      match |= unsigned((v & 3) == (in[t] & 3)) << l;
    }
    CAPTURE(t);
    CHECK(out[0 * 64 + t] == ballot);
    CHECK(out[1 * 64 + t] == 1);
    CHECK(out[2 * 64 + t] == unsigned(any7));
    CHECK(out[3 * 64 + t] == 0xffffffffu);
    CHECK(out[4 * 64 + t] == ((t & 1) ? 0xaaaaaaaau : 0u));
    CHECK(out[5 * 64 + t] == sum);
    CHECK(int(out[6 * 64 + t]) == mn);
    CHECK(out[7 * 64 + t] == match);
    CHECK(out[8 * 64 + t] == unsigned(positives));
    CHECK(out[9 * 64 + t] == 0);
    CHECK(out[10 * 64 + t] == (1u << (t & 31)) - 1);
    CHECK(out[11 * 64 + t] == unsigned(w * 100 + (t & 31) + 1000));
  }
}

namespace {
// redux.sync with a different membermask per lane in one instruction: `seg`
// lanes per segment (16: lanes 0-15 pass 0x0000ffff, lanes 16-31 0xffff0000).
// The mask is a register (selp/shl), so every lane executes the same redux.
const char* kReduxSegments = R"(
extern "C" __global__ void segments(const int* in, unsigned* out, unsigned seg) {
  int t = threadIdx.x, lane = t & 31;
  unsigned first = lane & ~(seg - 1);
  unsigned m = (seg == 32 ? 0xffffffffu : ((1u << seg) - 1u)) << first;
  int v = in[t];
  unsigned u = unsigned(v);
  out[0 * 64 + t] = __reduce_add_sync(m, u);
  out[1 * 64 + t] = __reduce_min_sync(m, u);
  out[2 * 64 + t] = __reduce_max_sync(m, u);
  out[3 * 64 + t] = unsigned(__reduce_add_sync(m, v));
  out[4 * 64 + t] = unsigned(__reduce_min_sync(m, v));
  out[5 * 64 + t] = unsigned(__reduce_max_sync(m, v));
  out[6 * 64 + t] = __reduce_and_sync(m, u);
  out[7 * 64 + t] = __reduce_or_sync(m, u);
  out[8 * 64 + t] = __reduce_xor_sync(m, u);
}
// Lane 5 leaves itself out of its mask: undefined (PTX ISA redux.sync).
extern "C" __global__ void not_in_own_mask(const int* in, unsigned* out, unsigned seg) {
  int t = threadIdx.x;
  unsigned m = t == 5 ? 0xffffffdfu : 0xffffffffu;
  out[t] = __reduce_add_sync(m, unsigned(in[t]));
}
)";
}  // namespace

TEST_CASE("redux.sync reduces over each lane's own membermask: segmented add/min/max/and/or/xor, .u32 and .s32") {
  Program p = Program::from_cuda(kReduxSegments, "segments");
  REQUIRE(p.kernel);
  // One redux.sync per reduction: each executes with all 32 lanes and their different masks.
  int redux = 0;
  for (const auto& in : p.kernel->code) redux += in.op == lab::ptx::Op::ReduxSync;
  CHECK(redux == 9);
  std::vector<int> in(64);
  // Signed and unsigned orders differ on negative values, and each segment
  // holds values the others do not, so a whole-warp reduction shows.
  for (int i = 0; i < 64; ++i) in[i] = (i % 3 == 0 ? -1 : 1) * (i * 37 % 101 + i) + (i >= 16 && i < 32 ? 5000 : 0);
  in[3] = INT32_MIN;
  in[20] = INT32_MAX;
  in[45] = 0;
  for (unsigned seg : {16u, 8u, 4u, 32u}) {
    CAPTURE(seg);
    p = Program::from_cuda(kReduxSegments, "segments");
    uint64_t din = p.buffer(in, "in"), dout = p.buffer(std::vector<unsigned>(9 * 64, 0xdead), "out");
    p.arg(din); p.arg(dout); p.arg(seg);
    lab::sim::SimOptions opt;
    opt.check = true;  // segmented masks are valid: no invalid-mask finding
    auto r = p.run(Dim3{1}, Dim3{64}, 0, opt);
    for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
    REQUIRE(r.ok);
    CHECK(r.errors.empty());
    auto out = p.read<unsigned>(dout, 9 * 64);
    for (int t = 0; t < 64; ++t) {
      CAPTURE(t);
      int first = t & ~int(seg - 1);
      unsigned usum = 0, umin = UINT32_MAX, umax = 0, uand = ~0u, uor = 0, uxor = 0;
      int smin = INT32_MAX, smax = INT32_MIN;
      for (int l = first; l < first + int(seg); ++l) {
        unsigned u = unsigned(in[l]);
        usum += u; umin = std::min(umin, u); umax = std::max(umax, u);
        smin = std::min(smin, in[l]); smax = std::max(smax, in[l]);
        uand &= u; uor |= u; uxor ^= u;
      }
      CHECK(out[0 * 64 + t] == usum);
      CHECK(out[1 * 64 + t] == umin);
      CHECK(out[2 * 64 + t] == umax);
      CHECK(out[3 * 64 + t] == usum);  // two's complement: the .s32 sum has the same bits
      CHECK(int(out[4 * 64 + t]) == smin);
      CHECK(int(out[5 * 64 + t]) == smax);
      CHECK(out[6 * 64 + t] == uand);
      CHECK(out[7 * 64 + t] == uor);
      CHECK(out[8 * 64 + t] == uxor);
    }
  }
}

TEST_CASE("redux.sync: a lane missing from its own membermask is an invalid-mask finding") {
  Program p = Program::from_cuda(kReduxSegments, "not_in_own_mask");
  REQUIRE(p.kernel);
  uint64_t din = p.buffer(std::vector<int>(32, 1), "in"), dout = p.buffer(std::vector<unsigned>(32, 0), "out");
  p.arg(din); p.arg(dout); p.arg(0u);
  lab::sim::SimOptions opt;
  opt.check = true;
  auto r = p.run(Dim3{1}, Dim3{32}, 0, opt);
  bool found = false;
  for (auto& e : r.errors)
    found |= e.kind == "invalid-mask" && e.message.find("redux.sync") != std::string::npos &&
             e.message.find("lanes 5") != std::string::npos;
  for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
  CHECK(found);
  // The other 31 lanes' mask names all 32 executing lanes, lane 5 included.
  auto out = p.read<unsigned>(dout, 32);
  CHECK(out[0] == 32);
}

TEST_CASE("cg::reduce over tiled_partition<16>: redux.sync with each tile's mask gives each tile its own result") {
  const char* src = R"(
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
extern "C" __global__ void tiles(const int* in, int* out) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  int v = in[threadIdx.x];
  out[threadIdx.x] = cg::reduce(tile, v, cg::plus<int>());
  out[64 + threadIdx.x] = cg::reduce(tile, v, cg::greater<int>());
  out[128 + threadIdx.x] = int(cg::reduce(tile, unsigned(v), cg::bit_xor<unsigned>()));
}
)";
  Program p = Program::from_cuda(src, "tiles");
  REQUIRE(p.kernel);
  int redux = 0;
  for (const auto& in : p.kernel->code) redux += in.op == lab::ptx::Op::ReduxSync;
  CHECK(redux == 3);  // libcu++ lowers cg::reduce of 32-bit integers to redux.sync on sm_80
  std::vector<int> in(64);
  for (int i = 0; i < 64; ++i) in[i] = (i * 29 % 23) - 11 + (i / 16) * 100;
  uint64_t din = p.buffer(in, "in"), dout = p.buffer(std::vector<int>(192, 0x7fff), "out");
  p.arg(din); p.arg(dout);
  auto r = p.run(Dim3{1}, Dim3{64});
  for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
  REQUIRE(r.ok);
  auto out = p.read<int>(dout, 192);
  for (int t = 0; t < 64; ++t) {
    CAPTURE(t);
    int sum = 0, mx = INT32_MIN;
    unsigned x = 0;
    for (int l = t & ~15; l < (t & ~15) + 16; ++l) { sum += in[l]; mx = std::max(mx, in[l]); x ^= unsigned(in[l]); }
    CHECK(out[t] == sum);
    CHECK(out[64 + t] == mx);
    CHECK(unsigned(out[128 + t]) == x);
  }
}

TEST_CASE("atomics on global and shared memory: add, min, max, inc, dec, cas, xor, exch, f32 add") {
  Program p = Program::from_cuda(kWarp, "atomics");
  REQUIRE(p.kernel);
  uint64_t g = p.buffer(std::vector<int>{0, -1000, 1000, 0, 0}, "g");
  uint64_t u = p.buffer(std::vector<unsigned>{0, 3}, "u");
  uint64_t f = p.buffer(std::vector<float>{0.f}, "f");
  uint64_t o = p.buffer(std::vector<int>(3, 0), "o");
  p.arg(g); p.arg(u); p.arg(f); p.arg(o);
  const int n = 96, blocks = 3;
  auto r = p.run(Dim3{blocks}, Dim3{n});
  REQUIRE(r.ok);
  auto gv = p.read<int>(g, 5);
  auto uv = p.read<unsigned>(u, 2);
  auto ov = p.read<int>(o, 3);
  CHECK(gv[0] == blocks * n * (n - 1) / 2);
  CHECK(gv[1] == (n - 1) * 3 - 50);
  CHECK(gv[2] == 100 - (n - 1));
  // inc wraps to 0 after 9: 288 increments from 0 -> 288 mod 10.
  CHECK(uv[0] == unsigned(blocks * n) % 10);
  // dec from 3 with limit 5: 3,2,1,0 -> 5, period 6.
  unsigned d = 3;
  for (int i = 0; i < blocks * n; ++i) d = (d == 0 || d > 5) ? 5 : d - 1;
  CHECK(uv[1] == d);
  CHECK(p.read<float>(f, 1)[0] == 0.5f * blocks * n);
  CHECK(gv[3] == 1000);  // thread 0 of the first block swaps 0 -> 1000; no t equals 1000 after
  CHECK(ov[0] == n);
  CHECK(ov[1] == 0);     // each bit toggled 6 times
  CHECK(ov[2] == 77);
  CHECK(gv[4] == blocks * n * n);
}

TEST_CASE("vector loads/stores (v2, v4) and local memory arrays") {
  Program p = Program::from_cuda(kWarp, "vec_local");
  REQUIRE(p.kernel);
  REQUIRE(p.kernel->local_bytes > 0);  // the dynamically indexed array lives in local memory
  const int n = 40;
  std::vector<float> in(4 * n);
  for (int i = 0; i < 4 * n; ++i) in[i] = float(i) * 0.25f;
  uint64_t din = p.buffer(in, "in"), dout = p.buffer(std::vector<float>(4 * n, 0.f), "out");
  p.arg(din); p.arg(dout); p.arg(int32_t(5));
  auto r = p.run(Dim3{1}, Dim3{n});
  for (auto& e : r.errors) MESSAGE(e.kind << ": " << e.message);
  REQUIRE(r.ok);
  auto out = p.read<float>(dout, 4 * n);
  for (int t = 0; t < n; ++t) {
    float x = in[4 * t], y = in[4 * t + 1], z = in[4 * t + 2], w = in[4 * t + 3];
    auto local = [&](int i) { return x * float(i) + y; };
    CHECK(out[4 * t + 0] == local(5));
    CHECK(out[4 * t + 1] == local((5 + t) & 15));
    CHECK(out[4 * t + 2] == z + w);
    CHECK(out[4 * t + 3] == local(t & 15));
  }
  uint64_t local_requests = 0;
  for (size_t pc = 0; pc < p.kernel->code.size(); ++pc)
    if (p.kernel->code[pc].space == lab::ptx::Space::Local) local_requests += r.metrics.per_pc[pc].requests;
  CHECK(local_requests > 0);
}
