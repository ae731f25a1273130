// tests/test_bench_mechanisms.cpp: the shape of each mechanism's curve in
// `gpulab bench mechanisms` (lab/bench/mechanisms.h), pinned: exact counts
// where the rule is exact (wavefronts per request, sectors per request), and
// ratios within a stated tolerance where time is involved. No predicted rate
// above its rated peak, on every GPU model the suite runs.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lab/bench/mechanisms.h"
#include "lab/sim/device.h"

using namespace lab;

namespace {

// One GPU's rows for `keys`, run once for every case that asks (the suite
// is the costliest test there is: no sweep is run twice).
const bench::MechanismReport& run_once(const std::string& gpu, const std::vector<std::string>& keys) {
  static std::map<std::pair<std::string, std::vector<std::string>>, bench::MechanismReport> cache;
  auto it = cache.find({gpu, keys});
  if (it != cache.end()) return it->second;
  bench::MechanismOptions o;
  o.gpus = {&sim::gpu_model(gpu)};
  o.threads = 2;
  o.only = keys;
  return cache[{gpu, keys}] = bench::run_mechanisms(o);
}

// Every sweep but l1 and pages: the l1 sweep has cases of its own, and
// pages (256 MB a row) is left to the docs' table (the model has no DRAM pages).
const bench::MechanismReport& report(const std::string& gpu) {
  std::vector<std::string> keys;
  for (const auto& k : bench::mechanism_keys())
    if (k != "l1" && k != "pages") keys.push_back(k);
  return run_once(gpu, keys);
}

const bench::MechanismReport& l1_report(const std::string& gpu) { return run_once(gpu, {"l1"}); }

// The H200's rows its measurement is held to (and its L2 read).
const bench::MechanismReport& h200_report() { return run_once("H200", {"dependent", "chase", "peak", "stream"}); }

const bench::MechanismRow& find(const bench::MechanismReport& r, const std::string& mech, const std::string& point) {
  for (const auto& row : r.rows)
    if (row.mechanism == mech && row.point == point) return row;
  FAIL("no row " << mech << " / " << point);
  return r.rows.front();
}

}  // namespace

TEST_CASE("mechanisms: bank conflicts, n ways cost n wavefronts and, from 4 ways on, n SM cycles") {
  const auto& r = report("H100");
  double last = 0;
  for (int ways : {1, 2, 4, 8, 16, 32}) {
    const auto& row = find(r, "banks", std::to_string(ways) + "-way");
    INFO(ways << "-way: " << row.value << " cycles/load");
    // The shared loads are `ways` wavefronts each; the fill stores and the
    // output store are few beside 256 loads per thread.
    CHECK(row.wavefronts_per_request == doctest::Approx(ways).epsilon(0.02));
    CHECK(row.value > last);  // time grows with the ways
    last = row.value;
    if (ways >= 4) CHECK(row.value == doctest::Approx(ways).epsilon(0.15));
  }
  CHECK(find(r, "banks", "1-way").value < 1.5);
}

TEST_CASE("mechanisms: global stride, sectors per request exactly, useful bandwidth by the sector rule") {
  const auto& r = report("H100");
  // From stride 16 on (lanes 64 bytes apart) the H100 model's L2 fetches each
  // missed sector with its neighbour (measured on an H200: device.cpp
  // l2_fetch_bytes), so a request moves 64 read sectors from DRAM, not 32:
  // stride 16 runs at (32 + 4) / (64 + 4) of stride 8, as on the H200
  // (704 -> 391 GB/s, 0.56).
  const double s8 = find(r, "stride", "stride 8").value;
  for (int s : {16, 32})
    CHECK(find(r, "stride", "stride " + std::to_string(s)).value / s8 == doctest::Approx(36.0 / 68).epsilon(0.10));
  for (int s : {1, 2, 4, 8, 16, 32}) {
    const auto& row = find(r, "stride", "stride " + std::to_string(s));
    INFO("stride " << s);
    // A request per load and per store: reads min(32, 4s) sectors, writes 4.
    CHECK(row.sectors_per_request == doctest::Approx((std::min(32, 4 * s) + 4) / 2.0).epsilon(0.01));
    REQUIRE(row.published);
    if (s >= 16) continue;  // held to stride 8 above
    // Within 10%: stride 1's short blocks also wait on the block scheduler
    // and a slot's turnaround (docs/fidelity.md, sixteenth round), which the
    // rule's pure sector count leaves out; on the GPU more so (the H200
    // measured stride 2 at 0.83 of stride 1, the rule says 0.67).
    CHECK(row.value == doctest::Approx(*row.published).epsilon(0.10));
  }
}

