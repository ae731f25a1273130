#include "lab/sim/l2_model.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <iterator>
#include <mutex>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lab::sim {

namespace {

constexpr uint32_t kSectorsPerLine = kLineBytes / kSectorBytes;

}  // namespace

// The fields a worker reads without the set's lock (Sets::unchanged) are
// written with these, so the unlocked read is a relaxed atomic one, not a
// data race; on x86 both are plain moves.
template <class T>
void store_relaxed(T& field, std::type_identity_t<T> value) {
  std::atomic_ref<T>(field).store(value, std::memory_order_relaxed);
}
template <class T>
T load_relaxed(const T& field) {
  return std::atomic_ref<T>(const_cast<T&>(field)).load(std::memory_order_relaxed);
}
// The epoch and the most recent tag are published last (release) and read
// first (acquire): a reader that sees them sees the sector bits written
// before them, not a previous line's. (Plain moves on x86 as well.)
template <class T>
void store_release(T& field, std::type_identity_t<T> value) {
  std::atomic_ref<T>(field).store(value, std::memory_order_release);
}
template <class T>
T load_acquire(const T& field) {
  return std::atomic_ref<T>(const_cast<T&>(field)).load(std::memory_order_acquire);
}

// One set's state in five host cache lines: the tags (two lines), the LRU
// stamps, then the sector bits and the set's own fields with a copy of the
// most recent way's tag and owner, so a hit on the set's most recent line
// reads one host line; then each way's owner.
struct alignas(64) SetState {
  uint64_t tag[kL2Ways];
  uint32_t lru[kL2Ways];  // the set's clock at each way's last touch; 0: never touched
  uint8_t valid[kL2Ways]; // bit per sector: data present
  uint8_t dirty[kL2Ways]; // bit per sector: written, to be written back to DRAM
  uint32_t clock;         // touches so far this launch (LRU order within the set)
  uint32_t epoch;         // the launch that last emptied the set
  uint64_t mru_tag;       // tag[mru]
  uint8_t mru;            // the way touched last
  std::atomic<uint8_t> lock;  // taken only when workers share the cache
  uint32_t mru_owner;     // owner[mru]
  // The block that touched each way last and that block's claim count then
  // (L2Model::set_block_reuse; Claimer::stamp(), 0: none).
  uint32_t owner[kL2Ways];
};
static_assert(sizeof(SetState) == 320);

// A way's owner in one word: the low 16 bits of the block's linear index + 1
// (blocks 65,536 apart are never resident together) and the low 16 bits of
// the block's claims then (a block comes back to its own line within 65,536
// claims, 8 MB of its own lines, or the GPU has long evicted it).
// The requesting block of one L2Model::access, in locals: `me` its owner
// bits (0: block reuse off), its claims, the reuse distance and half of it.
struct Claimer {
  uint32_t me = 0, claims = 0, limit = 0, half = 0;
  uint32_t stamp() const { return me << 16 | (claims & 0xffff); }
  bool owns(uint32_t word) const { return word >> 16 == me; }
  uint32_t since(uint32_t word) const { return (claims - word) & 0xffff; }
};

// Sets of a cache of `capacity` bytes (at least one).
static uint64_t set_count(uint64_t capacity) { return std::max<uint64_t>(1, capacity / kLineBytes / kL2Ways); }

struct L2Model::Sets {
  uint64_t count;
  FastMod mod;
  std::unique_ptr<SetState[]> sets;  // left uninitialised but for the epoch: a set is emptied on first use
  uint32_t current = 1;              // this launch's epoch

