#include "lab/sim/memory_cost.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace lab::sim {

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
  std::sort(sec, sec + n);
  uint32_t distinct = uint32_t(std::unique(sec, sec + n) - sec);
  if (sector_out) std::copy(sec, sec + distinct, sector_out);
  return distinct;
}

SharedCost shared_wavefronts(const uint64_t* lane_addr, uint32_t mask, uint32_t access_bytes) {
  SharedCost cost;
  if (!mask) return cost;
  uint32_t bytes = std::max<uint32_t>(access_bytes, kBankBytes);
  uint32_t lanes_per_phase = std::max<uint32_t>(1, kLineBytes / bytes);
  uint32_t words_per_lane = bytes / kBankBytes;
  uint64_t all_words[128];
  uint32_t all_n = 0;
  for (uint32_t base = 0; base < 32; base += lanes_per_phase) {
    uint32_t phase_mask = mask & (lanes_per_phase >= 32 ? ~0u : (((1u << lanes_per_phase) - 1) << base));
    if (!phase_mask) continue;
    uint64_t words[128];
    uint32_t n = 0;
    for (uint32_t m = phase_mask; m; m &= m - 1) {
      int lane = std::countr_zero(m);
      uint64_t w0 = lane_addr[lane] / kBankBytes;
      for (uint32_t w = 0; w < words_per_lane; ++w) words[n++] = w0 + w;
    }
    std::sort(words, words + n);
    n = uint32_t(std::unique(words, words + n) - words);
    for (uint32_t i = 0; i < n && all_n < 128; ++i) all_words[all_n++] = words[i];
    uint32_t per_bank[kSharedBanks] = {};
    uint32_t worst = 0;
    for (uint32_t i = 0; i < n; ++i) worst = std::max(worst, ++per_bank[words[i] % kSharedBanks]);
    cost.wavefronts += worst;
  }
  std::sort(all_words, all_words + all_n);
  all_n = uint32_t(std::unique(all_words, all_words + all_n) - all_words);
  // Ideal: the distinct words, 32 per wavefront, but never fewer phases than
  // the access width forces (a 128-bit warp access moves 512 bytes: 4).
  uint32_t active = uint32_t(std::popcount(mask));
  uint32_t min_phases = (active * bytes + kLineBytes - 1) / kLineBytes;
  uint32_t by_words = (all_n + kSharedBanks - 1) / kSharedBanks;
  cost.ideal = std::max<uint32_t>(1, std::min(min_phases, std::max(by_words, 1u)));
  if (cost.ideal > cost.wavefronts) cost.ideal = cost.wavefronts;
  return cost;
}

// ---- L2 -------------------------------------------------------------------------
// 128-byte lines with per-sector valid bits; sets sharded behind mutexes so
// two workers rarely contend.
struct L2Model::Impl {
  struct Way {
    uint64_t tag = ~0ull;
    uint64_t lru = 0;
    uint8_t valid = 0;  // bit per sector
  };
  uint32_t ways;
  uint64_t sets;
  std::vector<Way> lines;
  std::vector<std::mutex> locks;
  uint64_t clock = 0;
  Impl(uint64_t capacity, uint32_t w)
      : ways(w), sets(std::max<uint64_t>(1, capacity / kLineBytes / w)), lines(sets * w), locks(64) {}
};

L2Model::L2Model(uint64_t capacity_bytes, uint32_t ways)
    : impl_(std::make_unique<Impl>(capacity_bytes, ways)), capacity_(capacity_bytes) {}
L2Model::~L2Model() = default;

uint32_t L2Model::access(const uint64_t* sectors, uint32_t n, bool is_write) {
  uint32_t misses = 0;
  Impl& I = *impl_;
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t line = sectors[i] / (kLineBytes / kSectorBytes);
    uint32_t sector_bit = 1u << (sectors[i] % (kLineBytes / kSectorBytes));
    uint64_t set = (line ^ (line >> 17)) % I.sets;  // hashed set index, as real L2s hash
    std::lock_guard<std::mutex> lock(I.locks[set % I.locks.size()]);
    Impl::Way* base = &I.lines[set * I.ways];
    Impl::Way* hit = nullptr;
    Impl::Way* victim = base;
    for (uint32_t w = 0; w < I.ways; ++w) {
      if (base[w].tag == line) { hit = &base[w]; break; }
      if (base[w].lru < victim->lru) victim = &base[w];
    }
    uint64_t now = __atomic_add_fetch(&I.clock, 1, __ATOMIC_RELAXED);
    if (hit) {
      if (!(hit->valid & sector_bit)) {
        // A write fills the sector without reading DRAM; a read misses.
        if (!is_write) ++misses;
        hit->valid |= sector_bit;
      }
      hit->lru = now;
    } else {
      victim->tag = line;
      victim->valid = uint8_t(sector_bit);
      victim->lru = now;
      if (!is_write) ++misses;
    }
  }
  return misses;
}

}  // namespace lab::sim