TEST_CASE("mechanisms: pointer-chase latencies of L1, L2 and DRAM within 10% of the published figures") {
  for (const char* gpu : {"H100", "V100"}) {
    const auto& r = report(gpu);
    for (const char* level : {"L1", "L2", "DRAM"}) {
      const auto& row = find(r, "chase", level);
      INFO(gpu << " " << level << ": " << row.value << " cycles against " << (row.published ? *row.published : 0));
      REQUIRE(row.published);
      CHECK(row.value == doctest::Approx(*row.published).epsilon(0.10));
    }
    CHECK(find(r, "chase", "L2").value > find(r, "chase", "L1").value);
    CHECK(find(r, "chase", "L2").value < find(r, "chase", "DRAM").value);
  }
}

TEST_CASE("mechanisms: dependent-issue latency per class") {
  const auto& h = report("H100");
  CHECK(find(h, "dependent", "FP32").value == doctest::Approx(4).epsilon(0.05));
  CHECK(find(h, "dependent", "INT").value == doctest::Approx(4).epsilon(0.05));
  CHECK(find(h, "dependent", "FP64").value == doctest::Approx(8).epsilon(0.05));
  CHECK(find(h, "dependent", "MUFU").value > find(h, "dependent", "FP32").value);
  CHECK(find(h, "dependent", "tensor").value > find(h, "dependent", "FP64").value);
  // Turing's consumer-class FP64 is far slower (1/32 rate).
  CHECK(find(report("T4"), "dependent", "FP64").value > 4 * find(report("T4"), "dependent", "FP32").value);
}

TEST_CASE("mechanisms: no predicted rate above its rated peak, and peaks near it") {
  for (const char* gpu : {"H100", "A100", "V100", "T4"}) {
    for (const auto& row : report(gpu).rows) {
      if (row.rated <= 0) continue;
      INFO(gpu << " " << row.mechanism << " " << row.point << ": " << row.value << " of " << row.rated);
      CHECK(row.value <= row.rated);
    }
    const auto& fp32 = find(report(gpu), "peak", "FP32 FMA");
    CHECK(fp32.value > 0.8 * fp32.rated);
    for (const char* k : {"copy", "triad"}) {
      const auto& s = find(report(gpu), "stream", k);
      REQUIRE(s.published);
      INFO(gpu << " STREAM " << k);
      CHECK(s.value == doctest::Approx(*s.published).epsilon(0.08));
    }
  }
  // Hopper: mma.sync reaches about two thirds of the dense (wgmma) peak.
  const auto& mma = find(report("H100"), "peak", "mma.sync f16");
  CHECK(mma.value < 0.7 * mma.rated);
  CHECK(mma.value > 0.5 * mma.rated);
  const auto& a100 = find(report("A100"), "peak", "mma.sync f16");
  CHECK(a100.value > 0.8 * a100.rated);
  // wgmma reaches the rate Luo et al. measured (88% of the peak), above mma.sync's.
  const auto& wgmma = find(report("H100"), "peak", "wgmma f16");
  REQUIRE(wgmma.published);
  CHECK(wgmma.value == doctest::Approx(*wgmma.published).epsilon(0.10));
  CHECK(wgmma.value > 1.25 * mma.value);
}