  explicit Sets(uint64_t capacity)
      : count(set_count(capacity)), mod(count), sets(new SetState[count]) {
    for (uint64_t s = 0; s < count; ++s) {
      sets[s].epoch = 0;
      sets[s].lock.store(0, std::memory_order_relaxed);
    }
  }
  // A new launch: every set reads as empty from now on.
  void empty_all() {
    if (++current == 0) {  // 2^32 launches: start the epochs again
      for (uint64_t s = 0; s < count; ++s) sets[s].epoch = 0;
      current = 1;
    }
  }
  SetState& set(uint64_t s) {
    SetState& S = sets[s];
    if (S.epoch != current) {
      std::fill(S.tag, S.tag + kL2Ways, ~0ull);
      std::fill(S.lru, S.lru + kL2Ways, 0u);
      for (uint32_t w = 0; w < kL2Ways; ++w) store_relaxed(S.valid[w], uint8_t(0)), store_relaxed(S.dirty[w], uint8_t(0));
      S.clock = 0;
      store_relaxed(S.mru, uint8_t(0));
      store_relaxed(S.mru_tag, ~0ull);
      std::fill(S.owner, S.owner + kL2Ways, 0u);
      store_relaxed(S.mru_owner, 0u);
      store_release(S.epoch, current);
    }
    return S;
  }
  void acquire(uint64_t s) {
    std::atomic<uint8_t>& l = sets[s].lock;
    while (l.exchange(1, std::memory_order_acquire))
      while (l.load(std::memory_order_relaxed)) {
#if defined(__x86_64__)
        _mm_pause();
#endif
      }
  }
  void release(uint64_t s) { sets[s].lock.store(0, std::memory_order_release); }
  // Touching `line` would change nothing but its owner: it is the set's
  // most recent line and every sector is already there (a read) or already
  // dirty (a write). The common case (a warp walking a line), answered
  // without the lock. Without the lock a worker may read the fields of a set
  // another is updating; with several workers the interleaving is arbitrary
  // anyway. With a requester and block reuse on, the line passes to the
  // requester here (a claim) or has its stamp renewed once it is half the
  // reuse distance old (relaxed stores: the owner is a model's estimate, a
  // lost race costs one stamp); a line of the requester's own that is older
  // than the reuse distance goes to touch(), which fetches it again.
  bool unchanged(uint64_t s, uint64_t line, uint32_t bits, bool is_write, Claimer& c) {
    SetState& S = sets[s];
    if (load_acquire(S.epoch) != current || load_acquire(S.mru_tag) != line) return false;
    const uint8_t way = load_relaxed(S.mru) % kL2Ways;
    if ((bits & ~uint32_t(load_relaxed(is_write ? S.dirty[way] : S.valid[way]))) != 0) return false;
    if (!c.me) return true;
    const uint32_t o = load_relaxed(S.mru_owner);
    if (c.owns(o)) {
      if (c.since(o) <= c.half) return true;
      if (c.since(o) > c.limit) return false;
    } else {
      ++c.claims;
    }
    store_relaxed(S.owner[way], c.stamp());
    store_relaxed(S.mru_owner, c.stamp());
    return true;
  }
  uint32_t touch(uint64_t s, uint64_t line, uint32_t bits, bool is_write, Claimer& c, bool pairs = false);
};

namespace {

// Tag arrays of finished launches, kept for the next launch of the same
// geometry (a 50 MB L2's are 6.5 MB, built and faulted in once per process
// instead of once per launch). Immortal: launches can run during exit.
struct SetsPool {
  std::mutex mutex;
  std::vector<std::unique_ptr<L2Model::Sets>> spare;
};
SetsPool& pool() {
  static SetsPool* p = new SetsPool;
  return *p;
}
constexpr size_t kSpareSets = 4;

std::unique_ptr<L2Model::Sets> take_sets(uint64_t capacity) {
  const uint64_t count = set_count(capacity);
  {
    SetsPool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    for (auto it = p.spare.begin(); it != p.spare.end(); ++it)
      if ((*it)->count == count) {
        std::unique_ptr<L2Model::Sets> s = std::move(*it);
        p.spare.erase(it);
        s->empty_all();
        return s;
      }
  }
  return std::make_unique<L2Model::Sets>(capacity);
}

void give_back(std::unique_ptr<L2Model::Sets> s) {
  if (!s) return;
  SetsPool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.spare.size() >= kSpareSets) p.spare.erase(p.spare.begin());
  p.spare.push_back(std::move(s));
}

}  // namespace

