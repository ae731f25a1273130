#include "lab/sim/memory_cost.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace lab::sim {

namespace {

// Sorts a request's sectors. They come as a few ascending runs in the
// usual patterns (a warp over two rows of a 16-wide block: two runs, often
// the same lines twice), which are merged pairwise, the pairs' results in
// turn; a request of more than four runs is sorted. A sort of every such
// request was a third of a 16 x 16 naive GEMM's interpreter time.
void sort_sectors(uint64_t* sec, uint32_t n) {
  constexpr uint32_t kMaxRuns = 4;
  uint32_t bounds[kMaxRuns + 1] = {0};
  uint32_t runs = 1;
  for (uint32_t i = 1; i < n; ++i)
    if (sec[i] < sec[i - 1]) {
      if (runs == kMaxRuns) {
        std::sort(sec, sec + n);
        return;
      }
      bounds[runs++] = i;
    }
  bounds[runs] = n;
  uint64_t tmp[64];
  uint64_t *from = sec, *to = tmp;
  while (runs > 1) {
    uint32_t merged = 0;
    for (uint32_t k = 0; k < runs; k += 2) {
      const uint32_t lo = bounds[k], mid = bounds[k + 1];
      if (k + 1 < runs) std::merge(from + lo, from + mid, from + mid, from + bounds[k + 2], to + lo);
      else std::copy(from + lo, from + mid, to + lo);
      bounds[merged++] = lo;
    }
    bounds[merged] = n;
    runs = merged;
    std::swap(from, to);
  }
  if (from != sec) std::copy(from, from + n, sec);
}

}  // namespace

uint32_t global_sectors(const uint64_t* lane_addr, uint32_t mask, uint32_t access_bytes,
                        uint64_t* sector_out) {
  // At most 32 lanes x 2 sectors each (an access never spans more than two
  // sectors when it is aligned to its size, and misaligned ones fault).
  uint64_t sec[64];
  uint32_t n = 0;
  for (uint32_t m = mask; m; m &= m - 1) {
    int lane = std::countr_zero(m);
    uint64_t first = lane_addr[lane] / kSectorBytes;
    uint64_t last = (lane_addr[lane] + access_bytes - 1) / kSectorBytes;
    for (uint64_t s = first; s <= last && n < 64; ++s) sec[n++] = s;
  }
  sort_sectors(sec, n);
  uint32_t distinct = uint32_t(std::unique(sec, sec + n) - sec);
  if (sector_out) std::copy(sec, sec + distinct, sector_out);
  return distinct;
}

uint32_t global_ideal_sectors(const uint64_t* lane_addr, uint32_t mask, uint32_t access_bytes) {
  uint64_t start[32];
  uint32_t n = 0;
  for (uint32_t m = mask; m; m &= m - 1) start[n++] = lane_addr[std::countr_zero(m)];
  std::sort(start, start + n);
  uint64_t distinct = 0, end = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t b = std::max(start[i], end), e = start[i] + access_bytes;
    if (e > b) distinct += e - b;
    end = std::max(end, e);
  }
  return uint32_t((distinct + kSectorBytes - 1) / kSectorBytes);
}

