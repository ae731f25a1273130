// tests/test_report_fold.cpp: one per-line fold (lab/sim/line_fold.h) behind
// the report: loads, stores and atomics kept apart per space, lines summing
// to the kernel's totals, and the report's kinds read from the same fold.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "lab/sim/compiled.h"
#include "lab/sim/line_fold.h"
#include "lab/sim/report.h"

using namespace lab::sim;

namespace {
const char* kMixed = R"(
extern "C" __global__ void mixed(const float* in, float* out, int* count) {
  __shared__ float s[64];
  __shared__ int hits;
  int t = threadIdx.x;
  if (t == 0) hits = 0;
  s[t] = in[t];
  __syncthreads();
  atomicAdd(&hits, 1);
  __syncthreads();
  out[t] = s[63 - t];
  if (t == 0) atomicAdd(count, hits);
}
)";
}  // namespace

TEST_CASE("the fold keeps loads, stores and atomics apart, and the report reads it") {
  CompiledKernel k = compile_kernel({"mixed.cu", "mixed", {}, kMixed}, default_gpu());
  GlobalMemory mem;
  uint64_t in = mem.allocate(64 * 4, "in"), out = mem.allocate(64 * 4, "out"), count = mem.allocate(4, "count");
  std::vector<uint8_t> params(k.kernel().param_bytes, 0);
  const uint64_t addrs[] = {in, out, count};
  for (size_t i = 0; i < 3; ++i) std::memcpy(params.data() + k.kernel().params[i].offset, &addrs[i], 8);
  LaunchConfig cfg;
  cfg.block = Dim3{64};
  SimOptions o;
  o.threads = 1;
  LaunchResult r = launch(k, cfg, params, mem, o);
  REQUIRE(r.ok);
  int got = 0;
  mem.read(count, &got, 4);
  CHECK(got == 64);

  LineFold f = fold_lines(k.module(), k.kernel(), r.metrics);
  const AccessCounts& a = f.total.access;
  CHECK(a.global_load.requests == 2);    // in[t]: one request per warp
  CHECK(a.global_store.requests == 2);   // out[t]
  CHECK(a.global_atomic.requests == 1);  // atomicAdd(count, ...) by thread 0
  CHECK(a.shared_atomic.requests == 2);  // atomicAdd(&hits, 1): one per warp
  CHECK(a.shared_load.requests >= 2);    // s[63 - t] (and hits)
  CHECK(a.shared_store.requests >= 2);   // s[t] (and hits = 0)
  // Lines add up to the kernel.
  LineCounts sum;
  for (const auto& l : f.lines) sum.add(l);
  CHECK(sum.warp_insts == f.total.warp_insts);
  CHECK(sum.access.shared_atomic.requests == a.shared_atomic.requests);
  CHECK(f.total.warp_insts == r.metrics.total_warp_insts());

  // The report's kinds come from the same fold: global atomics stand alone,
  // shared atomics are read-modify-writes counted with the shared loads.
  KernelReport rep = build_report(k, cfg, r.metrics);
  CHECK(rep.global_atomic.requests == a.global_atomic.requests);
  CHECK(rep.global_load.requests == a.global_load.requests);
  CHECK(rep.shared_load.requests == a.shared_load.requests + a.shared_atomic.requests);
  CHECK(rep.shared_store.requests == a.shared_store.requests);
  uint64_t line_shared = 0;
  for (const auto& l : rep.lines) line_shared += l.shared_requests;
  CHECK(line_shared == a.shared_load.requests + a.shared_store.requests + a.shared_atomic.requests);
}
