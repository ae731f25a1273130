// Known-answer tests for lab/sim/memory_cost: sectors per request, shared
// wavefronts and bank conflicts (Nsight Compute definitions), and the L2.
#include <doctest/doctest.h>

#include <cstdint>
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "lab/sim/l2_model.h"
#include "lab/sim/memory_cost.h"

using namespace lab::sim;

namespace {
constexpr uint64_t kBase = 0x10000000000ull;  // 256-byte aligned, like cudaMalloc

// Lane i accesses base + i * stride_bytes.
std::vector<uint64_t> strided(uint64_t base, uint64_t stride_bytes) {
  std::vector<uint64_t> a(32);
  for (int i = 0; i < 32; ++i) a[size_t(i)] = base + uint64_t(i) * stride_bytes;
  return a;
}
}  // namespace

TEST_CASE("global: sectors per request for strided and vectorized access") {
  // float, stride 1: 128 contiguous bytes = 4 sectors.
  CHECK(global_sectors(strided(kBase, 4).data(), ~0u, 4) == 4);
  // float, stride 2: 256 bytes spanned = 8 sectors.
  CHECK(global_sectors(strided(kBase, 8).data(), ~0u, 4) == 8);
  // float, stride 4: 16 sectors.
  CHECK(global_sectors(strided(kBase, 16).data(), ~0u, 4) == 16);
  // float, stride 8 and more: one sector per lane, 32.
  CHECK(global_sectors(strided(kBase, 32).data(), ~0u, 4) == 32);
  CHECK(global_sectors(strided(kBase, 4096).data(), ~0u, 4) == 32);
  // float2 (64-bit) coalesced: 256 bytes = 8 sectors; float4 (128-bit): 16.
  CHECK(global_sectors(strided(kBase, 8).data(), ~0u, 8) == 8);
  CHECK(global_sectors(strided(kBase, 16).data(), ~0u, 16) == 16);
  // double, stride 1: 8 sectors.
  CHECK(global_sectors(strided(kBase, 8).data(), ~0u, 8) == 8);
  // Every lane on the same address: 1 sector.
  CHECK(global_sectors(strided(kBase, 0).data(), ~0u, 4) == 1);
  // Misaligned by 4 bytes: the warp's 128 bytes straddle 5 sectors.
  CHECK(global_sectors(strided(kBase + 4, 4).data(), ~0u, 4) == 5);
  // Half the lanes active: 64 bytes = 2 sectors.
  CHECK(global_sectors(strided(kBase, 4).data(), 0x0000ffffu, 4) == 2);
  CHECK(global_sectors(strided(kBase, 4).data(), 0u, 4) == 0);
  // Sector addresses come back, distinct and sorted.
  uint64_t sec[64];
  REQUIRE(global_sectors(strided(kBase, 4).data(), ~0u, 4, sec) == 4);
  for (int i = 0; i < 4; ++i) CHECK(sec[i] == kBase / 32 + uint64_t(i));
}

TEST_CASE("global: sectors come back sorted and distinct whatever the lanes' order") {
  // Lanes in one to many ascending runs (a 16-wide block's two rows, the
  // same lines twice, descending lanes, random), accesses of 4 to 16 bytes
  // (a 16-byte access at an 8-byte offset spans two sectors): the sectors
  // are those of a plain sort and dedup of every lane's.
  uint64_t x = 0x2545f4914f6cdd1dull;
  auto next = [&] { return x ^= x << 13, x ^= x >> 7, x ^= x << 17; };
  for (int trial = 0; trial < 4000; ++trial) {
    const uint32_t bytes = 4u << (trial % 3);
    const int runs = 1 + trial % 7;  // 1..7 ascending runs of lanes
    const uint64_t stride = bytes * (1 + next() % 40);
    uint64_t run_base[8];
    for (auto& b : run_base) b = kBase + (next() % 3) * 8 * bytes;  // runs that start together repeat lines
    std::vector<uint64_t> a(32);
    for (int i = 0; i < 32; ++i) {
      const int run = i * runs / 32, first = (run * 32 + runs - 1) / runs;  // the run's first lane
      a[size_t(i)] = run_base[run] + uint64_t(i - first) * stride;
    }
    if (trial % 5 == 4)
      for (auto& v : a) v = kBase + (next() % 4096) * bytes;  // no order at all
    for (auto& v : a) v &= ~uint64_t(bytes - 1);  // aligned to the access
    const uint32_t mask = trial % 11 == 3 ? uint32_t(next()) : ~0u;
    std::vector<uint64_t> want;
    for (int i = 0; i < 32; ++i)
      if ((mask >> i) & 1)
        for (uint64_t s = a[size_t(i)] / 32; s <= (a[size_t(i)] + bytes - 1) / 32; ++s) want.push_back(s);
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    uint64_t got[64];
    const uint32_t n = global_sectors(a.data(), mask, bytes, got);
    CAPTURE(trial);
    REQUIRE(n == want.size());
    CHECK(std::equal(want.begin(), want.end(), got));
  }
}