L2Model::L2Model(uint64_t capacity_bytes) : sets_(take_sets(capacity_bytes)), capacity_(capacity_bytes) {}
L2Model::~L2Model() { give_back(std::move(sets_)); }

void L2Model::resize(uint64_t capacity_bytes) {
  give_back(std::move(sets_));
  sets_ = take_sets(capacity_bytes);
  capacity_ = capacity_bytes;
}

namespace {

// Each worker's memo of the set each line hashes to, and the hash bits the
// sampled fetch decides by (L2Model::access): a pure function of the line and
// the set count, worked out once per line instead of on every touch. A
// warp's uncoalesced request touches the same 32 lines for 32 iterations of
// the naive GEMM's loop, and the hash and remainder were a chain of six
// multiplies before each of those lines' set could be read.
struct LineSets {
  static constexpr uint32_t kEntries = 1024;  // 16 KB: the lines of a few warps' requests
  struct Entry {
    uint64_t line_plus_one;  // 0: empty
    uint32_t set, fetch_bits;
  };
  uint64_t count = 0;  // the set count the entries are for
  Entry entry[kEntries];
};

LineSets& line_sets(uint64_t count) {
  thread_local LineSets memo{};
  if (memo.count != count) {
    std::fill(std::begin(memo.entry), std::end(memo.entry), LineSets::Entry{0, 0, 0});
    memo.count = count;
  }
  return memo;
}

}  // namespace

// The DRAM sectors one touch of `line` (sector bits `bits`) in set `s` costs.
[[gnu::always_inline]] inline uint32_t L2Model::Sets::touch(uint64_t s, uint64_t line, uint32_t bits, bool is_write,
                                                            Claimer& c, bool pairs) {
  SetState& S = set(s);
  // The set's most recent line again (a warp walking a line, or reading what
  // it just read): no other way moves in the LRU order, so the clock need
  // not advance.
  uint32_t way = S.mru;
  if (S.mru_tag != line) {
    way = kL2Ways;
    uint32_t victim = 0;
    for (uint32_t w = 0; w < kL2Ways; ++w) {
      if (S.tag[w] == line) { way = w; break; }
      if (S.lru[w] < S.lru[victim]) victim = w;
    }
    if (way == kL2Ways) {
      // A miss. Evicting the victim writes its dirty sectors back; they were
      // counted when they became dirty. A read fetches each sector; a write
      // will write each back.
      S.tag[victim] = line;
      store_relaxed(S.valid[victim], uint8_t(0));
      store_relaxed(S.dirty[victim], uint8_t(0));
      way = victim;
    }
    S.lru[way] = ++S.clock;
    store_relaxed(S.mru, uint8_t(way));
    store_release(S.mru_tag, line);
  }
  if (c.me) {
    // The block's own line again, after it claimed more than the reuse
    // distance of others: the GPU's other resident blocks claimed as many
    // each meanwhile, and the line was evicted (its dirty sectors were
    // counted when they became dirty). A line new to the block is a claim.
    const bool own = c.owns(S.owner[way]);
    if (own && c.since(S.owner[way]) > c.limit) {
      store_relaxed(S.valid[way], uint8_t(0));
      store_relaxed(S.dirty[way], uint8_t(0));
    }
    if (!own || S.valid[way] == 0) ++c.claims;
    store_relaxed(S.owner[way], c.stamp());
    store_relaxed(S.mru_owner, c.stamp());
  }
  // Write-back L2: a sector written while resident goes to DRAM once, when
  // it is evicted or when the kernel ends; count it when it first becomes
  // dirty. A read misses on each sector not present.
  uint8_t& have = is_write ? S.dirty[way] : S.valid[way];
  if (pairs) {
    // A missed sector comes from DRAM with its 64-byte neighbour
    // (L2Model::set_fetch_bytes): both become present, both are DRAM sectors.
    const uint32_t need = bits & ~uint32_t(have);
    bits |= (need | ((need & 0x5u) << 1) | ((need & 0xau) >> 1)) & 0xfu;
  }
  const uint32_t misses = uint32_t(std::popcount(bits & ~uint32_t(have)));
  store_relaxed(have, uint8_t(have | bits));
  store_relaxed(S.valid[way], uint8_t(S.valid[way] | bits));
  return misses;
}