TEST_CASE("mechanisms: divergence, latency hiding and atomics") {
  const auto& r = report("H100");
  // Both paths run in turn: close to 2x (the code outside the branch is shared).
  CHECK(find(r, "divergence", "split / uniform").value == doctest::Approx(2).epsilon(0.15));
  // Little's law: loads per cycle grow about linearly with resident warps.
  const double one = find(r, "hiding", "1 warps/SM").value;
  for (int w : {2, 4, 8, 16, 32}) {
    INFO(w << " warps");
    const double v = find(r, "hiding", std::to_string(w) + " warps/SM").value;
    CHECK(v == doctest::Approx(one * w).epsilon(0.15));
  }
  // Chains that share no line: every load a DRAM miss, so the rate stays on
  // Little's line over the DRAM latency, and at 32 warps per SM it is below
  // the crossing chains' (whose later readers of a line hit L2).
  const double distinct_one = find(r, "hiding", "1 warps/SM, no line shared").value;
  for (int w : {8, 32}) {
    INFO(w << " warps, no line shared");
    CHECK(find(r, "hiding", std::to_string(w) + " warps/SM, no line shared").value ==
          doctest::Approx(distinct_one * w).epsilon(0.15));
  }
  CHECK(find(r, "hiding", "32 warps/SM, no line shared").value < find(r, "hiding", "32 warps/SM").value);
  // One address: the lab's measured 0.69 updates per cycle for the whole
  // GPU on Hopper ([KEP]'s one per clock elsewhere); spread: far more.
  CHECK(find(r, "atomics", "one address").value == doctest::Approx(0.69).epsilon(0.05));
  // Floating-point adds to one address at the rate measured on the H100 and
  // H200 (0.287 per clock), the integer rate where none was (A100).
  CHECK(find(r, "atomics", "one address, f32 add").value == doctest::Approx(0.287).epsilon(0.05));
  CHECK(find(report("A100"), "atomics", "one address, f32 add").value ==
        doctest::Approx(find(report("A100"), "atomics", "one address").value).epsilon(0.05));
  CHECK(find(report("A100"), "atomics", "one address").value == doctest::Approx(1).epsilon(0.05));
  CHECK(find(r, "atomics", "distinct addresses").value > 50);
}

TEST_CASE("mechanisms: nearly empty blocks, at the block scheduler's measured rate") {
  // The H100 model's blocks are dealt out at the rate the lab measured on
  // an H200 (GH100: device.cpp blocks_dispatched_per_clock, 0.86 a clock,
  // GPU-wide): 154 cycles per block per SM once a few blocks per SM run,
  // whatever the block's size, as on the GPU (152-163 for 32-, 128- and
  // 256-thread blocks, docs/fidelity/h200/mech-cuda-blocks-*.json).
  const auto& r = report("H100");
  const double many = find(r, "blocks", "64 blocks/SM").value;
  CHECK(many == doctest::Approx(132 / 0.86).epsilon(0.03));
  CHECK(find(r, "blocks", "32 blocks/SM").value == doctest::Approx(many).epsilon(0.03));
  CHECK(find(r, "blocks", "64 blocks/SM of 32 threads").value == doctest::Approx(many).epsilon(0.03));
  CHECK(find(r, "blocks", "64 blocks/SM of 256 threads").value == doctest::Approx(many).epsilon(0.03));
  // One block per SM: the last SM's block waits for the 131 before it.
  CHECK(find(r, "blocks", "1 blocks/SM").value > 0.95 * many);
  // Short blocks that read one 4-byte word per thread are held to the
  // scheduler's rate (1,645 GB/s measured on the H200, 2,522 before the
  // model had it); four words per thread are not.
  const double one = find(r, "blocks", "short reads 1x4 B, 256-thread blocks").value;
  const double bytes_per_block = 256 * 4;
  CHECK(one <= bytes_per_block * 0.86 * 1.98e9 / 1e9 * 1.01);
  CHECK(find(r, "blocks", "short reads 4x4 B, 256-thread blocks").value > 1.5 * one);
  // A model with no measurement places a block the cycle a slot frees: what
  // a block costs it is its own few instructions.
  const auto& a = report("A100");
  CHECK(find(a, "blocks", "64 blocks/SM").value < 16);
  CHECK(find(a, "blocks", "64 blocks/SM").value < find(a, "blocks", "1 blocks/SM").value);
}