TEST_CASE("shared: 32-bit strides, broadcast and padding") {
  SUBCASE("stride 1 word: conflict-free, 1 wavefront") {
    auto c = shared_wavefronts(strided(0, 4).data(), ~0u, 4);
    CHECK(c.wavefronts == 1);
    CHECK(c.ideal == 1);
    CHECK(c.conflicts() == 0);
  }
  SUBCASE("stride 2 words: 2-way conflict") {
    auto c = shared_wavefronts(strided(0, 8).data(), ~0u, 4);
    CHECK(c.wavefronts == 2);
    CHECK(c.conflicts() == 1);
  }
  SUBCASE("stride 32 words (a column of a 32x32 float tile): 32-way") {
    auto c = shared_wavefronts(strided(0, 128).data(), ~0u, 4);
    CHECK(c.wavefronts == 32);
    CHECK(c.conflicts() == 31);
  }
  SUBCASE("stride 33 words (the padded tile [32][33]): conflict-free") {
    auto c = shared_wavefronts(strided(0, 132).data(), ~0u, 4);
    CHECK(c.wavefronts == 1);
    CHECK(c.conflicts() == 0);
  }
  SUBCASE("stride 3 words (odd): conflict-free") {
    CHECK(shared_wavefronts(strided(0, 12).data(), ~0u, 4).wavefronts == 1);
  }
  SUBCASE("broadcast: every lane reads one word") {
    auto c = shared_wavefronts(strided(64, 0).data(), ~0u, 4);
    CHECK(c.wavefronts == 1);
    CHECK(c.conflicts() == 0);
  }
  SUBCASE("multicast: lanes pair up on 16 words of one bank-row") {
    std::vector<uint64_t> a(32);
    for (int i = 0; i < 32; ++i) a[size_t(i)] = uint64_t(i / 2) * 4;
    CHECK(shared_wavefronts(a.data(), ~0u, 4).wavefronts == 1);
  }
  SUBCASE("bytes of one word are one word") {
    CHECK(shared_wavefronts(strided(0, 1).data(), ~0u, 1).wavefronts == 1);
  }
  SUBCASE("inactive lanes do not conflict") {
    auto c = shared_wavefronts(strided(0, 128).data(), 0x1u | 0x2u, 4);  // 2 lanes, same bank
    CHECK(c.wavefronts == 2);
    CHECK(c.ideal == 1);
  }
}

TEST_CASE("shared: 64- and 128-bit accesses are not miscounted as conflicts") {
  SUBCASE("float2, consecutive: 2 wavefronts (half-warps), 0 conflicts") {
    auto c = shared_wavefronts(strided(0, 8).data(), ~0u, 8);
    CHECK(c.wavefronts == 2);
    CHECK(c.ideal == 2);
    CHECK(c.conflicts() == 0);
  }
  SUBCASE("float4, consecutive: 4 wavefronts (quarter-warps), 0 conflicts") {
    auto c = shared_wavefronts(strided(0, 16).data(), ~0u, 16);
    CHECK(c.wavefronts == 4);
    CHECK(c.ideal == 4);
    CHECK(c.conflicts() == 0);
  }
  SUBCASE("float4 with 32-byte stride: 2-way in each quarter-warp") {
    auto c = shared_wavefronts(strided(0, 32).data(), ~0u, 16);
    CHECK(c.wavefronts == 8);
    CHECK(c.conflicts() == 4);
  }
  SUBCASE("float4 down a column of a [32][32] float tile: 8-way in each quarter") {
    auto c = shared_wavefronts(strided(0, 128).data(), ~0u, 16);
    CHECK(c.wavefronts == 32);
    CHECK(c.ideal == 4);
    CHECK(c.conflicts() == 28);  // the forum's LDS.128 "bad layout": 32 wavefronts, 28 conflicts
  }
  SUBCASE("double with 16-byte stride: 2-way in each half-warp") {
    auto c = shared_wavefronts(strided(0, 16).data(), ~0u, 8);
    CHECK(c.wavefronts == 4);
    CHECK(c.conflicts() == 2);
  }
  SUBCASE("float4 broadcast: lane pairs packed, 2 wavefronts, no conflicts") {
    // NVIDIA forum 77228: a uniform LDS.128 takes 2 requests, not 4.
    auto c = shared_wavefronts(strided(256, 0).data(), ~0u, 16);
    CHECK(c.wavefronts == 2);
    CHECK(c.conflicts() == 0);
  }
  SUBCASE("float4, lanes 0-15 on one address and 16-31 on another: 2 wavefronts") {
    // NVIDIA forum 373160, "Access Pattern 2", measured with ncu on A10 and H100.
    std::vector<uint64_t> a(32);
    for (int l = 0; l < 32; ++l) a[size_t(l)] = l < 16 ? 0 : 32;
    auto c = shared_wavefronts(a.data(), ~0u, 16);
    CHECK(c.wavefronts == 2);
    CHECK(c.conflicts() == 0);
  }
  SUBCASE("float4, lane pairs apart: no packing") {
    // Lanes n and n+16 share an address (the forum's "Access Pattern 1"):
    // neither n^1 nor n^2 pairs match, each quarter-warp is 2-way: 8.
    std::vector<uint64_t> a(32);
    for (int l = 0; l < 32; ++l) a[size_t(l)] = uint64_t(l % 16) * 32;
    auto c = shared_wavefronts(a.data(), ~0u, 16);
    CHECK(c.wavefronts == 8);
  }
}

