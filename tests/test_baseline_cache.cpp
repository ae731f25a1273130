// tests/test_baseline_cache.cpp: a check's baseline figures kept on disk
// (lab/lesson/baseline_cache.h) come back as they were stored, field by
// field; another key, or a torn file, is a miss, never wrong figures.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "lab/lesson/baseline_cache.h"

namespace fs = std::filesystem;
using namespace lab::lesson;

namespace {

// GPULAB_CACHE pointed at a folder of the test's own for its lifetime.
struct TempCache {
  fs::path dir = fs::temp_directory_path() / ("gpulab-baseline-cache-" + std::to_string(::getpid()));
  std::string old;
  bool had = false;
  TempCache() {
    if (const char* c = std::getenv("GPULAB_CACHE")) had = true, old = c;
    fs::create_directories(dir);
    ::setenv("GPULAB_CACHE", dir.c_str(), 1);
  }
  ~TempCache() {
    if (had) ::setenv("GPULAB_CACHE", old.c_str(), 1);
    else ::unsetenv("GPULAB_CACHE");
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

KernelFigures sample() {
  KernelFigures f;
  InstrCounters m;
  m.file = "solution.cu", m.line = 31, m.pc = 17, m.global = false, m.local = true, m.shared = true;
  m.reads = true, m.writes = true, m.requests = 5, m.sectors = 6, m.wavefronts = 7, m.ideal_wavefronts = 8;
  m.bytes = 9, m.param = 3;
  f.mem = {m, InstrCounters{}};
  f.global_load_requests = 11, f.global_load_sectors = 12, f.global_store_requests = 13, f.global_store_sectors = 14;
  f.local_sectors = 15, f.shared_load_requests = 16, f.shared_store_requests = 17;
  f.shared_wavefronts = 18, f.shared_ideal_wavefronts = 19, f.warp_insts = 20, f.active_lanes = 21;
  f.fma_warp_insts = 22, f.shuffle_warp_insts = 23, f.tensor_macs = 24.5, f.other_macs = 25.25, f.dram_bytes = 26;
  f.warp_insts_by_warp = {27, 28}, f.global_requests_by_warp = {29};
  f.occupancy = 0.75, f.predicted_seconds = 8.8251e-4, f.predicted_unavailable = "why not";
  f.registers = 40, f.shared_bytes = 8192;
  return f;
}

}  // namespace

TEST_CASE("baseline cache: figures come back field by field; another key or a torn file is a miss") {
  TempCache tc;
  const KernelFigures f = sample();
  CHECK_FALSE(cached_baseline("conv3x3 at N=32").has_value());
  store_baseline("conv3x3 at N=32", f);
  const auto g = cached_baseline("conv3x3 at N=32");
  REQUIRE(g.has_value());
  REQUIRE(g->mem.size() == 2);
  const InstrCounters& a = f.mem[0];
  const InstrCounters& b = g->mem[0];
  CHECK(b.file == a.file);
  CHECK(b.line == a.line);
  CHECK(b.pc == a.pc);
  CHECK(b.global == a.global);
  CHECK(b.local == a.local);
  CHECK(b.shared == a.shared);
  CHECK(b.reads == a.reads);
  CHECK(b.writes == a.writes);
  CHECK(b.requests == a.requests);
  CHECK(b.sectors == a.sectors);
  CHECK(b.wavefronts == a.wavefronts);
  CHECK(b.ideal_wavefronts == a.ideal_wavefronts);
  CHECK(b.bytes == a.bytes);
  CHECK(b.param == a.param);
  CHECK(g->mem[1].param == -1);
  CHECK(g->global_load_requests == f.global_load_requests);
  CHECK(g->global_load_sectors == f.global_load_sectors);
  CHECK(g->global_store_requests == f.global_store_requests);
  CHECK(g->global_store_sectors == f.global_store_sectors);
  CHECK(g->local_sectors == f.local_sectors);
  CHECK(g->shared_load_requests == f.shared_load_requests);
  CHECK(g->shared_store_requests == f.shared_store_requests);
  CHECK(g->shared_wavefronts == f.shared_wavefronts);
  CHECK(g->shared_ideal_wavefronts == f.shared_ideal_wavefronts);
  CHECK(g->warp_insts == f.warp_insts);
  CHECK(g->active_lanes == f.active_lanes);
  CHECK(g->fma_warp_insts == f.fma_warp_insts);
  CHECK(g->shuffle_warp_insts == f.shuffle_warp_insts);
  CHECK(g->tensor_macs == f.tensor_macs);
  CHECK(g->other_macs == f.other_macs);
  CHECK(g->dram_bytes == f.dram_bytes);
  CHECK(g->warp_insts_by_warp == f.warp_insts_by_warp);
  CHECK(g->global_requests_by_warp == f.global_requests_by_warp);
  CHECK(g->occupancy == f.occupancy);
  CHECK(g->predicted_seconds == f.predicted_seconds);  // exact: the check's ratio is computed from it
  CHECK(g->predicted_unavailable == f.predicted_unavailable);
  CHECK(g->registers == f.registers);
  CHECK(g->shared_bytes == f.shared_bytes);

  CHECK_FALSE(cached_baseline("conv3x3 at N=16").has_value());
  // A torn file (a writer killed mid-way: the rename makes it unlikely, a
  // full disk does not) is a miss.
  for (const auto& e : fs::directory_iterator(tc.dir / "baselines")) {
    std::ofstream(e.path(), std::ios::trunc) << "{\"key\": ";
  }
  CHECK_FALSE(cached_baseline("conv3x3 at N=32").has_value());
}