// The lab's own measurement on an H100 SXM (docs/fidelity/h100/mech-cuda-memory.json,
// l2-atomics.txt): the chases and the L2 read the H100 model takes its
// latencies and L2 rate from reproduce it. (With the H200's L2 rate the L2
// read row came out 21% above this part's.)
// The rows of `r` whose reference cites `source` within 10% of it; how many.
static int hold_to_measurement(const bench::MechanismReport& r, const std::string& source) {
  int held = 0;
  for (const auto& row : r.rows)
    if (row.published && row.source.find(source) != std::string::npos) {
      INFO(row.mechanism << " / " << row.point << ": " << row.value << " against " << *row.published);
      CHECK(row.value == doctest::Approx(*row.published).epsilon(0.10));
      ++held;
    }
  return held;
}

TEST_CASE("mechanisms: the H100 model beside the lab's H100 measurement") {
  // The chases and STREAM rows (the DRAM sweep's own case holds its rows to
  // the same measurement with the tolerances it states).
  bench::MechanismReport r;
  for (const auto& row : report("H100").rows)
    if (row.mechanism == "chase" || row.mechanism == "stream") r.rows.push_back(row);
  CHECK(hold_to_measurement(r, "[LAB-H100] measured on this part") >= 4);  // chases L1, L2, DRAM; the L2 read
  // The H100 reads its L2 more slowly than the H200 (measured 6996 against 8202 GB/s).
  CHECK(find(r, "stream", "L2 read").value < 0.9 * find(h200_report(), "stream", "L2 read").value);
}

// The lab's own measurement on an H200 (docs/fidelity/h200/mech-cuda-2.json,
// `gpulab bench mechanisms --backend cuda`): the latencies, peaks and STREAM
// rows the model takes as inputs from it reproduce it; WMMA runs well below
// mma.sync on Hopper, as measured.
TEST_CASE("mechanisms: the H200 model beside the lab's H200 measurement") {
  const bench::MechanismReport& r = h200_report();
  CHECK(hold_to_measurement(r, "[LAB-H200]") >= 19);  // 8 latencies (2 wgmma), 5 chases (2 bulk copies), wmma, 4 STREAM kernels, L2 read
  // A bulk copy pays the L2 latency once, then its bytes at the shared data
  // path's 128 B/cycle: 15 KB more is about 120 cycles more (measured: 139).
  const double more = find(r, "chase", "bulk copy 16 KB").value - find(r, "chase", "bulk copy 1 KB").value;
  CHECK(more == doctest::Approx(15 * 1024 / 128.0).epsilon(0.25));
  CHECK(find(r, "chase", "bulk copy 1 KB").value > find(r, "chase", "L2").value);
  // A wider wgmma keeps the tensor pipe longer: m64n256k16 about 1.65x m64n128k16 (measured 213 / 129).
  CHECK(find(r, "dependent", "wgmma m64n256k16").value / find(r, "dependent", "wgmma m64n128k16").value ==
        doctest::Approx(213.0 / 129.0).epsilon(0.10));
  const double mma = find(r, "peak", "mma.sync f16").value, wmma = find(r, "peak", "wmma f16").value;
  CHECK(wmma / mma == doctest::Approx(353.8 / 608.2).epsilon(0.10));
}

// DRAM against the bytes each thread keeps in flight (dram_flight.cu), held
// to the lab's H100 measurement (docs/fidelity/h100/mech-cuda-dram.json,
// mech-cuda-dram-copy.json): reads rise with the bytes in flight (Little's
// law, with a latency that grows under load) until the read rate caps them;
// one store per thread meets the write rate, above the read rate. Copies
// mix the two in one queue; the GPU's mix costs more than the queue's
// (copy 4x16 B: 2827 measured, the model 5% above; 1x4 B 15% above).
TEST_CASE("mechanisms: DRAM reads grow with the bytes in flight up to the read rate; writes run faster") {
  const auto& r = report("H100");
  const double r4 = find(r, "dram", "read 1x4 B").value, r16 = find(r, "dram", "read 1x16 B").value;
  const double r128 = find(r, "dram", "read 8x16 B").value, w16 = find(r, "dram", "write 1x16 B").value;
  CHECK(r16 > 1.2 * r4);                                   // measured 2774 / 2094
  CHECK(r128 == doctest::Approx(r16).epsilon(0.03));       // the plateau
  CHECK(w16 > 1.1 * r128);                                 // measured 3202 / 2759
  const double c = find(r, "dram", "copy 4x16 B").value;
  CHECK(c > r128);
  CHECK(c < w16);
  int held = 0;
  for (const auto& row : r.rows) {
    if (row.mechanism != "dram" || !row.published) continue;
    INFO(row.point << ": " << row.value << " against " << *row.published);
    CHECK(row.source.find("[LAB-H100]") != std::string::npos);
    CHECK(row.value == doctest::Approx(*row.published).epsilon(row.point.rfind("copy", 0) == 0 ? 0.20 : 0.06));
    ++held;
  }
  CHECK(held == 13);
}