TEST_CASE("L2: repeated reads of a small buffer hit, a large stream misses") {
  L2Model l2(1 << 20);  // 1 MiB
  std::vector<uint64_t> sec(64);
  uint64_t first = 0, later = 0;
  // 16 KiB buffer, read 10 times.
  for (int rep = 0; rep < 10; ++rep) {
    for (uint64_t s0 = 0; s0 < 512; s0 += 64) {
      for (uint64_t k = 0; k < 64; ++k) sec[k] = kBase / 32 + s0 + k;
      uint32_t m = l2.access(sec.data(), 64, false);
      (rep == 0 ? first : later) += m;
    }
  }
  CHECK(first == 512);  // cold: every sector from DRAM once
  CHECK(later == 0);    // warm: all hits
  // Streaming 8 MiB through a 1 MiB L2, twice: the second pass misses again.
  uint64_t pass[2] = {0, 0};
  for (int p = 0; p < 2; ++p)
    for (uint64_t s0 = 0; s0 < (8u << 20) / 32; s0 += 64) {
      for (uint64_t k = 0; k < 64; ++k) sec[k] = (kBase + (64ull << 20)) / 32 + s0 + k;
      pass[p] += l2.access(sec.data(), 64, false);
    }
  CHECK(pass[0] == (8u << 20) / 32);
  CHECK(pass[1] > pass[0] * 9 / 10);
}

// A block's own reuse (L2Model::set_block_reuse): a block reading its own
// 32 KB again after claiming 256 more lines misses where the reuse distance
// allows fewer (the blocks resident with it claimed as many each meanwhile),
// and hits where it allows more, or where another block's reads came between.
TEST_CASE("L2: a block's own line read again after more claims than the reuse distance is fetched again") {
  auto run = [](uint32_t reuse, bool other_block) {
    L2Model l2(4 << 20);  // holds everything below many times over
    l2.set_block_reuse(reuse);
    uint32_t claims[2] = {0, 0};
    const L2Model::Requester a{7, &claims[0]}, b{8, &claims[1]};
    std::vector<uint64_t> sec(4);
    uint64_t second_pass = 0;
    for (int pass = 0; pass < 2; ++pass)
      for (uint64_t line = 0; line < 256; ++line) {  // 32 KB, a line at a time
        for (uint64_t k = 0; k < 4; ++k) sec[k] = kBase / 32 + line * 4 + k;
        if (other_block && pass == 1) l2.access(sec.data(), 4, false, &b);  // another block reads it first
        const uint32_t m = l2.access(sec.data(), 4, false, &a);
        if (pass == 1) second_pass += m;
      }
    return second_pass;
  };
  CHECK(run(0, false) == 0);           // off: the cache holds it, every read hits
  CHECK(run(1000, false) == 0);        // 256 claims between reads, fewer than 1000
  CHECK(run(200, false) == 256 * 4);   // more than 200: every sector from DRAM again
  CHECK(run(200, true) == 0);          // another block brought it in: a hit for this one
}

TEST_CASE("L2: writes are written back once; a written sector then reads as a hit") {
  L2Model l2(1 << 20);
  uint64_t s[4] = {kBase / 32, kBase / 32 + 1, kBase / 32 + 2, kBase / 32 + 3};
  CHECK(l2.access(s, 4, true) == 4);   // 4 dirty sectors -> 128 DRAM write bytes
  CHECK(l2.access(s, 4, true) == 0);   // rewriting dirty sectors adds no DRAM traffic
  CHECK(l2.access(s, 4, false) == 0);  // reading what was written: hits
  uint64_t t[1] = {kBase / 32 + 100};
  CHECK(l2.access(t, 1, false) == 1);
  CHECK(l2.access(t, 1, true) == 1);   // a clean resident sector becomes dirty
}

