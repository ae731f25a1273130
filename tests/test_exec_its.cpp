// tests/test_exec_its.cpp: independent thread scheduling (CUDA Programming
// Guide, "Independent Thread Scheduling", sm_70+) in the interpreter: lanes
// of one warp that wait on each other finish, partial warps release barriers
// by exiting, and converged code counts as it did (lab/sim/simt.h).
#include <doctest/doctest.h>

#include "sim_harness.h"

using simtest::Program;
using lab::sim::Dim3;

namespace {
const char* kIts = R"(
// Every lane takes one lock in turn and bumps a counter under it: the lane
// holding the lock must run while the others of its warp spin.
extern "C" __global__ void spin_lock(int* lock, int* count, int* order) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  volatile int* c = count;
  int mine = *c;
  *c = mine + 1;
  order[threadIdx.x] = mine;
  __threadfence();
  atomicExch(lock, 0);
}
// Lane 0 waits for a flag lane 31 of its warp sets afterwards.
extern "C" __global__ void wait_for_lane(volatile int* flag, int* out) {
  int lane = threadIdx.x & 31;
  if (lane == 0) {
    while (flag[0] == 0) {
    }
    out[0] = flag[0];
  } else if (lane == 31) {
    flag[0] = 42;
  }
}
// Lanes 4-31 of each warp return; lanes 0-3 meet at the barrier.
extern "C" __global__ void partial_exit(float* out) {
  __shared__ float s[16];
  int t = threadIdx.x;
  if ((t & 31) >= 4) return;
  int i = (t >> 5) * 4 + (t & 31);
  s[i] = float(t);
  __syncthreads();
  out[i] = s[15 - i];
}
)";
}  // namespace

TEST_CASE("a spin lock between lanes of one warp finishes, each lane once (independent thread scheduling)") {
  Program p = Program::from_cuda(kIts, "spin_lock");
  REQUIRE(p.kernel);
  uint64_t lock = p.buffer(std::vector<int>{0}, "lock");
  uint64_t count = p.buffer(std::vector<int>{0}, "count");
  uint64_t order = p.buffer(std::vector<int>(64, -1), "order");
  p.arg(lock); p.arg(count); p.arg(order);
  auto r = p.run(Dim3{1}, Dim3{64});
  REQUIRE(r.ok);
  CHECK(p.read<int>(count, 1)[0] == 64);
  CHECK(p.read<int>(lock, 1)[0] == 0);
  auto o = p.read<int>(order, 64);
  std::sort(o.begin(), o.end());
  for (int i = 0; i < 64; ++i) CHECK(o[size_t(i)] == i);  // every lane saw a distinct count
}

TEST_CASE("a lane waiting for a later lane of its warp sees its write") {
  Program p = Program::from_cuda(kIts, "wait_for_lane");
  REQUIRE(p.kernel);
  uint64_t flag = p.buffer(std::vector<int>{0}, "flag");
  uint64_t out = p.buffer(std::vector<int>{0}, "out");
  p.arg(flag); p.arg(out);
  auto r = p.run(Dim3{1}, Dim3{32});
  REQUIRE(r.ok);
  CHECK(p.read<int>(out, 1)[0] == 42);
}

TEST_CASE("lanes that exit release the barrier their warp's other lanes wait at") {
  Program p = Program::from_cuda(kIts, "partial_exit");
  REQUIRE(p.kernel);
  uint64_t out = p.buffer(std::vector<float>(16, -1.f), "out");
  p.arg(out);
  auto r = p.run(Dim3{1}, Dim3{128});
  REQUIRE(r.ok);
  auto v = p.read<float>(out, 16);
  for (int i = 0; i < 16; ++i) {
    int j = 15 - i;  // s[j] came from thread (j / 4) * 32 + j % 4
    CHECK(v[size_t(i)] == float((j / 4) * 32 + j % 4));
  }
}
