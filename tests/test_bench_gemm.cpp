// tests/test_bench_gemm.cpp: every GPU GEMM version from kernels/gemm/gemm.toml,
// simulated at odd sizes against the float64 reference, and the manifest's
// launch geometry. A version whose instructions the simulator reports as
// "unsupported" is skipped with the reason printed; once the simulator
// implements them the same case runs and must pass.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "lab/gemm/gemm_problem.h"
#include "lab/gemm/gemm_registry.h"
#include "lab/gemm/gemm_sim.h"
#include "lab/sim/uniform_draw.h"

using namespace lab::gemm;

// An engine that hands out the given 32-bit draws, for the rounding edges.
struct Draws {
  using result_type = uint32_t;
  const uint32_t* next;
  static constexpr uint32_t min() { return 0; }
  static constexpr uint32_t max() { return 0xffffffffu; }
  uint32_t operator()() { return *next++; }
};

TEST_CASE("the problem's inputs are the library distribution's, draw for draw") {
  // Every figure the lab has recorded was taken with these inputs: the
  // written-out mapping must give std::uniform_real_distribution's floats.
  const GemmProblem p = make_gemm_problem(96, 80, 72, 1.f, 0.5f, 7);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  size_t differ = 0;
  for (const std::vector<float>* v : {&p.A, &p.B, &p.C0})
    for (float x : *v) differ += std::bit_cast<uint32_t>(x) != std::bit_cast<uint32_t>(d(rng));
  CHECK(differ == 0);
  // Draws whose float rounds to 2^32 (held below 1), the largest below it,
  // halfway cases of float's rounding, and the smallest.
  const uint32_t edges[] = {0xffffffffu, 0xffffff80u, 0xffffff7fu, 0xffffff00u, 0x80000080u, 0x80000180u,
                            0x7fffffc0u, 0x00ffffffu, 0x01000001u, 1u, 0u};
  Draws e{edges};
  for (uint32_t draw : edges) {
    const float lib = d(e);
    CHECK_MESSAGE(std::bit_cast<uint32_t>(lab::sim::uniform_minus_one_to_one_f32(draw)) == std::bit_cast<uint32_t>(lib),
                  "draw 0x" << std::hex << draw);
  }
}

TEST_CASE("the manifest lists the eleven versions with covering grids") {
  auto versions = load_gemm_versions();
  REQUIRE(versions.size() == 11);
  CHECK(versions.front().name == "01_naive");
  CHECK(versions.back().name == "11_wgmma_pipelined");
  CHECK(versions[9].uses_tma());
  CHECK(versions[9].size_limit(128, 96, 40).empty());
  CHECK(versions[9].size_limit(17, 33, 65).find("multiples of 8") != std::string::npos);
  CHECK(versions[8].size_limit(17, 33, 65).empty());
  // 10 and 11 carry the published measurement of a kernel of the same design.
  REQUIRE(versions[9].published);
  CHECK(versions[9].published->tflops == 423);
  CHECK(versions[9].published->size == 4096);
  CHECK(versions[9].published->gpu == "H100");
  REQUIRE(versions[10].published);
  CHECK(versions[10].published->tflops == 610);
  CHECK_FALSE(versions[8].published);
  for (const auto& v : versions) {
    CAPTURE(v.name);
    for (int n : {1, 17, 128, 129, 1000}) {
      auto cfg = v.launch_config(n, n + 3, 5);
      // The grid covers every output: blocks * tile >= extent on both axes.
      const int ex = v.grid_x == 'M' ? n : n + 3, ey = v.grid_y == 'M' ? n : n + 3;
      CHECK(uint64_t(cfg.grid.x) * v.tile[0] >= uint64_t(ex));
      CHECK(uint64_t(cfg.grid.x - 1) * v.tile[0] < uint64_t(ex));
      CHECK(uint64_t(cfg.grid.y) * v.tile[1] >= uint64_t(ey));
      CHECK(cfg.block.count() <= 1024);
    }
  }
  CHECK(versions[7].precision == Precision::Fp16);
  CHECK(versions[8].precision == Precision::Fp16);
}

TEST_CASE("a bad manifest names the file, the line and the fix") {
  const std::string path = "/tmp/gpulab_test_bad_gemm.toml";
  {
    std::ofstream out(path);
    out << "[[version]]\nname = \"x\"\nfile = \"01_naive.cu\"\nkernel = \"k\"\nprecision = \"fp8\"\n";
  }
  try {
    load_gemm_versions(path);
    FAIL("expected ManifestError");
  } catch (const ManifestError& e) {
    const std::string m = e.what();
    CHECK(m.find(path + ":1:") != std::string::npos);
    CHECK(m.find("precision") != std::string::npos);
  }
  std::remove(path.c_str());
}

TEST_CASE("every GPU version matches the float64 reference in the simulator") {
  struct Shape { int m, n, k; float alpha, beta; };
  // The TMA versions (10, 11) take K and N multiples of 8: they run the
  // shapes that are, including partial tiles on every edge (200 x 264 x 72).
  const Shape shapes[] = {{1, 1, 1, 1.f, 0.f}, {17, 33, 65, 1.f, 0.f}, {128, 96, 40, 0.5f, -1.25f},
                          {200, 264, 72, 1.f, 0.5f}};
  lab::sim::SimOptions opts;
  opts.threads = 2;
  for (const auto& v : load_gemm_versions()) {
    for (Shape s : shapes) {
      CAPTURE(v.name); CAPTURE(s.m); CAPTURE(s.n); CAPTURE(s.k);
      if (!v.size_limit(s.m, s.n, s.k).empty()) continue;
      GemmProblem p = make_gemm_problem(s.m, s.n, s.k, s.alpha, s.beta);
      SimGemmRun run = simulate_gemm(v, p, opts);
      if (run.unsupported) {
        MESSAGE("skipped " << v.name << ": the simulator does not support an instruction yet: "
                           << run.unsupported_reason);
        continue;
      }
      for (const auto& e : run.result.errors) MESSAGE(e.kind << ": " << e.message << " (line " << e.line << ")");
      CHECK(run.result.ok);
      GemmCheck c = check_gemm(p, v.precision, run.C.data());
      CHECK(c.correct);
      CHECK(c.max_rel_error <= gemm_tolerance(v.precision, s.k));
    }
  }
}

TEST_CASE("the check catches a wrong result and an unwritten element") {
  GemmProblem p = make_gemm_problem(17, 33, 65);
  const auto& ref = p.reference(Precision::Fp32);
  std::vector<float> C(ref.begin(), ref.end());
  CHECK(check_gemm(p, Precision::Fp32, C.data()).correct);
  C[5] += 0.01f;
  CHECK_FALSE(check_gemm(p, Precision::Fp32, C.data()).correct);
  C[5] = std::nanf("");  // an element left as the poison
  CHECK(std::isinf(check_gemm(p, Precision::Fp32, C.data()).max_rel_error));
}