TEST_CASE("shared_serve: the phases and wavefronts behind shared_wavefronts") {
  // The same model counts and records: cost matches, each lane's word has a
  // bank and a wavefront within its phase.
  for (uint32_t bytes : {4u, 8u, 16u})
    for (uint64_t stride : {uint64_t(0), uint64_t(bytes), uint64_t(2 * bytes), uint64_t(128)}) {
      auto addr = strided(64, stride);
      SharedCost c = shared_wavefronts(addr.data(), ~0u, bytes);
      SharedServe s = shared_serve(addr.data(), ~0u, bytes);
      CAPTURE(bytes);
      CAPTURE(stride);
      CHECK(s.cost.wavefronts == c.wavefronts);
      CHECK(s.cost.ideal == c.ideal);
      CHECK(s.lanes_per_phase == 128 / bytes);
      uint32_t sum = 0, ideal = 0;
      for (uint32_t p = 0; p < s.phases(); ++p) sum += s.phase_wavefronts[p], ideal += s.phase_ideal[p];
      // Stride 0 at 16 bytes: every lane on one address, the packed return.
      CHECK(s.packed == (bytes == 16 && stride == 0));
      CHECK((s.packed ? (sum + 1) / 2 : sum) == c.wavefronts);
      CHECK((s.packed ? std::min(ideal, c.wavefronts) : ideal) == c.ideal);
      for (int l = 0; l < 32; ++l)
        for (uint32_t k = 0; k < s.words_kept(); ++k) {
          CHECK(s.bank[l][k] == (addr[size_t(l)] / 4 + k) % 32);
          CHECK(s.wavefront[l][k] < s.phase_wavefronts[s.phase_of(uint32_t(l))]);
        }
    }
  // Broadcast: every lane's word is served in the first wavefront.
  SharedServe b = shared_serve(strided(64, 0).data(), ~0u, 4);
  CHECK(b.phases() == 1);
  for (int l = 0; l < 32; ++l) CHECK(b.wavefront[l][0] == 0);
  // Column of a [32][32] float tile: lane l is served in wavefront l.
  SharedServe col = shared_serve(strided(0, 128).data(), ~0u, 4);
  for (int l = 0; l < 32; ++l) CHECK(col.wavefront[l][0] == l);
  CHECK(bank_conflicts(32, 1) == 31);
  CHECK(bank_conflicts(1, 2) == 0);
}

TEST_CASE("global_ideal_sectors: a broadcast needs one sector, consecutive floats four") {
  CHECK(global_ideal_sectors(strided(kBase, 0).data(), ~0u, 4) == 1);
  CHECK(global_ideal_sectors(strided(kBase, 4).data(), ~0u, 4) == 4);
  CHECK(global_ideal_sectors(strided(kBase, 128).data(), ~0u, 4) == 4);  // 128 distinct bytes, scattered
  CHECK(global_ideal_sectors(strided(kBase, 16).data(), ~0u, 16) == 16);
  CHECK(global_ideal_sectors(strided(kBase, 4).data(), 0u, 4) == 0);
}

TEST_CASE("L2: a column walk (large power-of-two stride) is not aliased into a few sets") {
  // 4096 rows of a 4096-float row-major matrix, one 128-byte line per row
  // (a 16 KB stride): 512 KB, a twelfth of a 6 MB L2. The second pass hits.
  L2Model l2(6ull << 20);
  auto pass = [&] {
    uint32_t misses = 0;
    for (uint64_t row = 0; row < 4096; ++row) {
      uint64_t first = row * 16384 / 32;  // sector index of the row's first 32 bytes
      uint64_t sectors[4] = {first, first + 1, first + 2, first + 3};
      misses += l2.access(sectors, 4, false);
    }
    return misses;
  };
  CHECK(pass() == 4096 * 4);
  CHECK(pass() < 4096 * 4 / 100);
}

TEST_CASE("L2: FastMod is the exact remainder") {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (uint64_t d : {1ull, 3ull, 7ull, 25600ull, 40960ull, 65536ull, 1000003ull, (1ull << 32) - 5, (1ull << 40) + 9}) {
    FastMod mod(d);
    CAPTURE(d);
    for (int i = 0; i < 20000; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64: values over the whole 64-bit range
      CHECK(mod(x) == x % d);
    }
    CHECK(mod(~0ull) == ~0ull % d);
    CHECK(mod(0) == 0);
    CHECK(mod(d - 1) == d - 1);
    CHECK(mod(d) == 0);
  }
}

