// Tests for lab/sim/cycle/corunners.h: the share of a sampled block's first
// reads its own SM fetches from DRAM when other SMs' blocks read the same
// lines, and the sampled GEMM's L2 against the whole grid's.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "lab/sim/cycle/corunners.h"
#include "lab/sim/device.h"
#include "lab/sim/l2_model.h"

using namespace lab::sim;

namespace {
std::vector<uint64_t> range(uint64_t from, uint64_t n) {
  std::vector<uint64_t> v(n);
  std::iota(v.begin(), v.end(), from);
  return v;
}
std::vector<uint64_t> join(std::vector<uint64_t> a, const std::vector<uint64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  return a;
}
}  // namespace

TEST_CASE("co-runners: a GEMM tile's rows are shared along x, its columns along y") {
  // Block (x, y) reads A's lines 0-9 (its row of tiles) and B's 100-109 (its
  // column): x + 1 and x + 2 read the same A lines, y + 1 and y + 2 the same B.
  const auto A = range(0, 10), B = range(100, 10);
  cycle::Neighbours n;
  n.x1 = join(A, range(200, 10));
  n.x2 = join(A, range(300, 10));
  n.y1 = join(B, range(400, 10));
  n.y2 = join(B, range(500, 10));
  // A wave holds 32 blocks of each row and 9 of each column (H100, 2 blocks per SM, 32 x 32 grid).
  const double d = cycle::first_read_fetch_fraction(join(A, B), n, 32, 9);
  CHECK(d == doctest::Approx((10.0 / 32 + 10.0 / 9) / 20));
}

TEST_CASE("co-runners: a halo is shared by two blocks, private lines by none") {
  const auto self = range(0, 10);
  cycle::Neighbours n;
  n.x1 = range(8, 10);   // lines 8 and 9 are x + 1's too; x + 2 starts past them
  n.x2 = range(16, 10);
  CHECK(cycle::first_read_fetch_fraction(self, n, 32, 9) == doctest::Approx((8.0 + 2 * 0.5) / 10));
  CHECK(cycle::first_read_fetch_fraction(self, cycle::Neighbours{}, 32, 9) == doctest::Approx(1.0));
  CHECK(cycle::first_read_fetch_fraction({}, n, 32, 9) == doctest::Approx(1.0));
}

TEST_CASE("co-runners: the L2 fetches the given share of the lines it misses, the same ones every run") {
  for (const double f : {1.0, 0.5, 0.1}) {
    L2Model l2(50ull << 20);
    l2.set_fetch_fraction(f);
    uint64_t dram = 0;
    const uint64_t lines = 20000;
    for (uint64_t line = 0; line < lines; ++line) {
      const uint64_t sectors[4] = {line * 4, line * 4 + 1, line * 4 + 2, line * 4 + 3};
      dram += l2.access(sectors, 4, false);
    }
    CHECK(double(dram) / double(4 * lines) == doctest::Approx(f).epsilon(0.05));
    // Read again: every line is present now, fetched or not.
    uint64_t again = 0;
    for (uint64_t line = 0; line < lines; ++line) {
      const uint64_t sectors[4] = {line * 4, line * 4 + 1, line * 4 + 2, line * 4 + 3};
      again += l2.access(sectors, 4, false);
    }
    CHECK(again == 0);
  }
}

TEST_CASE("co-runners: a fraction per buffer, so a vector every block reads does not halve the private rows' fetches") {
  // Lesson 8's bias+GELU: a block reads 8 private lines of X (100-107) and
  // 8 lines of the bias b (0-7), which the blocks of its column (y + 1,
  // y + 2, 66 of one wave) read too.
  const auto X = range(100, 8), b = range(0, 8);
  cycle::Neighbours n;
  n.x1 = join(range(108, 8), range(8, 8));
  n.x2 = join(range(116, 8), range(16, 8));
  n.y1 = join(range(200, 8), b);
  n.y2 = join(range(300, 8), b);
  // One mean over the lines: half of them the bias's.
  CHECK(cycle::first_read_fetch_fraction(join(X, b), n, 16, 66) == doctest::Approx((8.0 + 8.0 / 66) / 16));
  // Per buffer: b's lines [0, 64), X's [100, 612); a third buffer it does not read gets no range.
  const auto r = cycle::fetch_fractions_by_buffer(join(X, b), n, 16, 66, {{0, 64}, {100, 612}, {1000, 1100}});
  REQUIRE(r.size() == 2);
  CHECK(r[0].first_line == 0);
  CHECK(r[0].fraction == doctest::Approx(1.0 / 66));
  CHECK(r[1].first_line == 100);
  CHECK(r[1].end_line == 612);
  CHECK(r[1].fraction == doctest::Approx(1.0));
}

TEST_CASE("co-runners: the L2 fetches each range's share of its misses, the global share elsewhere") {
  L2Model l2(50ull << 20);
  l2.set_fetch_fraction(0.5);
  l2.set_fetch_fractions({{0, 10000, 1.0}, {10000, 20000, 0.1}});
  uint64_t dram[3] = {};
  for (uint64_t line = 0; line < 30000; ++line) {
    const uint64_t sectors[4] = {line * 4, line * 4 + 1, line * 4 + 2, line * 4 + 3};
    dram[line / 10000] += l2.access(sectors, 4, false);
  }
  CHECK(double(dram[0]) / 40000 == doctest::Approx(1.0));
  CHECK(double(dram[1]) / 40000 == doctest::Approx(0.1).epsilon(0.1));
  CHECK(double(dram[2]) / 40000 == doctest::Approx(0.5).epsilon(0.05));
}