// L1 hits against warps per SM (l1_hits.cu), held to the lab's H200
// measurement (docs/fidelity/h200/mech-cuda-l1-pages.json): one warp per
// sub-partition loads at the rate ptxas's 4-cycle spacing of a warp's loads
// and its shared load barrier allow (16 loads in flight, the fourth add
// waiting for the sixteenth load: 0.087 a cycle measured), four such warps
// four times that; two warps per sub-partition stay in step (0.595), a full
// SM runs near the L1's one request a cycle.
TEST_CASE("mechanisms: L1 hits, one warp's loads spaced and tracked as the SASS does; a full SM near one a cycle") {
  const bench::MechanismReport& r = l1_report("H100");
  const double one = find(r, "l1", "coalesced 4 B, 1 warps/SM").value;
  // On the H200 model, a load a cycle and each add waiting for its own load
  // gave 0.14 (+61%) and, 8 warps, 0.93 (+56%); spaced 4 cycles apart
  // alone, 0.11 and 0.87; with the shared barrier too, 0.10 and 0.67.
  CHECK(one == doctest::Approx(0.0871).epsilon(0.15));
  CHECK(find(r, "l1", "coalesced 4 B, 8 warps/SM").value == doctest::Approx(0.595).epsilon(0.15));
  CHECK(find(r, "l1", "coalesced 4 B, 4 warps/SM").value / one == doctest::Approx(4).epsilon(0.08));
  CHECK(find(r, "l1", "broadcast, 1 warps/SM").value == doctest::Approx(one).epsilon(0.05));
  for (const char* p : {"coalesced 4 B, 64 warps/SM", "broadcast, 64 warps/SM", "broadcast + coalesced, 64 warps/SM"}) {
    INFO(p);
    const double v = find(r, "l1", p).value;
    CHECK(v <= 1.0);
    CHECK(v == doctest::Approx(0.94).epsilon(0.06));
  }
  // A 16-byte load is 4 lines: a quarter of the rate (measured 0.245).
  CHECK(find(r, "l1", "coalesced 16 B, 64 warps/SM").value == doctest::Approx(0.245).epsilon(0.10));
}

TEST_CASE("mechanisms: L1 hits on an SM of 16 LD/ST units (GA102) at half the rate, as measured on sm_86") {
  auto value = [&](const std::string& gpu, const std::string& point) { return find(l1_report(gpu), "l1", point).value; };
  // [YKT-A]: 63.6 B/clk/SM of LDG.32 hits with 32 warps, 0.497 warp loads a
  // cycle; the H100's SM (32 LD/ST units) takes one a cycle.
  const double ga102 = value("RTX3090", "coalesced 4 B, 32 warps/SM");
  CHECK(ga102 == doctest::Approx(0.497).epsilon(0.10));
  CHECK(value("H100", "coalesced 4 B, 32 warps/SM") / ga102 == doctest::Approx(1.9).epsilon(0.12));
  // One warp is spaced by its own issue interval, not the LD/ST units: alike on both.
  CHECK(value("RTX3090", "coalesced 4 B, 1 warps/SM") ==
        doctest::Approx(value("H100", "coalesced 4 B, 1 warps/SM")).epsilon(0.15));
}