TEST_CASE("L2: one request's sectors of a line cost what they cost one by one") {
  // The same stream, sent as 4-sector requests and as single sectors, to two
  // caches small enough to evict: every answer matches, hits and misses.
  L2Model grouped(64 << 10), single(64 << 10);
  uint64_t x = 12345;
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const uint64_t line = kBase / 128 + x % 4096;  // 512 KB of lines through a 64 KB cache
    const bool write = (x >> 20) % 3 == 0;
    const uint32_t first = uint32_t(x >> 32) % 4, count = 1 + uint32_t(x >> 40) % (4 - first);
    uint64_t sec[4];
    for (uint32_t k = 0; k < count; ++k) sec[k] = line * 4 + first + k;
    uint32_t one_by_one = 0;
    for (uint32_t k = 0; k < count; ++k) one_by_one += single.access(&sec[k], 1, write);
    CHECK(grouped.access(sec, count, write) == one_by_one);
  }
}

TEST_CASE("L2: a later launch of the same size starts empty") {
  uint64_t s[4] = {kBase / 32, kBase / 32 + 1, kBase / 32 + 2, kBase / 32 + 3};
  {
    L2Model l2(1 << 20);
    CHECK(l2.access(s, 4, false) == 4);
    CHECK(l2.access(s, 4, false) == 0);
  }
  L2Model again(1 << 20);  // reuses the first one's arrays
  CHECK(again.access(s, 4, false) == 4);
  again.set_concurrent(true);
  CHECK(again.access(s, 4, true) == 4);
  CHECK(again.access(s, 4, false) == 0);
}

TEST_CASE("L2: two workers sharing the cache count each cold sector once, give or take their race") {
  // Both threads read the same 1 MiB twice through a 4 MiB cache. Every
  // sector is cold once: together they miss at least once per sector (some
  // sector may be fetched by both when they reach it together) and at most
  // twice; the second passes hit.
  L2Model l2(4 << 20);
  l2.set_concurrent(true);
  const uint64_t sectors = (1 << 20) / 32;
  std::atomic<uint64_t> first{0}, second{0};
  auto reader = [&](uint64_t start) {
    for (int pass = 0; pass < 2; ++pass)
      for (uint64_t k = 0; k < sectors; k += 4) {
        const uint64_t s0 = kBase / 32 + (start + k) % sectors;
        uint64_t sec[4] = {s0, s0 + 1, s0 + 2, s0 + 3};
        (pass == 0 ? first : second) += l2.access(sec, 4, false);
      }
  };
  std::thread a(reader, 0), b(reader, sectors / 2);
  a.join();
  b.join();
  CHECK(first.load() >= sectors);
  CHECK(first.load() <= 2 * sectors);
  CHECK(second.load() == 0);
}

TEST_CASE("L2: with 64-byte fetches a missed read sector brings its neighbour, and only a missed one") {
  // The H100 and H200 models (device.h l2_fetch_bytes, measured on an H200):
  // a read of sector 0 of a line moves sectors 0 and 1 from DRAM; sector 1
  // then hits; sectors 2 and 3 read together are one 64-byte fetch, as
  // before; a sector already present costs nothing and fetches nothing.
  // Writes are unchanged (each dirty sector is written back alone).
  L2Model l2(1 << 20);
  l2.set_fetch_bytes(64);
  const uint64_t s0 = kBase / 32;
  uint64_t one[1] = {s0};
  CHECK(l2.access(one, 1, false) == 2);
  uint64_t next[1] = {s0 + 1};
  CHECK(l2.access(next, 1, false) == 0);
  uint64_t pair[2] = {s0 + 2, s0 + 3};
  CHECK(l2.access(pair, 2, false) == 2);
  CHECK(l2.access(one, 1, false) == 0);
  uint64_t far[1] = {s0 + 4 * 64 + 3};  // another line's last sector: with sector 2
  CHECK(l2.access(far, 1, false) == 2);
  uint64_t far_pair[1] = {s0 + 4 * 64 + 2};
  CHECK(l2.access(far_pair, 1, false) == 0);
  uint64_t w[1] = {s0 + 4 * 128};
  CHECK(l2.access(w, 1, true) == 1);
  // The default (every model without the measurement): the sector alone.
  L2Model plain(1 << 20);
  CHECK(plain.access(one, 1, false) == 1);
  CHECK(plain.access(next, 1, false) == 1);
}