uint32_t L2Model::access(const uint64_t* sectors, uint32_t n, bool is_write, const Requester* who) {
  uint32_t misses = 0;
  Sets& L = *sets_;
  Claimer c;
  if (who && block_reuse_) {
    c.me = (who->block + 1) & 0xffff;
    if (!c.me) c.me = 1;  // 0 means none
    c.claims = *who->claims;
    c.limit = std::min(block_reuse_, 0xffffu);
    c.half = c.limit / 2;
  }
  LineSets& memo = line_sets(L.count);
  const bool pairs = fetch_pairs_ && !is_write;  // set_fetch_bytes(64): reads only
  for (uint32_t i = 0; i < n;) {
    // The run of sectors in this line: one lookup for all of them.
    const uint64_t line = sectors[i] / kSectorsPerLine;
    uint32_t bits = 0;
    for (; i < n && sectors[i] / kSectorsPerLine == line; ++i) bits |= 1u << (sectors[i] % kSectorsPerLine);
    // Hashed set index, as real L2s hash addresses over slices and sets. All
    // line bits are mixed (splitmix64's finaliser): with only high bits
    // folded in, a column walk of a row-major matrix (a 16 KB stride) fell
    // into a few dozen sets and thrashed a 6 MB L2 that holds it easily.
    LineSets::Entry& e = memo.entry[line % LineSets::kEntries];
    if (e.line_plus_one != line + 1) {
      uint64_t h = line;
      h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
      h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
      h ^= h >> 31;
      e = {line + 1, uint32_t(L.mod(h)), uint32_t(h >> 40)};
    }
    const uint64_t s = e.set;
    // (Prefetching a request's sets before touching them was tried: slower
    // on the naive GEMM, whose touches mostly hit the set's last line.)
    if (L.unchanged(s, line, bits, is_write, c)) continue;
    if (concurrent_) L.acquire(s);
    const uint32_t m = L.touch(s, line, bits, is_write, c, pairs);
    if (concurrent_) L.release(s);
    // Another SM's block fetched it (set_fetch_fraction): decided per line,
    // by bits of the line's hash the set index does not use.
    if (m && !is_write && sampled_fetch_ && e.fetch_bits >= fetch_threshold_of(line)) continue;
    misses += m;
  }
  if (c.me) *who->claims = c.claims;
  return misses;
}

void L2Model::set_fetch_fraction(double fraction) {
  fetch_threshold_ = uint32_t(std::clamp(fraction, 0.0, 1.0) * double(kFetchAll));
  sampled_fetch_ = fetch_threshold_ < kFetchAll || !fetch_ranges_.empty();
}

void L2Model::set_fetch_fractions(const std::vector<FetchRange>& ranges) {
  fetch_ranges_.clear();
  for (const FetchRange& r : ranges)
    fetch_ranges_.push_back({r.first_line, r.end_line, uint32_t(std::clamp(r.fraction, 0.0, 1.0) * double(kFetchAll))});
  sampled_fetch_ = fetch_threshold_ < kFetchAll || !fetch_ranges_.empty();
}

uint32_t L2Model::fetch_threshold_of(uint64_t line) const {
  if (fetch_ranges_.empty()) return fetch_threshold_;
  auto it = std::upper_bound(fetch_ranges_.begin(), fetch_ranges_.end(), line,
                             [](uint64_t l, const FetchThreshold& r) { return l < r.first; });
  if (it == fetch_ranges_.begin()) return fetch_threshold_;
  --it;
  return line < it->end ? it->threshold : fetch_threshold_;
}

}  // namespace lab::sim