namespace {

// The one model of shared-memory service, with an optional per-lane record
// (`serve`, null on the interpreter's hot path).
//
// Nsight Compute: l1tex__data_pipe_lsu_wavefronts_mem_shared counts
// wavefronts; l1tex__data_bank_conflicts_pipe_lsu_mem_shared counts the
// wavefronts beyond the ideal. The shared data path moves 128 bytes (one
// 4-byte word per bank) per wavefront, so a warp's 64-bit access is served
// as two half-warps and a 128-bit access as four quarter-warps (CUDA
// Programming Guide, "Shared Memory" for cc 5.x+; the NVIDIA forum's
// LDS.128 answer: 32 x 16 B = 512 B needs 4 wavefronts and reports 0
// conflicts). Within a phase each bank serves one distinct word per
// wavefront; lanes reading the same word share it (broadcast/multicast).
// Ideal = one wavefront per phase that has an active lane: what the same
// access costs with every bank serving one word.
SharedCost serve_phases(const uint64_t* lane_addr, uint32_t mask, uint32_t access_bytes, SharedServe* serve) {
  SharedCost cost;
  const uint32_t bytes = std::max<uint32_t>(access_bytes, kBankBytes);
  const uint32_t lanes_per_phase = std::max<uint32_t>(1, std::min<uint32_t>(32, kLineBytes / bytes));
  const uint32_t words_per_lane = bytes / kBankBytes;
  if (serve) {
    serve->mask = mask;
    serve->lanes_per_phase = uint8_t(lanes_per_phase);
    serve->words_per_lane = uint8_t(std::min<uint32_t>(words_per_lane, 255));
    serve->truncated = words_per_lane > SharedServe::kMaxWords;
  }
  if (!mask) return cost;
  for (uint32_t base = 0; base < 32; base += lanes_per_phase) {
    uint32_t phase_bits = lanes_per_phase >= 32 ? ~0u : ((1u << lanes_per_phase) - 1) << base;
    uint32_t phase_mask = mask & phase_bits;
    if (!phase_mask) continue;
    // At most 32 words per phase: 32 lanes x 1, 16 x 2, 8 x 4 (wider
    // accesses than 16 bytes get lanes_per_phase 1 and more words).
    uint64_t words[64];
    uint32_t n = 0;
    for (uint32_t m = phase_mask; m; m &= m - 1) {
      int lane = std::countr_zero(m);
      uint64_t w0 = lane_addr[lane] / kBankBytes;
      for (uint32_t w = 0; w < words_per_lane && n < 64; ++w) words[n++] = w0 + w;
    }
    std::sort(words, words + n);
    n = uint32_t(std::unique(words, words + n) - words);
    uint8_t per_bank[kSharedBanks] = {};
    uint32_t worst = 0;
    for (uint32_t i = 0; i < n; ++i) worst = std::max<uint32_t>(worst, ++per_bank[words[i] % kSharedBanks]);
    uint32_t ideal = std::max<uint32_t>(1, (n + kSharedBanks - 1) / kSharedBanks);
    cost.wavefronts += worst;
    cost.ideal += ideal;
    if (serve) {
      // A bank serves its distinct words in address order, one per
      // wavefront: a word's wavefront is its rank among its bank's words.
      uint32_t p = base / lanes_per_phase;
      serve->phase_wavefronts[p] = uint8_t(std::min<uint32_t>(worst, 255));
      serve->phase_ideal[p] = uint8_t(std::min<uint32_t>(ideal, 255));
      for (uint32_t m = phase_mask; m; m &= m - 1) {
        int lane = std::countr_zero(m);
        uint64_t w0 = lane_addr[lane] / kBankBytes;
        for (uint32_t k = 0; k < serve->words_kept(); ++k) {
          uint64_t word = w0 + k;
          uint32_t bank = uint32_t(word % kSharedBanks), rank = 0;
          for (uint32_t i = 0; i < n && words[i] < word; ++i) rank += words[i] % kSharedBanks == bank;
          serve->bank[lane][k] = uint8_t(bank);
          serve->wavefront[lane][k] = uint8_t(std::min<uint32_t>(rank, 255));
        }
      }
    }
  }
  // Packed return of a 128-bit access whose lanes pair up on addresses. The
  // data path returns 128 bytes, one register of 32 lanes, per cycle; when
  // lanes n and n^1 (or n and n^2) read the same address, two lanes' values
  // travel in one return, and an LDS.128 takes 2 wavefronts, not 4 (NVIDIA
  // forum, "Unexpected shared memory bank conflict" (77228), Greg Smith:
  // "LDS.128 requires 4 requests per instruction as it returns 4 registers.
  // If the guidelines are met the requests/instruction should reduce from 4
  // to 2"; measured with ncu on A10 and H100 in "Discrepancy in LDS.128
  // wavefronts" (373160): 16 lanes on one address and 16 on another, 2
  // wavefronts). A warp-uniform LDS.128 (a broadcast tile row) is such a case.
  if (bytes == 16 && cost.wavefronts >= 2) {
    auto paired = [&](uint32_t x) {
      for (uint32_t m = mask; m; m &= m - 1) {
        const uint32_t lane = uint32_t(std::countr_zero(m));
        if ((mask >> (lane ^ x)) & 1 && lane_addr[lane] != lane_addr[lane ^ x]) return false;
      }
      return true;
    };
    if (paired(1) || paired(2)) {
      cost.wavefronts = (cost.wavefronts + 1) / 2;
      cost.ideal = std::min(cost.ideal, cost.wavefronts);
      if (serve) serve->packed = true;
    }
  }
  if (serve) serve->cost = cost;
  return cost;
}

}  // namespace

SharedCost shared_wavefronts(const uint64_t* lane_addr, uint32_t mask, uint32_t access_bytes) {
  return serve_phases(lane_addr, mask, access_bytes, nullptr);
}

SharedCost shared_atomic_wavefronts(const uint64_t* lane_addr, uint32_t mask, uint32_t access_bytes) {
  SharedCost c = shared_wavefronts(lane_addr, mask, access_bytes);
  uint32_t per_bank[32] = {}, most = 0;
  const uint32_t words = std::max<uint32_t>(1, access_bytes / 4);
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint64_t w0 = lane_addr[std::countr_zero(m)] / 4;
    for (uint32_t k = 0; k < words; ++k) most = std::max(most, ++per_bank[(w0 + k) % 32]);
  }
  c.wavefronts = std::max(c.wavefronts, most);
  return c;
}

uint32_t same_address_lanes(const uint64_t* lane_addr, uint32_t mask) {
  uint32_t most = 0;
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint64_t a = lane_addr[std::countr_zero(m)];
    uint32_t n = 0;
    for (uint32_t r = m; r; r &= r - 1) n += lane_addr[std::countr_zero(r)] == a;
    most = std::max(most, n);
  }
  return most;
}

SharedServe shared_serve(const uint64_t* lane_addr, uint32_t mask, uint32_t access_bytes) {
  SharedServe s;
  serve_phases(lane_addr, mask, access_bytes, &s);
  return s;
}

}  // namespace lab::sim
