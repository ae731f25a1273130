// Tests for lab/bench/published: unit conversion, rank correlation, and the
// runner end to end on a throwaway git snapshot and on the lab's own kernel.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "lab/bench/published.h"

using namespace lab::bench;
namespace fs = std::filesystem;

TEST_CASE("published figures convert to milliseconds") {
  CHECK(published_to_ms(2.5, "ms", 0, 0) == doctest::Approx(2.5));
  CHECK(published_to_ms(10341, "ns", 0, 0) == doctest::Approx(0.010341));
  CHECK(published_to_ms(0.001084, "s", 0, 0) == doctest::Approx(1.084));
  // 2 x 4096^3 FLOP at 309 GFLOP/s is 444.8 ms (siboehm's naive kernel).
  CHECK(published_to_ms(309.0, "GFLOP/s", 2.0 * 4096 * 4096 * 4096, 0) == doctest::Approx(444.78).epsilon(0.001));
  CHECK(published_to_ms(1.0, "TFLOP/s", 1e12, 0) == doctest::Approx(1000));
  CHECK(published_to_ms(858, "GB/s", 0, 128.0 * 1024 * 1024) == doctest::Approx(0.15643).epsilon(0.001));
  CHECK_THROWS_AS(published_to_ms(1, "GB/s", 0, 0), std::invalid_argument);  // needs bytes
  CHECK_THROWS_AS(published_to_ms(1, "furlongs", 1, 1), std::invalid_argument);
  CHECK_THROWS_AS(published_to_ms(0, "ms", 0, 0), std::invalid_argument);
}

TEST_CASE("Spearman's rank correlation") {
  CHECK(spearman_rho({1, 2, 3, 4}, {10, 20, 30, 40}) == doctest::Approx(1));
  CHECK(spearman_rho({1, 2, 3, 4}, {4, 3, 2, 1}) == doctest::Approx(-1));
  // One swapped pair of four: 1 - 6 * 2 / (4 * 15) = 0.8.
  CHECK(spearman_rho({1, 2, 3, 4}, {1, 3, 2, 4}) == doctest::Approx(0.8));
  // Ties take their average rank.
  CHECK(spearman_rho({1, 1, 2}, {1, 1, 2}) == doctest::Approx(1));
  CHECK(spearman_rho({1}, {1}) == 0);
}

namespace {

std::string write_data(const fs::path& dir, const std::string& text) {
  fs::path p = dir / "published.json";
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

TEST_CASE("a kernel from a git snapshot: host code and includes blanked, sampled and scaled") {
  fs::path root = fs::temp_directory_path() / fmt::format("gpulab-test-published-{}", ::getpid());
  fs::remove_all(root);
  fs::path repo = root / "mirror" / "someone+kernels" / "repo";
  fs::create_directories(repo);
  // A file as such repositories have it: host headers, a kernel, host code after it.
  std::ofstream(repo / "scale.cu") << "#include <cstdio>\n"
                                      "#include \"host_only.h\"\n"
                                      "__global__ void scale(float* x, int n) {\n"
                                      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                      "  if (i < n) x[i] = 2.0f * x[i];\n"
                                      "}\n"
                                      "int main() { printf(\"host code NVRTC cannot compile\"); }\n";
  std::string git = fmt::format("cd '{}' && git init -q . && git add scale.cu && git -c user.name=t -c user.email=t@t "
                                "commit -qm k && git rev-parse HEAD > ../commit.txt",
                                repo.string());
  REQUIRE(std::system(git.c_str()) == 0);
  std::string commit;
  std::ifstream(repo.parent_path() / "commit.txt") >> commit;
  std::string data = fmt::format(R"({{"tables": [{{"id": "t", "title": "a test", "url": "none", "gpu": "a100",
    "repo": "someone/kernels", "commit": "{}", "bytes": 2097152,
    "kernels": [
      {{"label": "whole", "files": [{{"path": "scale.cu", "keep": [[1, 6]]}}], "kernel": "scale",
        "grid": "1024", "block": "256", "args": ["f32[262144]=rand", "i32=262144"],
        "published": {{"value": 1000, "unit": "GB/s"}}}},
      {{"label": "sampled", "files": [{{"path": "scale.cu", "keep": [[1, 6]]}}], "kernel": "scale",
        "grid": "1024", "block": "256", "args": ["f32[262144]=rand", "i32=262144"],
        "published": {{"value": 500, "unit": "GB/s"}}}},
      {{"label": "missing", "files": ["nope.cu"], "kernel": "scale", "grid": "1", "block": "1", "args": [],
        "published": {{"value": 1, "unit": "ms"}}}}
    ]}}]}})",
                                 commit);
  PublishedOptions o;
  o.file = write_data(root, data);
  o.mirror = (root / "mirror").string();
  o.threads = 1;
  o.only_kernels = {"whole", "missing"};
  PublishedReport whole = run_published(o);
  o.only_kernels = {"sampled"};
  o.sample_blocks = 256;  // a quarter of the grid
  PublishedReport sampled = run_published(o);
  fs::remove_all(root);

  REQUIRE(whole.tables.size() == 1);
  const auto& rows = whole.tables[0].rows;
  REQUIRE(rows.size() == 2);
  REQUIRE(rows[0].predicted_ms.has_value());
  CHECK(rows[0].blocks_simulated == 1024);
  CHECK(rows[0].published_ms == doctest::Approx(2097152.0 / 1e12 * 1e3));
  CHECK(!rows[1].predicted_ms.has_value());
  CHECK(rows[1].note.find("nope.cu") != std::string::npos);
  const auto& s = sampled.tables[0].rows.at(0);
  REQUIRE(s.predicted_ms.has_value());
  CHECK(s.blocks_simulated < 1024);  // the cycle model's sample ran, not the grid
  CHECK(s.blocks_total == 1024);
  // Identical blocks: the sampled prediction is what the whole grid does.
  CHECK(*s.predicted_ms == doctest::Approx(*rows[0].predicted_ms).epsilon(0.02));
  std::string md = format_published_markdown(whole);
  CHECK(md.find("| whole |") != std::string::npos);
  CHECK(md.find("not run") != std::string::npos);
}
