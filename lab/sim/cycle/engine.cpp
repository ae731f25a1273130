// lab/sim/cycle/engine.cpp: the SM slice, cycle by cycle (see engine.h).
//
// Cost: the loop visits a sub-partition only in cycles where one of its
// warps may issue (each warp caches the earliest cycle it can issue and the
// state it waits in), and jumps over cycles in which no warp of the slice
// can issue. Warp states are accounted as intervals, closed when the state
// changes, so a warp waiting 500 cycles on DRAM costs one update, not 500.
#include "lab/sim/cycle/engine.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <unordered_map>

namespace lab::sim::cycle {

namespace {

constexpr uint64_t kNever = ~0ull;
constexpr uint32_t kNotListed = ~0u;
constexpr size_t kMaxEvents = 4'000'000;  // cap on the live view's event stream (TimingOptions::events)

// Sectored L1 data cache: 128-byte lines with a valid bit per 32-byte
// sector (Jia et al. 2018 find V100's L1 sectored with 128-byte lines), in 4
// sets, LRU within a set: Accel-Sim's L1 microbenchmark (l1_assoc) finds 4
// sets on every generation since Kepler, so a set holds a quarter of the
// lines (accel-sim/gpu-app-collection, src/cuda/GPU_Microbenchmark/ubench/
// l1_cache/l1_config/l1_config.cu: L1_CACHE_SETS 4, assoc = lines / 4).
// With hundreds of ways per set the LRU order is a list per set and the tags
// a hash table, so an access costs O(1) whatever the associativity.
struct L1Cache {
  static constexpr uint32_t kSets = 4;
  // fill: per sector, the cycle its data arrives (a sector allocated by a
  // miss is valid at once for the tags, but a later request that finds it
  // still in flight waits for the same fill instead of hitting).
  struct Line { uint64_t tag = kNever; uint32_t prev = 0, next = 0; uint8_t valid = 0; uint64_t fill[4] = {}; };
  struct Set {
    uint32_t head = 0;  // most recently used; lines[head].prev is the least
  };
  // Tag -> index in lines, for every set's lines (a line's tag is its
  // line number, so the sets' tags never collide): open addressing with
  // linear probing, at most a quarter full, a deletion shifting the probe
  // run back (no tombstones). A node-based map allocated and freed a node
  // on every miss.
  struct Where {
    std::vector<uint64_t> key;  // tag + 1; 0 empty
    std::vector<uint32_t> at;
    size_t mask = 0;
    static size_t hash(uint64_t k) { k *= 0x9e3779b97f4a7c15ull; return size_t(k ^ (k >> 32)); }
    void reset(size_t entries) {
      size_t cap = 16;
      while (cap < 4 * entries) cap *= 2;
      key.assign(cap, 0);
      at.assign(cap, 0);
      mask = cap - 1;
    }
    size_t slot(uint64_t tag) const {
      size_t i = hash(tag) & mask;
      while (key[i] != 0 && key[i] != tag + 1) i = (i + 1) & mask;
      return i;
    }
    const uint32_t* find(uint64_t tag) const {
      const size_t i = slot(tag);
      return key[i] ? &at[i] : nullptr;
    }
    void insert(uint64_t tag, uint32_t index) {
      const size_t i = slot(tag);
      key[i] = tag + 1;
      at[i] = index;
    }
    void erase(uint64_t tag) {
      size_t i = slot(tag);
      if (!key[i]) return;
      for (size_t j = (i + 1) & mask; key[j]; j = (j + 1) & mask) {
        const size_t home = hash(key[j] - 1) & mask;
        // The entry at j may fill the hole at i unless its home lies
        // cyclically in (i, j].
        const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays) continue;
        key[i] = key[j];
        at[i] = at[j];
        i = j;
      }
      key[i] = 0;
    }
  };
  std::vector<Line> lines;
  Set sets[kSets];
  Where where;
  uint32_t ways = 0;
  void init(uint64_t bytes) {
    ways = uint32_t(bytes / 128 / kSets);
    lines.assign(size_t(ways) * kSets, Line{});
    where.reset(lines.size());
    for (uint32_t s = 0; s < kSets; ++s) {
      sets[s].head = s * ways;
      // A circular list per set: ways slots, in any order (all empty).
      for (uint32_t w = 0; w < ways; ++w) {
        const uint32_t i = s * ways + w;
        lines[i].next = s * ways + (w + 1) % ways;
        lines[i].prev = s * ways + (w + ways - 1) % ways;
      }
    }
  }
  // Moves line i to the front (most recently used) of set st.
  void touch(Set& st, uint32_t i) {
    if (st.head == i) return;
    Line& l = lines[i];
    lines[l.prev].next = l.next;
    lines[l.next].prev = l.prev;
    Line& h = lines[st.head];
    l.next = st.head;
    l.prev = h.prev;
    lines[h.prev].next = i;
    h.prev = i;
    st.head = i;
  }
  // Returns true on a hit (`*fill`: the sector's fill cycle, in the past for
  // data already there); a read miss allocates the sector and returns in
  // `*fill` the slot for the caller to set its fill cycle.
  bool access(uint64_t sector, bool allocate, uint64_t** fill) {
    *fill = nullptr;
    if (!ways) return false;
    const uint64_t line = sector >> 2;
    const uint32_t sub = uint32_t(sector & 3);
    const uint8_t bit = uint8_t(1u << sub);
    Set& st = sets[line % kSets];
    if (const uint32_t* at = where.find(line)) {
      const uint32_t i = *at;
      touch(st, i);
      Line& l = lines[i];
      *fill = &l.fill[sub];
      if (l.valid & bit) return true;
      if (allocate) l.valid |= bit;
      else *fill = nullptr;
      return false;
    }
    if (!allocate) return false;
    const uint32_t victim = lines[st.head].prev;  // least recently used (or an empty slot)
    if (lines[victim].tag != kNever) where.erase(lines[victim].tag);
    lines[victim].tag = line;
    lines[victim].valid = bit;
    where.insert(line, victim);
    touch(st, victim);
    *fill = &lines[victim].fill[sub];
    return false;
  }
};

// When each sector an SM of the slice asked L2 for arrives: an open-
// addressing table (key + 1 stored, 0 empty; key and time side by side, so a
// probe reads one host cache line), grown at three quarters full. A sector
// found here is in L2 (its fill done or in flight) for that SM's later
// requests. A sampled 4096^3 GEMM puts millions of sectors here: growing at
// half full doubled its memory (512 MB) for no fewer probes that mattered.
// The keys are fill_key()s (the sector above bit 8, the SM below): the four
// sectors of one 128-byte line and SM hash to one group of four slots, one
// host cache line, each to its own slot, so a request that reads a whole
// line misses the host's caches once, not four times.
struct L2Fill {
  struct Entry {
    uint64_t key = 0, when = 0;
  };
  struct alignas(64) Group {
    Entry e[4];
  };
  std::vector<Group> groups;
  size_t used = 0;
  L2Fill() { groups.assign(1 << 10, Group{}); }
  size_t slots() const { return groups.size() * 4; }
  Entry& at(size_t i) { return groups[i >> 2].e[i & 3]; }
  static size_t home(uint64_t key) {
    uint64_t g = (key >> 10) << 8 | (key & 255);  // the line and the SM
    g ^= g >> 31;
    g *= 0x9e3779b97f4a7c15ull;
    g ^= g >> 29;
    return size_t(g) << 2 | (size_t(key >> 8) & 3);
  }
  uint64_t* find(uint64_t key) {
    const size_t mask = slots() - 1;
    for (size_t i = home(key) & mask;; i = (i + 1) & mask) {
      Entry& e = at(i);
      if (e.key == key + 1) return &e.when;
      if (e.key == 0) return nullptr;
    }
  }
  // One probe for find-then-insert: the key's time, `found` says whether
  // it was there (else it is entered with time 0).
  uint64_t& find_or_insert(uint64_t key, bool& found) {
    if (4 * (used + 1) > 3 * slots()) grow();
    const size_t mask = slots() - 1;
    size_t i = home(key) & mask;
    while (at(i).key != 0 && at(i).key != key + 1) i = (i + 1) & mask;
    Entry& e = at(i);
    found = e.key != 0;
    if (!found) e = Entry{key + 1, 0}, ++used;
    return e.when;
  }
  void grow() {
    std::vector<Group> old = std::move(groups);
    groups.assign(old.size() * 2, Group{});
    used = 0;
    for (const Group& g : old)
      for (const Entry& e : g.e)
        if (bool found; e.key) find_or_insert(e.key - 1, found) = e.when;
  }
};

// ptxas's dependency barriers for a warp's global loads, as the SASS has
// them (params.cpp load_barriers): the loads one instruction first waits for
// share a barrier; a run of loads for more first consumers than there are
// barriers shares the last one opened, so the consumer of any of them waits
// for all of them. A consumer's wait frees the barrier.
struct LoadBarriers {
  static constexpr int kMax = 4, kMembers = 24;
  struct Barrier {
    uint64_t ready = 0;
    uint32_t first_use = 0;
    uint32_t slots[kMembers] = {};
    uint8_t members = 0;
    bool open = false;
  };
  Barrier b[kMax];
  uint8_t open = 0, last = 0;
  void clear() {
    for (Barrier& x : b) x.open = false, x.members = 0, x.ready = 0;
    open = last = 0;
  }
};

// The fields a scheduler's check reads come first, in one host cache line
// (the struct is aligned to it): a check of a warp that cannot issue yet, or
// waits its turn, touches that line alone.
struct alignas(64) Warp {
  uint64_t earliest = 0;   // cannot issue before this cycle
  uint64_t since = 0;      // start of the current state's interval
  // When the next instruction's operands are ready, and what it waits on
  // until then: computed once, when the instruction before it issues (only
  // the warp's own issues change its registers), so a scheduler's check does
  // not walk the scoreboard again.
  uint64_t dep_ready = 0;
  TraceInst next_inst;      // trace insts[next], kept here: the trace is cold by the time the warp issues
  // What choose_pipe reads of the next instruction (decode.h unit, imad, either_pipe).
  Unit next_unit = Unit::Int;
  bool next_imad = false, next_either_pipe = false;
  Stall state = Stall::NotSelected;
  Stall dep_why = Stall::Wait;
  bool deps_ok = false;    // the next instruction's registers were found ready (they stay ready until it issues)
  // The next instruction makes a request: 0 none, 1 shared, 2 global or local.
  uint8_t next_request = 0;
  bool next_waits_phase = false;  // the trace has an mbarrier wait at the next instruction
  bool active = false, at_barrier = false;
  // Parked at an mbarrier wait whose phase has not completed in the model's
  // time: the phase's key (Block::phases) it waits for.
  bool at_mbar = false;

  const WarpTrace* tr = nullptr;
  uint32_t next = 0, next_mem = 0;
  uint32_t block_slot = 0, index = 0;
  uint64_t mbar_key = 0;
  uint64_t async_done = 0; // cp.async completion
  uint64_t merged_ready = 0;  // the last merged shared load's result (decode.h `merge`)
  uint64_t lsu_free = 0;      // its next LSU instruction issues no sooner (CycleParams::lsu_issue_interval)
  uint64_t issue_free = 0;    // its next instruction issues no sooner (after a branch: CycleParams::branch_stall)
  LoadBarriers load_barriers;
  // wgmma groups (decode.h WgmmaStep): when the open group's operations
  // finish, and the committed groups' completion times, oldest first.
  uint64_t wgmma_open = 0;
  std::vector<uint64_t> wgmma_groups;
  uint32_t next_sync = 0;  // next TraceSync of the trace
  uint16_t sm = 0;         // its SM in the slice (for the event stream)
  // Per register slot: the cycle its value is ready and what a reader waits
  // on until then, in one word (score()): one host cache line per read.
  uint64_t* scoreboard = nullptr;
  // With events on (the live view): per register slot, the instruction that
  // writes it last and its issue cycle (producer()); and for the next
  // instruction, the one whose result it waits for (0: none).
  uint64_t* producers = nullptr;
  uint64_t dep_producer = 0;
  uint64_t next_since = 0;  // the cycle the next instruction became next (after the last issue)
};
static_assert(offsetof(Warp, at_mbar) < 64, "a scheduler's check reads the first host cache line of a Warp");

// A register's last writer, for the live view: pc + 1 (0 = none) and its issue cycle.
constexpr uint64_t producer(uint32_t pc, uint64_t cycle) { return uint64_t(pc + 1) << 40 | (cycle & ((1ull << 40) - 1)); }
constexpr int64_t producer_pc(uint64_t v) { return int64_t(v >> 40) - 1; }
constexpr uint64_t producer_cycle(uint64_t v) { return v & ((1ull << 40) - 1); }

constexpr uint64_t score(uint64_t ready, Stall why) { return ready << 8 | uint64_t(why); }
constexpr uint64_t score_ready(uint64_t v) { return v >> 8; }
constexpr Stall score_why(uint64_t v) { return Stall(v & 0x0f); }
// Bits 4-6: the load barrier (LoadBarriers) the value waits on, plus one; 0: none.
constexpr uint32_t score_barrier(uint64_t v) { return uint32_t(v >> 4) & 7; }
constexpr uint64_t with_barrier(uint64_t v, uint32_t b) { return (v & ~uint64_t(0x70)) | uint64_t(b) << 4; }
static_assert(kStallCount <= 16, "a Stall fits the score's low 4 bits");

// One mbarrier phase of a block (cycle/trace.h TraceSync): how many
// warp instructions contribute to it (from the trace), how many have been
// issued in the model's time, and when the last contribution is done.
struct Phase {
  uint32_t expected = 0, seen = 0;
  uint64_t done = 0;
  bool complete() const { return seen >= expected; }
};
constexpr uint64_t phase_key(uint32_t bar, uint32_t phase) { return uint64_t(bar) << 32 | phase; }

struct Block {
  uint64_t id = 0;
  size_t order = 0;  // position in the slice's block list
  std::unique_ptr<BlockTrace> trace;
  uint32_t live = 0, arrived = 0;
  bool used = false;
  // After the block retires its slot takes no new block before this cycle
  // (CycleParams::block_turnaround).
  uint64_t free_at = 0;
  std::unordered_map<uint64_t, Phase> phases;
};

// kFp32 is the FMA pipe that also takes IMAD (FMAheavy), kFp32Lite the
// second FP32 pipe where the sub-partition has one (params.h fma_pipes).
enum Pipe { kFp32, kInt, kFp64, kSfu, kTensor, kFp32Lite, kPipes };

// A queue of memory instructions on their way to the SM's L1/shared data
// path: each sub-partition's MIO queue for shared memory, the SM's LG queue
// for global and local (params.cpp). An instruction holds an entry from its
// issue until the data path starts serving it, whatever its wavefronts or
// lines cost there. Entries leave in issue order (the data path serves
// requests in the order they come), so the queue is a ring of start
// cycles, oldest first. A start is kept rounded up to its cycle: an entry
// starting at s has left at cycle t exactly when ceil(s) <= t, and the
// scheduler asks at whole cycles, as often as a warp is examined.
struct RequestQueue {
  static constexpr uint32_t kCap = 64;  // above any depth (Slice's constructor asserts it)
  uint64_t start[kCap] = {};
  uint32_t head = 0, size = 0;
  // The entries still waiting at t.
  uint32_t waiting(uint64_t t) {
    while (size && start[head] <= t) head = (head + 1) % kCap, --size;
    return size;
  }
  // The first cycle from t on at which an instruction finds fewer than
  // `depth` entries waiting: t when there is room now.
  uint64_t room_at(uint64_t t, uint32_t depth) {
    const uint32_t n = waiting(t);
    if (n < depth) return t;
    return start[(head + n - depth) % kCap];
  }
  void push(double s) {
    // Only requests the queue did not gate (an instruction's second space)
    // push past its depth; a full ring forgets its oldest entry.
    if (size == kCap) head = (head + 1) % kCap, --size;
    start[(head + size) % kCap] = uint64_t(std::ceil(s));
    ++size;
  }
};

// What a scheduler's scan knows of a listed warp from its last examination
// (Sched::note), until it is examined again.
enum Note : uint8_t {
  kNoNote = 0,
  // Found ready and not selected (Warp::deps_ok and state NotSelected,
  // waiting_turn): a scan that has picked already passes it.
  kTurn,
  // Waits for room in its sub-partition's MIO queue or its SM's LG queue
  // (its operands ready, its pipe free): while that queue is still full it
  // would only be found waiting again, in the same state, until the same
  // cycle, so a scan passes it and takes that cycle from the queue. Without
  // this, every warp parked on a full LG queue was examined again each time
  // an entry left it: 15 examinations per issued instruction in a 4096^3
  // naive GEMM.
  kMioFull,
  kLgFull,
};

struct Sched {
  std::vector<uint32_t> warps;  // warp slots, oldest first
  // Per entry of `warps`: the cycle the warp may next issue, or kNever
  // while it cannot (not active, at a barrier or an mbarrier wait): what the
  // scan reads, contiguous and in scan order, instead of each Warp
  // (sync_wake keeps it in step).
  std::vector<uint64_t> wake;
  // Per entry: what its last examination found, where that lets a scan pass
  // the warp without reading it (Note).
  std::vector<uint8_t> note;
  int32_t greedy = -1;
  double pipe_free[kPipes] = {};
  // The sub-partition issues nothing before this cycle: a sequence ptxas
  // expands one PTX instruction into (decode.h issue_slots) takes a slot
  // per instruction, issued back to back.
  uint64_t issue_free = 0;
  uint64_t next_check = kNever;
  RequestQueue mio;  // its MIO queue (params.cpp mio_queue_entries)
};

struct Sm {
  std::vector<Warp> warps;
  // Per warp slot: its entry in its scheduler's `warps` and `wake`
  // (kNotListed while it has none).
  std::vector<uint32_t> listed_at;
  std::vector<Block> blocks;
  std::vector<Sched> sched;
  std::vector<uint64_t> scoreboard;  // per warp slot, per register slot: score()
  std::vector<uint64_t> producers;   // alike, producer(): only with events on
  L1Cache l1;
  bool l1_ready = false;  // l1 is set up when the SM's first block is placed (a small launch leaves most SMs empty)
  double l1_free = 0;  // the L1/shared data path is busy until this cycle
  double tma_free = 0; // the SM's copy engine (TMA) is busy until this cycle
  RequestQueue lg;  // the SM's LG queue (params.cpp lg_queue_entries)
  uint32_t resident_warps = 0;
  uint64_t resident_since = 0;  // resident_warps has had its value since this cycle (note_residency)
  uint64_t next_check = kNever;  // the earliest of its schedulers' next_check: an idle SM is skipped whole
};

int pipe_of(Unit u) {
  switch (u) {
    case Unit::Fp32: return kFp32;
    case Unit::Int: return kInt;
    case Unit::Fp64: return kFp64;
    case Unit::Sfu: return kSfu;
    case Unit::Tensor: return kTensor;
    default: return -1;
  }
}

class Slice {
 public:
  Slice(const DecodedKernel& dk, const CycleParams& p, const SliceConfig& cfg, const std::vector<uint64_t>& blocks,
        const TraceSource& source, CycleResult& acc)
      : dk_(dk), p_(p), cfg_(cfg), blocks_(blocks), source_(source), acc_(acc) {
    const uint32_t slots = cfg.blocks_per_sm * cfg.warps_per_block;
    const size_t ns = std::max<size_t>(1, dk.num_slots);
    assert(cfg.sms <= 256);  // fill_key() keeps the SM in 8 bits
    assert(p.mio_queue_entries < RequestQueue::kCap && p.lg_queue_entries < RequestQueue::kCap);
    sms_.resize(cfg.sms);
    ready_.resize(std::max<uint32_t>(1, slots));
    sched_of_.resize(std::max<uint32_t>(1, slots));
    for (uint32_t w = 0; w < slots; ++w) sched_of_[w] = uint8_t(w % p.schedulers);
    // The shared-memory carveout is what the resident blocks need, rounded up
    // to 8 KB; the L1 data cache is the rest of the unified capacity.
    uint64_t carve = uint64_t(cfg.blocks_per_sm) * cfg.shared_bytes_per_block;
    carve = (carve + 8191) / 8192 * 8192;
    l1_bytes_ = p.l1_shared_bytes > carve ? p.l1_shared_bytes - carve : 0;
    for (Sm& sm : sms_) {
      sm.warps.resize(slots);
      sm.listed_at.assign(slots, kNotListed);
      sm.blocks.resize(cfg.blocks_per_sm);
      sm.sched.resize(p.schedulers);
      for (Sched& sc : sm.sched) sc.wake.reserve(slots), sc.note.reserve(slots);
      sm.scoreboard.assign(slots * ns, score(0, Stall::Wait));
      if (cfg.events) sm.producers.assign(slots * ns, 0);
      for (uint32_t s = 0; s < slots; ++s) {
        sm.warps[s].scoreboard = sm.scoreboard.data() + s * ns;
        sm.warps[s].producers = cfg.events ? sm.producers.data() + s * ns : nullptr;
      }
    }
    set_rates(cfg.bandwidth_share);
    run_.done_cycle.assign(blocks.size(), 0);
  }

  SliceRun run() {
    uint64_t t = 0;
    for (uint32_t turns = 0;; ++turns) {
      if ((turns & 4095) == 0 && cfg_.stop && cfg_.stop()) {
        run_.stopped = true;
        break;
      }
      dispatch(t);
      if (resident_ == 0 && next_block_ >= blocks_.size()) break;
      bool issued = false;
      uint64_t next_t = kNever;
      // The sub-partitions share the SM's L1/LSU queue; which one asks first
      // rotates every cycle (round-robin), so a fixed order does not give the
      // lower-numbered schedulers the queue whenever it frees. NVIDIA does not
      // document the arbitration; GPGPU-Sim and Accel-Sim do the same
      // (shader_core_ctx::issue() rotates Issue_Prio each cycle, "fair round
      // robin issue between schedulers", src/gpgpu-sim/shader.cc). Keyed on the
      // cycle number, so skipped idle cycles rotate it too, as they would.
      const size_t first_sched = size_t(t % p_.schedulers);
      for (Sm& sm : sms_) {
        if (sm.next_check > t) {
          next_t = std::min(next_t, sm.next_check);
          continue;
        }
        const size_t ns = sm.sched.size();
        for (size_t k = 0, j = first_sched; k < ns; ++k, j = j + 1 == ns ? 0 : j + 1) {
          Sched& sc = sm.sched[j];
          if (sc.next_check <= t) issue(sm, sc, t, issued);
        }
        // After all of them: an issue may release a barrier and wake another
        // scheduler (then something issued, and the next cycle is t + 1).
        sm.next_check = kNever;
        for (const Sched& sc : sm.sched) sm.next_check = std::min(sm.next_check, sc.next_check);
        next_t = std::min(next_t, sm.next_check);
      }
      if (dispatch_at_ > t && free_slot_ && next_block_ < blocks_.size()) next_t = std::min(next_t, dispatch_at_);
      uint64_t tn = issued ? t + 1 : std::max(t + 1, next_t);
      if (!issued && next_t == kNever) {
        if (free_slot_ && next_block_ < blocks_.size()) tn = t + 1;  // blocks retired this cycle: place more
        else {
          run_.deadlock = true;
          for (Sm& sm : sms_) note_residency(sm, t);  // cycles up to t - 1 count
          break;
        }
      }
      t = tn;
    }
    // Reductions (red) the warps did not wait for still drain through the
    // L2's atomic queues: the launch ends when the last update is applied.
    const uint64_t retired = t;
    if (!run_.deadlock)
      for (const auto& [sector, free] : atomic_free_) t = std::max(t, uint64_t(std::ceil(free)) + uint64_t(p_.lat_l2));
    // Beyond one L2 latency (what the last update takes anyway) the wait is queueing.
    acc_.atomic_drain_cycles += t - retired > uint64_t(p_.lat_l2) ? t - retired - uint64_t(p_.lat_l2) : 0;
    // Stores the warps did not wait for still drain through the DRAM queue:
    // the L2 model charged them to DRAM, so the launch is not over before
    // the queue has moved them. Without this a streaming kernel's last
    // writes were free and a copy ran at 111% of the DRAM rate (issue 24).
    if (!run_.deadlock) t = std::max(t, uint64_t(std::ceil(dram_free_)));
    run_.cycles = t;
    acc_.sim_cycles += t;
    return std::move(run_);
  }

 private:
  const DecodedKernel& dk_;
  const CycleParams& p_;
  const SliceConfig& cfg_;
  const std::vector<uint64_t>& blocks_;
  const TraceSource& source_;
  CycleResult& acc_;
  std::vector<Sm> sms_;
  std::vector<uint32_t> ready_;  // issue(): the scheduler's warps that may issue now, by entry
  std::vector<uint8_t> sched_of_;  // per warp slot: scheduler_of()
  uint64_t l1_bytes_ = 0;           // each SM's L1 data cache: the unified capacity less the shared carveout
  SliceRun run_;
  size_t next_block_ = 0;
  uint32_t rr_ = 0;
  uint32_t resident_ = 0;   // resident blocks
  bool free_slot_ = true;
  // The block scheduler: it places a block every dispatch_interval_ cycles
  // (0: any number a cycle); the next no sooner than next_dispatch_, and a
  // slot left waiting for it is looked at again at dispatch_at_.
  double dispatch_interval_ = 0, next_dispatch_ = 0;
  uint64_t dispatch_at_ = 0;
  double l2_free_ = 0, dram_free_ = 0;
  // When the work a warp does not wait for, taken since this was last reset,
  // is done: the DRAM queue has served its written sectors, the L2 has
  // applied its atomic updates (SliceRun::done_cycle).
  double drained_ = 0;
  double l2_cycles_per_sector_ = 0;
  // The DRAM queue's cost of a read and of a written sector, and the slice's
  // share of the rated sectors per cycle (params.h).
  double dram_read_cycles_per_sector_ = 0, dram_write_cycles_per_sector_ = 0, dram_rated_sectors_per_cycle_ = 1;
  // Sectors per cycle the DRAM queue served lately: a running mean that
  // forgets with time constant dram_rate_window_, four DRAM latencies.
  double dram_rate_ = 0, dram_rate_t_ = 0, dram_rate_window_ = 1;
  uint64_t l2_seen_ = 0, dram_seen_ = 0;  // sectors that reached L2, and went on to DRAM, so far
  L2Fill l2_fill_;
  // Global atomics: the L2 applies the updates of one address one at a time
  // (NVIDIA Nsight Visual Studio Edition, "Memory Statistics - Atomics": a
  // warp's read-modify-writes of one location are all serialised), about one
  // per clock (NVIDIA Kepler GK110 whitepaper, 2012: same-address global
  // atomics at "one operation per clock"; no later figure published; the
  // lab's measurement where it has one: params.h atomics_per_cycle).
  // A queue per address (keyed by the request's first sector), its rate
  // scaled by the slice's bandwidth share: every SM of the GPU contends for a
  // hot address, not only the slice's.
  std::unordered_map<uint64_t, double> atomic_free_;
  double atomic_cycles_per_update_ = 1, float_add_cycles_per_update_ = 1;

  bool tail_rates_ = false;

  void set_rates(double share) {
    l2_cycles_per_sector_ = 32.0 / std::max(1e-9, p_.l2_bytes_per_cycle * share);
    dram_read_cycles_per_sector_ = 32.0 / std::max(1e-9, p_.dram_read_bytes_per_cycle * share);
    dram_write_cycles_per_sector_ = 32.0 / std::max(1e-9, p_.dram_write_bytes_per_cycle * share);
    dram_rated_sectors_per_cycle_ = std::max(1e-9, p_.dram_rated_bytes_per_cycle * share / 32.0);
    dram_rate_window_ = 4.0 * std::max(1, p_.lat_dram);
    atomic_cycles_per_update_ = 1.0 / std::max(1e-9, p_.atomics_per_cycle * share);
    float_add_cycles_per_update_ = 1.0 / std::max(1e-9, p_.float_adds_per_cycle * share);
    // The block scheduler deals the whole GPU's blocks; the slice gets its
    // share of them as it gets its share of bandwidth.
    dispatch_interval_ = p_.blocks_per_cycle > 0 ? 1.0 / (p_.blocks_per_cycle * share) : 0;
  }

  // sm.resident_warps is about to change, and cycles from `from` on count
  // with the new value: the cycles since its last change count with the
  // old. A cycle counts with the residency it started with, so a block
  // placed at t counts from t and a warp that ends at t from t + 1.
  void note_residency(Sm& sm, uint64_t from) {
    if (from <= sm.resident_since) return;
    if (sm.resident_warps) {
      acc_.active_sm_cycles += from - sm.resident_since;
      acc_.warp_cycles += uint64_t(sm.resident_warps) * (from - sm.resident_since);
    }
    sm.resident_since = from;
  }

  void set_state(Warp& w, Stall s, uint64_t t) {
    if (s == w.state) return;
    if (t > w.since) {
      const uint32_t pc = w.next_inst.pc;
      acc_.per_pc[pc].stall[size_t(w.state)] += t - w.since;
      acc_.stall[size_t(w.state)] += t - w.since;
      record_span(w, t);
    }
    w.state = s;
    w.since = t;
  }

  // The scheduler (sub-partition) a warp slot issues on: slots are dealt
  // round-robin over the SM's schedulers.
  // (A table, not the remainder: sync_wake asks at every examination, and a
  // division by a count known only at run time is dearer than the lookup.)
  uint32_t scheduler_of(uint32_t warp_slot) const { return sched_of_[warp_slot]; }

  // The event stream's record of the interval [w.since, t) in w.state.
  void record_span(const Warp& w, uint64_t t) {
    if (!cfg_.events || acc_.spans.size() >= kMaxEvents) return;
    WarpSpan sp;
    sp.from = w.since;
    sp.to = t;
    sp.block = uint32_t(sms_[w.sm].blocks[w.block_slot].id);
    sp.sm = w.sm;
    sp.warp = uint16_t(w.index);
    sp.block_slot = uint8_t(w.block_slot);
    sp.scheduler = uint8_t(scheduler_of(w.block_slot * cfg_.warps_per_block + w.index));
    sp.reason = w.state;
    sp.segment = cfg_.segment;
    acc_.spans.push_back(sp);
  }

  void dispatch(uint64_t t) {
    if (!free_slot_) return;
    // Nothing can be placed before then: no slot comes free sooner (a block
    // retiring now frees its slot a turnaround later) and the scheduler is busy.
    if (t < dispatch_at_) return;
    free_slot_ = false;
    const uint32_t n = uint32_t(sms_.size());
    // A scheduler that had nothing to place does not bank the time.
    if (next_dispatch_ < double(t)) next_dispatch_ = double(t);
    while (next_block_ < blocks_.size()) {
      if (dispatch_interval_ > 0 && next_dispatch_ >= double(t + 1)) {
        // The block scheduler is busy: come back the cycle it can place
        // the next block (a slot may be free; dispatch() looks again).
        free_slot_ = true;
        dispatch_at_ = uint64_t(next_dispatch_);
        return;
      }
      bool placed = false;
      uint64_t soonest = kNever;  // the first slot still turning around
      for (uint32_t k = 0; k < n && !placed; ++k) {
        Sm& sm = sms_[(rr_ + k) % n];
        for (uint32_t b = 0; b < sm.blocks.size(); ++b) {
          if (sm.blocks[b].used) continue;
          if (sm.blocks[b].free_at > t) {
            soonest = std::min(soonest, sm.blocks[b].free_at);
            continue;
          }
          place(sm, b, t);
          rr_ = (rr_ + k + 1) % n;
          placed = true;
          break;
        }
      }
      if (!placed) {
        if (soonest != kNever) free_slot_ = true, dispatch_at_ = soonest;
        return;
      }
      next_dispatch_ += dispatch_interval_;
    }
  }

  void place(Sm& sm, uint32_t slot, uint64_t t) {
    if (!sm.l1_ready) sm.l1.init(l1_bytes_), sm.l1_ready = true;
    Block& B = sm.blocks[slot];
    B.used = true;
    B.order = next_block_;
    B.id = blocks_[next_block_++];
    if (B.id >= cfg_.tail_first_block && !tail_rates_) {
      // The last wave: fewer SMs busy on the whole GPU, a larger share each.
      tail_rates_ = true;
      set_rates(cfg_.tail_bandwidth_share);
    }
    B.trace = source_(B.id);
    B.arrived = 0;
    B.live = 0;
    B.phases.clear();
    if (B.trace)
      for (const WarpTrace& wt : B.trace->warps)
        for (const TraceSync& s : wt.syncs)
          if (!s.wait) ++B.phases[phase_key(s.bar, s.phase)].expected;
    ++resident_;
    const size_t ns = std::max<size_t>(1, dk_.num_slots);
    for (uint32_t wi = 0; wi < cfg_.warps_per_block; ++wi) {
      const uint32_t s = slot * cfg_.warps_per_block + wi;
      Warp& w = sm.warps[s];
      w.tr = B.trace && wi < B.trace->warps.size() ? &B.trace->warps[wi] : nullptr;
      w.next = w.next_mem = 0;
      w.block_slot = slot;
      w.index = wi;
      w.sm = uint16_t(&sm - sms_.data());
      w.earliest = t;
      w.since = t;
      w.next_since = t;
      w.state = Stall::NotSelected;
      w.async_done = 0;
      w.merged_ready = 0;
      w.lsu_free = 0;
      w.issue_free = 0;
      w.load_barriers.clear();
      w.wgmma_open = 0;
      w.wgmma_groups.clear();
      w.next_sync = 0;
      w.at_mbar = false;
      w.at_barrier = false;
      w.deps_ok = false;
      w.active = w.tr && !w.tr->insts.empty();
      std::fill(w.scoreboard, w.scoreboard + ns, score(0, Stall::Wait));
      if (w.producers) std::fill(w.producers, w.producers + ns, 0);
      if (!w.active) continue;
      prepare_next(w);
      ++B.live;
      note_residency(sm, t);
      ++sm.resident_warps;
      Sched& sc = sm.sched[scheduler_of(s)];
      sm.listed_at[s] = uint32_t(sc.warps.size());
      sc.warps.push_back(s);
      sc.wake.push_back(kNever);
      sc.note.push_back(kNoNote);
      sync_wake(sm, s);
      sc.next_check = std::min(sc.next_check, t);
      sm.next_check = std::min(sm.next_check, t);
    }
    if (B.live == 0) retire(sm, slot, t);
  }

  void retire(Sm& sm, uint32_t slot, uint64_t t) {
    Block& B = sm.blocks[slot];
    run_.done_cycle[B.order] = std::max(run_.done_cycle[B.order], t + 1);
    B.used = false;
    B.free_at = t + p_.block_turnaround;
    B.trace.reset();
    --resident_;
    free_slot_ = true;
    for (Sched& sc : sm.sched) {
      size_t kept = 0;
      for (size_t i = 0; i < sc.warps.size(); ++i) {
        const uint32_t s = sc.warps[i];
        if (sm.warps[s].block_slot == slot) {
          sm.listed_at[s] = kNotListed;
          continue;
        }
        sc.warps[kept] = s;
        sc.wake[kept] = sc.wake[i];
        sc.note[kept] = sc.note[i];
        sm.listed_at[s] = uint32_t(kept++);
      }
      sc.warps.resize(kept);
      sc.wake.resize(kept);
      sc.note.resize(kept);
      if (sc.greedy >= 0 && sm.warps[uint32_t(sc.greedy)].block_slot == slot) sc.greedy = -1;
    }
  }

  void release_barrier(Sm& sm, Block& B, uint32_t slot, uint64_t t) {
    B.arrived = 0;
    for (uint32_t wi = 0; wi < cfg_.warps_per_block; ++wi) {
      const uint32_t s = slot * cfg_.warps_per_block + wi;
      Warp& w = sm.warps[s];
      if (!w.active || !w.at_barrier) continue;
      w.at_barrier = false;
      w.earliest = t + 1;
      sync_wake(sm, s);
      Sched& sc = sm.sched[scheduler_of(s)];
      sc.next_check = std::min(sc.next_check, t + 1);
      sm.next_check = std::min(sm.next_check, t + 1);
    }
  }

  void sync_wake(Sm& sm, uint32_t s) const {
    const uint32_t at = sm.listed_at[s];
    if (at == kNotListed) return;
    const Warp& w = sm.warps[s];
    sm.sched[scheduler_of(s)].wake[at] = !w.active || w.at_barrier || w.at_mbar ? kNever : w.earliest;
  }
  // The entry of slot s in its scheduler's wake list (kNever once unlisted).
  static uint64_t wake_of(const Sm& sm, const Sched& sc, uint32_t s) {
    const uint32_t at = sm.listed_at[s];
    return at == kNotListed ? kNever : sc.wake[at];
  }

  // A phase's last contribution was issued: the warps parked on it may go
  // on once it is done (its result takes the shared-memory latency to reach
  // a waiter, as an mbarrier operation's does: decode.cpp).
  void release_phase(Sm& sm, Block& B, uint32_t slot, uint64_t key, const Phase& ph, uint64_t t) {
    for (uint32_t wi = 0; wi < cfg_.warps_per_block; ++wi) {
      const uint32_t s = slot * cfg_.warps_per_block + wi;
      Warp& w = sm.warps[s];
      if (!w.active || !w.at_mbar || w.mbar_key != key) continue;
      w.at_mbar = false;
      w.dep_ready = std::max(w.dep_ready, ph.done);
      w.deps_ok = false;
      w.earliest = std::max(t + 1, ph.done);
      sync_wake(sm, s);
      Sched& sc = sm.sched[scheduler_of(s)];
      sc.next_check = std::min(sc.next_check, w.earliest);
      sm.next_check = std::min(sm.next_check, w.earliest);
    }
    (void)B;
  }
  static uint32_t slot_of(const Sm& sm, const Warp& w) { return uint32_t(&w - sm.warps.data()); }

  // A register's value is ready when its load is, or, on a barrier several
  // loads share, when the last of them issued so far is.
  static uint64_t ready_of(const Warp& w, uint64_t v) {
    const uint32_t b = score_barrier(v);
    return b ? std::max(score_ready(v), w.load_barriers.b[b - 1].ready) : score_ready(v);
  }
  // The instruction's wait on a load barrier frees it: its members' values
  // are each ready at their own load's time from then on.
  static void free_barriers(Warp& w, const uint32_t* sl, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i)
      if (const uint32_t k = score_barrier(w.scoreboard[sl[i]])) {
        LoadBarriers::Barrier& b = w.load_barriers.b[k - 1];
        for (uint8_t m = 0; m < b.members; ++m)
          if (score_barrier(w.scoreboard[b.slots[m]]) == k) w.scoreboard[b.slots[m]] = with_barrier(w.scoreboard[b.slots[m]], 0);
        w.scoreboard[sl[i]] = with_barrier(w.scoreboard[sl[i]], 0);
        if (b.open) b.open = false, --w.load_barriers.open;
        b.members = 0;
        b.ready = 0;
      }
  }
  // The barrier a global load's result waits on (1-based): the open one
  // for the same first consumer, a new one while fewer than
  // CycleParams::load_barriers are open, else the last one opened.
  uint32_t load_barrier(Warp& w, const DecodedInstr& d, uint64_t ready) const {
    LoadBarriers& lb = w.load_barriers;
    const int limit = std::min(p_.load_barriers, LoadBarriers::kMax);
    if (limit <= 0) return 0;
    int k = -1;
    if (d.first_use != DecodedInstr::kNoConsumer)
      for (int i = 0; i < limit && k < 0; ++i)
        if (lb.b[i].open && lb.b[i].first_use == d.first_use) k = i;
    if (k < 0 && lb.open < limit)
      for (int i = 0; i < limit && k < 0; ++i)
        if (!lb.b[i].open) {
          k = i;
          lb.b[i] = LoadBarriers::Barrier{};
          lb.b[i].open = true;
          lb.b[i].first_use = d.first_use;
          ++lb.open;
          lb.last = uint8_t(i);
        }
    if (k < 0) k = lb.last;
    LoadBarriers::Barrier& b = lb.b[k];
    if (b.members + d.writes > LoadBarriers::kMembers) return 0;  // untracked: waits for its own load only
    b.ready = std::max(b.ready, ready);
    for (uint32_t i = 0; i < d.writes; ++i) b.slots[b.members++] = dk_.slots[d.first + d.reads + i];
    return uint32_t(k + 1);
  }

  // The next instruction's operand readiness (Warp::dep_ready), from the
  // scoreboard: the latest of the registers it reads and writes, and for a
  // cp.async wait the copies in flight.
  void prepare_next(Warp& w) const {
    const TraceInst& ti = w.tr->insts[w.next];
    // The trace is cold when the warp comes back to it (the SM's other warps
    // issue in between): its next host cache lines of instructions and
    // requests are asked for now, a line ahead of where they are read.
    __builtin_prefetch(w.tr->insts.data() + w.next + 8);
    __builtin_prefetch(w.tr->mems.data() + w.next_mem + 2);
    const DecodedInstr& d = dk_.code[ti.pc];
    uint64_t dep = 0;
    Stall why = Stall::Wait;
    w.dep_producer = 0;
    if (!ti.dead) {
      const uint32_t* sl = dk_.slots.data() + d.first;
      // A renamed instruction's destinations are its own (hoist.h): it waits
      // for what it reads only.
      for (uint32_t i = 0, n = uint32_t(d.reads) + (ti.renamed ? 0u : d.writes); i < n; ++i)
        if (const uint64_t v = w.scoreboard[sl[i]]; ready_of(w, v) > dep) {
          dep = ready_of(w, v), why = score_why(v);
          if (w.producers) w.dep_producer = w.producers[sl[i]];
        }
      if (d.unit == Unit::AsyncWait && w.async_done > dep) dep = w.async_done, why = Stall::LongScoreboard, w.dep_producer = 0;
      // wgmma.wait_group N: every group but the newest N done.
      if (d.wgmma == WgmmaStep::Wait && w.wgmma_groups.size() > d.wait_groups)
        for (size_t g = 0; g + d.wait_groups < w.wgmma_groups.size(); ++g)
          if (w.wgmma_groups[g] > dep) dep = w.wgmma_groups[g], why = Stall::Wait, w.dep_producer = 0;
    }
    // ptxas's stall counts space a warp's loads and stores (params.cpp).
    if (d.lsu && w.lsu_free > dep) dep = w.lsu_free, why = Stall::Wait, w.dep_producer = 0;
    if (w.issue_free > dep) dep = w.issue_free, why = Stall::Wait, w.dep_producer = 0;
    w.dep_ready = dep;
    w.dep_why = why;
    w.next_inst = ti;
    w.next_unit = d.unit;
    w.next_imad = d.imad;
    w.next_either_pipe = d.either_pipe;
    w.next_waits_phase = false;
    for (uint32_t k = w.next_sync; k < w.tr->syncs.size() && w.tr->syncs[k].inst == w.next; ++k)
      w.next_waits_phase |= w.tr->syncs[k].wait;
    w.next_request = 0;
    if (d.unit == Unit::Memory && w.next_mem < w.tr->mems.size() && w.tr->mems[w.next_mem].inst == w.next)
      w.next_request = w.tr->mems[w.next_mem].space == ptx::Space::Shared ? 1 : 2;
  }

  // A shared-memory instruction's queue is its sub-partition's, a global or
  // local one's the SM's (params.cpp mio_queue_entries).
  static RequestQueue& queue(Sm& sm, Sched& sc, bool shared) { return shared ? sc.mio : sm.lg; }

  // Can `w` issue at t? If not, records why and when it may; `*note` says
  // whether it waits for room in a queue (kMioFull, kLgFull) or not (kNoNote).
  bool eligible(Sm& sm, Sched& sc, Warp& w, uint64_t t, Note* note) {
    *note = kNoNote;
    if (!w.deps_ok) {
      // An mbarrier wait the interpreter let through: the phase must have
      // completed in the model's time too (its last contribution done).
      for (uint32_t k = w.next_sync; w.next_waits_phase && k < w.tr->syncs.size() && w.tr->syncs[k].inst == w.next; ++k) {
        const TraceSync& s = w.tr->syncs[k];
        if (!s.wait) continue;
        const uint64_t key = phase_key(s.bar, s.phase);
        Block& B = sm.blocks[w.block_slot];
        auto it = B.phases.find(key);
        if (it == B.phases.end()) continue;  // no contribution in the trace: completed before the block's trace
        if (!it->second.complete()) {
          set_state(w, Stall::LongScoreboard, t);
          w.at_mbar = true;
          w.mbar_key = key;
          sync_wake(sm, slot_of(sm, w));
          return false;
        }
        if (it->second.done > w.dep_ready) w.dep_ready = it->second.done, w.dep_why = Stall::LongScoreboard;
      }
      if (w.dep_ready > t) {
        set_state(w, w.dep_why, t);
        w.earliest = w.dep_ready;
        sync_wake(sm, slot_of(sm, w));
        return false;
      }
      w.deps_ok = true;
    }
    const int pipe = choose_pipe(sc, w.next_unit, w.next_imad, w.next_either_pipe);
    if (pipe >= 0 && sc.pipe_free[pipe] > double(t) + 1e-9) {
      set_state(w, w.next_unit == Unit::Sfu ? Stall::MioThrottle : Stall::MathPipeThrottle, t);
      w.earliest = uint64_t(std::ceil(sc.pipe_free[pipe]));
      sync_wake(sm, slot_of(sm, w));
      return false;
    }
    if (w.next_request) {
      const bool shared = w.next_request == 1;
      const uint64_t room_at = queue(sm, sc, shared).room_at(t, shared ? p_.mio_queue_entries : p_.lg_queue_entries);
      if (room_at > t) {
        if (pipe < 0) *note = shared ? kMioFull : kLgFull;  // nothing but the queue holds it (Note)
        set_state(w, shared ? Stall::MioThrottle : Stall::LgThrottle, t);
        // The queue's entries leave at the start cycles they were given
        // when issued, and no warp adds one while it is full: room_at is
        // when an entry frees.
        w.earliest = room_at;
        sync_wake(sm, slot_of(sm, w));
        return false;
      }
    }
    return true;
  }

  // A warp noted as waiting for room in a queue (kMioFull, kLgFull) whose
  // queue is still full at t: the cycle an entry leaves it, when the warp is
  // examined again (until then it would only be found waiting, in the same
  // state, until that cycle). 0 otherwise: examine it. The scan sets its
  // wake entry to that cycle; its Warp::earliest stays behind meanwhile (at
  // or before t), which is safe: a wake entry set from it (sync_wake) only
  // brings the warp back to this scan, which asks the queue again.
  uint64_t still_full(Sm& sm, Sched& sc, uint8_t note, uint64_t t) {
    if (note < kMioFull) return 0;
    const bool shared = note == kMioFull;
    const uint64_t room = queue(sm, sc, shared).room_at(t, shared ? p_.mio_queue_entries : p_.lg_queue_entries);
    return room > t ? room : 0;
  }

  // A warp that was ready and not selected stays ready (its registers only
  // change when it issues); it is not re-examined every cycle, only counted
  // as not_selected until it is picked.
  static bool waiting_turn(const Warp& w) { return w.deps_ok && w.state == Stall::NotSelected; }

  void issue(Sm& sm, Sched& sc, uint64_t t, bool& issued) {
    if (sc.issue_free > t) {  // still issuing a sequence: its warps are examined when it is done
      sc.next_check = sc.issue_free;
      return;
    }
    uint64_t next = kNever;
    int32_t pick = -1;
    // GTO: the greedy warp first, then the oldest ready one.
    if (sc.greedy >= 0) {
      Warp& g = sm.warps[uint32_t(sc.greedy)];
      const uint32_t at = sm.listed_at[uint32_t(sc.greedy)];
      if (at != kNotListed && sc.wake[at] <= t) {
        if (const uint64_t room = still_full(sm, sc, sc.note[at], t)) {
          sc.wake[at] = room;
        } else {
          Note note;
          if (eligible(sm, sc, g, t, &note)) pick = sc.greedy;
          sc.note[at] = note;  // examined now
        }
      }
    }
    // Waiting (or not active, or at a barrier: kNever) is told by the wake
    // list alone, in one branch-free pass; only the warps that may issue now
    // are looked at, oldest first. (Examining a warp changes no other warp's
    // wake, so the list is read once, after the greedy warp's examination.)
    uint32_t ready = 0;
    {
      const uint64_t* wake = sc.wake.data();
      uint32_t* out = ready_.data();
      for (uint32_t i = 0, n = uint32_t(sc.warps.size()); i < n; ++i) {
        const uint64_t v = wake[i];
        out[ready] = i;
        ready += v <= t;
        next = std::min(next, v > t ? v : kNever);
      }
    }
    for (uint32_t r = 0; r < ready; ++r) {
      const uint32_t e = ready_[r], s = sc.warps[e];
      if (int32_t(s) == pick) continue;
      if (pick >= 0 && sc.note[e] == kTurn) { next = t + 1; continue; }
      if (const uint64_t room = still_full(sm, sc, sc.note[e], t)) {
        sc.wake[e] = room;
        next = std::min(next, room);
        continue;
      }
      Warp& w = sm.warps[s];
      assert(sc.note[e] != kTurn || waiting_turn(w));
      // Examined now: it issues, or waits in a state eligible() sets, or its turn again (below).
      Note note;
      const bool ok = eligible(sm, sc, w, t, &note);
      sc.note[e] = note;
      if (ok) {
        if (pick < 0) { pick = int32_t(s); continue; }
        sc.note[e] = kTurn;
        set_state(w, Stall::NotSelected, t);
        w.earliest = t + 1;
        sync_wake(sm, s);
        next = t + 1;
      } else {
        next = std::min(next, w.earliest);
      }
    }
    if (pick >= 0) {
      sc.greedy = pick;
      execute(sm, sc, uint32_t(pick), t);
      issued = true;
      next = std::min(next, wake_of(sm, sc, uint32_t(pick)));
    }
    // Warps placed or released during this cycle lowered next_check already.
    sc.next_check = std::min(next, sc.next_check > t ? sc.next_check : kNever);
  }

  // The L2 fill table's key: the sector and the SM that asked for it.
  uint64_t fill_key(const Sm& sm, uint64_t sector) const { return (sector << 8) | uint64_t(&sm - sms_.data()); }

  // One sector enters the DRAM queue at t: a read or a written sector at its
  // own rate. One queue for both (the DRAM's data bus carries reads and
  // writes in turn): the lab's STREAM copy and triad on an H100 and an H200
  // land within 1-5% of where the measured read-only and write-only rates
  // put them (device.cpp, [LAB-H100], [LAB-H200]).
  void dram_take(double t, bool write) {
    const double cost = write ? dram_write_cycles_per_sector_ : dram_read_cycles_per_sector_;
    dram_free_ = std::max(dram_free_, t) + cost;
    if (write) drained_ = std::max(drained_, dram_free_);
    acc_.dram_busy_cycles += cost;
    // The rate counts a sector when the queue has served it, so it never
    // runs ahead of the queue's own rate (a burst that waits in the queue
    // is the rate queue's delay, not this one's).
    if (dram_free_ > dram_rate_t_) {
      dram_rate_ *= std::exp(-(dram_free_ - dram_rate_t_) / dram_rate_window_);
      dram_rate_t_ = dram_free_;
    }
    dram_rate_ += 1.0 / dram_rate_window_;
  }

  // The extra wait of a DRAM access at t under load: S x u / (1 - u) at the
  // DRAM's recent utilisation u of its rated bandwidth (params.h). On the
  // GPU a load's latency grows well before the DRAM's rate is reached: the
  // lab's read sweep (bench mechanisms, dram rows) takes 1022 cycles a load
  // at u = 0.63 on an H100 against 687 unloaded. The rate queue above only
  // delays accesses once demand passes the achievable rate.
  double dram_loaded_wait(double t) const {
    if (p_.dram_queue_cycles <= 0) return 0;
    const double rate =
        t > dram_rate_t_ ? dram_rate_ * std::exp(-(t - dram_rate_t_) / dram_rate_window_) : dram_rate_;
    const double u = std::min(0.95, rate / dram_rated_sectors_per_cycle_);
    return p_.dram_queue_cycles * u / (1.0 - u);
  }

  // One sector past the L1 at t_data: it takes L2 bandwidth, and DRAM
  // bandwidth when `to_dram` (the L2 model sent it there). Arrives from L2
  // at `l2`; `shared_dram` adds the slice's running DRAM fraction of the
  // extra DRAM wait (latency and queue), as global_request explains.
  struct SectorArrival {
    double l2 = 0, shared_dram = 0;
  };
  SectorArrival sector_past_l1(double t_data, bool to_dram, bool write) {
    l2_free_ = std::max(l2_free_, t_data) + l2_cycles_per_sector_;
    SectorArrival a;
    a.l2 = l2_free_ + p_.lat_l2;
    ++l2_seen_;
    if (to_dram) {
      ++dram_seen_;
      dram_take(t_data, write);
    }
    const double frac = std::min(1.0, double(dram_seen_) / double(l2_seen_));
    a.shared_dram = a.l2;
    if (frac > 0) {
      const double d_dram = std::max(dram_free_, t_data) + p_.lat_dram + dram_loaded_wait(t_data);
      a.shared_dram += frac * std::max(0.0, d_dram - a.l2);
    }
    return a;
  }

  // The sectors of a request the L2 model sent to DRAM although this SM
  // brought them into L2 before (evicted lines fetched again): more DRAM
  // sectors than new ones (global_request explains the L2 history).
  uint32_t refetches(const Sm& sm, const WarpTrace& tr, const TraceMem& m) {
    uint32_t fresh = 0;
    // Counted only until the new sectors cover the DRAM ones (most requests
    // send none to DRAM): then there is no refetch, and no more lookups.
    for (uint32_t r = 0; r < m.runs && fresh < m.dram; ++r) {
      const SectorRun& run = tr.runs[m.first_run + r];
      for (uint32_t k = 0; k < run.count && fresh < m.dram; ++k)
        fresh += l2_fill_.find(fill_key(sm, run.first + uint64_t(int64_t(k) * run.stride))) == nullptr;
    }
    return m.dram > fresh ? m.dram - fresh : 0;
  }

  // When one sector that missed (or bypassed) the L1 arrives: an L2 hit when
  // this SM brought it into L2 before (waiting for that fill if it is still
  // in flight), else the L2 latency plus the running DRAM share. Consumes
  // one of the request's DRAM sectors (`dram_left`) and, for a refetched
  // line, one of its `refetch`es.
  double arrival_past_l1(const Sm& sm, uint64_t sector, double t_data, bool write, uint32_t& dram_left,
                         uint32_t& refetch) {
    const SectorArrival a = sector_past_l1(t_data, dram_left > 0, write);
    if (dram_left) --dram_left;
    bool in_l2 = false;
    uint64_t& when = l2_fill_.find_or_insert(fill_key(sm, sector), in_l2);
    if (in_l2 && refetch == 0) return std::max(a.l2, double(when));
    if (in_l2) --refetch;
    when = uint64_t(a.shared_dram);  // a later request has it no sooner than this one
    return a.shared_dram;
  }

  // One global/local request: L1 data path, L1 tags, L2 and DRAM queues.
  // `float_add`: an atomic's updates are floating-point adds (their own rate).
  uint64_t global_request(Sm& sm, const WarpTrace& tr, const TraceMem& m, uint64_t t, bool atomic,
                          bool float_add) {
    const double start = std::max(double(t), sm.l1_free);
    // A line a cycle, and no fewer than the LD/ST units' address cycles (params.cpp lsu_request_cycles).
    const uint16_t hold = std::max<uint16_t>(p_.lsu_request_cycles, m.lines);
    sm.l1_free = start + hold;
    acc_.l1_busy_cycles += hold;
    const double t_data = sm.l1_free;
    uint64_t done = uint64_t(t_data) + p_.lat_l1;
    uint32_t dram_left = m.dram;
    uint32_t n = 0, hits = 0, misses = 0;
    // DRAM latency is shared out, bandwidth is not. The interpreter's L2
    // model sees the blocks one after another, so the first block to touch a
    // line is charged every miss on it and the blocks after it hit; on the
    // GPU the blocks of a wave run together and those that ask for a line
    // while its fill is in flight wait for the same DRAM access. So every
    // sector that reaches L2 waits the L2 latency plus the slice's running
    // DRAM fraction of the extra DRAM wait (latency and queue), while the
    // DRAM queue is charged exactly the sectors the L2 model sent to DRAM.
    // Without this the first blocks of each row and column of a tiled grid
    // run slowest, an artefact of the order the interpreter runs them in.
    //
    // A sector this SM already brought into L2 is another matter: it is
    // there (or on its way), and a request for it is an L2 hit that waits
    // for the fill still in flight, as in the L1 (HIT_RESERVED), unless the
    // L2 model sent more of this request's sectors to DRAM than it has new
    // ones (an evicted line fetched again). Kept per SM: an SM's own history
    // is simulated alike in sampled and full runs, while what other SMs
    // fetched is the running DRAM fraction's part (a sampled slice does not
    // see most of them). Without this, a pointer chase's
    // true L2 hits paid part of the DRAM latency (bench mechanisms' chase L2
    // row: 412 cycles on H100 against the published ~263).
    uint32_t refetch = refetches(sm, tr, m);
    for (uint32_t r = 0; r < m.runs; ++r) {
      const SectorRun& run = tr.runs[m.first_run + r];
      for (uint32_t k = 0; k < run.count; ++k, ++n) {
        const uint64_t sector = run.first + uint64_t(int64_t(k) * run.stride);
        uint64_t* fill = nullptr;
        const bool hit = !m.write && !atomic && !m.bypass_l1 && sm.l1.access(sector, true, &fill);
        if (hit) {
          // A sector whose fill is still in flight: the request waits for
          // that fill (GPGPU-Sim's HIT_RESERVED: merged into the pending
          // miss's MSHR entry), it does not get the data at the hit latency.
          ++hits;
          if (fill && *fill > done) done = *fill;
          continue;
        }
        ++misses;
        const double d = arrival_past_l1(sm, sector, t_data, m.write, dram_left, refetch);
        done = std::max(done, uint64_t(d));
        if (fill) *fill = uint64_t(d);
      }
    }
    if (m.serial && m.runs) {  // atom and red alike (red has no destination register)
      double& free = atomic_free_[tr.runs[m.first_run].first];
      free = std::max(free, t_data) + m.serial * (float_add ? float_add_cycles_per_update_ : atomic_cycles_per_update_);
      done = std::max(done, uint64_t(free) + p_.lat_l2);
      drained_ = std::max(drained_, free + p_.lat_l2);
    }
    // DRAM sectors the L2 model charged beyond the L1 misses (write-backs).
    for (; dram_left; --dram_left) dram_take(t_data, true);
    acc_.traced_sectors += n;
    if (!m.write && !atomic && !m.bypass_l1) {
      acc_.l1_sectors += n;
      acc_.l1_hits += hits;
    }
    acc_.l2_sectors += misses;
    acc_.l2_hits += misses > m.dram ? misses - m.dram : 0;
    acc_.dram_bytes += uint64_t(m.dram) * 32;
    return done;
  }

  // One copy-engine request (TMA's cp.async.bulk.tensor, cp.async.bulk):
  // the SM's copy engine takes requests one after another; its sectors go to
  // L2 and DRAM as a load's misses do, without the L1, and each is written
  // into shared memory when it arrives, over the L1/shared data path
  // (l1_bytes_per_cycle, shared with the LSU's accesses and wgmma's operand
  // reads). So a copy takes the L2 latency and then its bytes at the data
  // path's rate: on the H200 the lab measured 380 cycles for 1 KB from L2 and
  // 519 for 16 KB (bench mechanisms, chase/bulk copy; docs/fidelity.md).
  // Returns when the last byte has landed.
  uint64_t bulk_request(Sm& sm, const WarpTrace& tr, const TraceMem& m, uint64_t t) {
    const double start = std::max(double(t), sm.tma_free);
    const uint64_t sector_bytes = uint64_t(m.count) * 32;
    const uint64_t bytes = std::max<uint64_t>(m.shared_bytes, sector_bytes);  // a box's zero fill is written too
    // The data path's bandwidth is taken now (a reservation in the future
    // would block the LSU's shared accesses while the copy is in flight).
    const double path = std::max(start, sm.l1_free);
    sm.l1_free = path + double(bytes) / p_.l1_bytes_per_cycle;
    acc_.l1_busy_cycles += uint64_t(double(bytes) / p_.l1_bytes_per_cycle);
    // The engine takes the next request once it has sent this one's, at the
    // rate the data path takes their bytes: copies in flight overlap their latencies.
    sm.tma_free = sm.l1_free;
    // Each sector lands in shared memory when it arrives, one after another
    // at the data path's rate.
    const double per_sector = 32.0 / p_.l1_bytes_per_cycle;
    uint32_t dram_left = m.dram, refetch = refetches(sm, tr, m);
    double written = start;
    for (uint32_t r = 0; r < m.runs; ++r) {
      const SectorRun& run = tr.runs[m.first_run + r];
      for (uint32_t k = 0; k < run.count; ++k) {
        const uint64_t sector = run.first + uint64_t(int64_t(k) * run.stride);
        written = std::max(written, arrival_past_l1(sm, sector, start, m.write, dram_left, refetch)) + per_sector;
      }
    }
    written += double(bytes - sector_bytes) / p_.l1_bytes_per_cycle;  // the zero fill, after the sectors
    // DRAM sectors the L2 model charged beyond these (write-backs).
    for (; dram_left; --dram_left) dram_take(start, true);
    const uint64_t done = uint64_t(std::ceil(written));
    if (cfg_.events && acc_.async_spans.size() < kMaxEvents)
      acc_.async_spans.push_back({uint64_t(start), done, uint16_t(&sm - sms_.data()), 0, cfg_.segment,
                                  AsyncUnit::CopyEngine});
    acc_.traced_sectors += m.count;
    acc_.l2_sectors += m.count;
    acc_.l2_hits += m.count > m.dram ? m.count - m.dram : 0;
    acc_.dram_bytes += uint64_t(m.dram) * 32;
    return done;
  }

  // The loads ptxas merged into the one before them (decode.h): they take no
  // issue slot and make no request; their results arrive with the merged
  // load's. Their trace requests are consumed (and counted as traced). And
  // the loop control an unrolled loop does not have (unroll.h): no issue
  // slot, its result (a counter, an address step) at once.
  // Which pipe the instruction goes to: FP32 to the FMA pipe that frees
  // first, IMAD to the first one only, an integer op ptxas may issue as an
  // IMAD (decode.h either_pipe) to the integer pipe or the first FMA pipe.
  int choose_pipe(const Sched& sc, Unit unit, bool imad, bool either_pipe) const {
    if (unit == Unit::Fp32)
      return imad || p_.fma_pipes < 2 || sc.pipe_free[kFp32] <= sc.pipe_free[kFp32Lite] ? kFp32 : kFp32Lite;
    if (either_pipe && sc.pipe_free[kFp32] < sc.pipe_free[kInt]) return kFp32;
    return pipe_of(unit);
  }
  // Cycles it holds that pipe: one of two FMA pipes holds a warp
  // instruction twice as long as the pair (params.h fma_pipes).
  double pipe_hold(int pipe, const DecodedInstr& d) const {
    if (pipe == kFp32 || pipe == kFp32Lite) return (d.unit == Unit::Fp32 ? d.hold : p_.ii_fp32) * p_.fma_pipes;
    return d.hold;
  }

  void skip_merged(Warp& w, uint64_t t) {
    while (w.next < w.tr->insts.size() && (w.tr->insts[w.next].merged_away || w.tr->insts[w.next].folded)) {
      const TraceInst& f = w.tr->insts[w.next];
      const DecodedInstr& fd = dk_.code[f.pc];
      while (w.next_mem < w.tr->mems.size() && w.tr->mems[w.next_mem].inst == w.next)
        acc_.traced_wavefronts += w.tr->mems[w.next_mem++].count;
      if (f.mask != 0 && !f.dead) {
        const uint32_t* sl = dk_.slots.data() + fd.first + fd.reads;
        // A fused instruction's result is its operands' (the IMAD.WIDE that
        // does its add waits for what the add waited for).
        uint64_t folded_score = score(t, Stall::Wait);
        if (fd.fused)
          for (const uint32_t* r = dk_.slots.data() + fd.first; r != sl; ++r)
            folded_score = std::max(folded_score, score(ready_of(w, w.scoreboard[*r]), score_why(w.scoreboard[*r])));
        for (uint32_t i = 0; i < fd.writes; ++i) {
          w.scoreboard[sl[i]] = f.folded ? folded_score
                                         : score(std::max(w.merged_ready, t + 1), Stall::ShortScoreboard);
          if (w.producers) w.producers[sl[i]] = producer(f.pc, t);  // its share of the merged load, issued now
        }
      }
      ++(f.folded ? acc_.folded_instructions : acc_.merged_loads);
      ++w.next;
    }
  }

  void execute(Sm& sm, Sched& sc, uint32_t slot, uint64_t t) {
    Warp& w = sm.warps[slot];
    const uint32_t idx = w.next;
    const TraceInst ti = w.next_inst;
    const DecodedInstr& d = dk_.code[ti.pc];
    // Close the waiting interval and count the issue.
    if (t > w.since) {
      acc_.per_pc[ti.pc].stall[size_t(w.state)] += t - w.since;
      acc_.stall[size_t(w.state)] += t - w.since;
      record_span(w, t);
    }
    if (cfg_.events && acc_.events.size() < kMaxEvents) {
      IssueEvent e;
      e.cycle = t;
      e.wait_from = w.since;
      e.block = uint32_t(sm.blocks[w.block_slot].id);
      e.sm = uint16_t(&sm - sms_.data());
      e.warp = uint16_t(w.index);
      e.pc = ti.pc;
      e.reason = t > w.since ? w.state : Stall::Selected;
      // What it waited for: the instruction whose result was not ready when its wait began.
      if (w.dep_producer && w.dep_ready > w.next_since) {
        e.waited_pc = int32_t(producer_pc(w.dep_producer));
        e.waited_issue = producer_cycle(w.dep_producer);
      }
      e.segment = cfg_.segment;
      e.block_slot = uint8_t(w.block_slot);
      e.scheduler = uint8_t(scheduler_of(slot));
      acc_.events.push_back(e);
    }
    ++acc_.per_pc[ti.pc].issued;
    ++acc_.per_pc[ti.pc].stall[size_t(Stall::Selected)];
    ++acc_.stall[size_t(Stall::Selected)];
    ++acc_.issued;
    if (d.issue_slots > 1 && ti.mask != 0) {
      // The rest of the sequence, in the slots that follow (the warp's own
      // next instruction waits for the result anyway).
      sc.issue_free = t + d.issue_slots;
      acc_.per_pc[ti.pc].issued += d.issue_slots - 1u;
      acc_.issued += d.issue_slots - 1u;
    }

    uint64_t ready_at = t + d.latency;
    Stall why = d.dep;
    const int pipe = choose_pipe(sc, d.unit, d.imad, d.either_pipe);
    if (pipe >= 0) sc.pipe_free[pipe] = std::max(sc.pipe_free[pipe], double(t)) + pipe_hold(pipe, d);
    // wgmma: the tensor core finishes the warp's part when the pipe has
    // worked through it, plus wgmma's result latency; commit closes the group.
    switch (d.wgmma) {
      case WgmmaStep::Issue: {
        if (cfg_.events && acc_.async_spans.size() < kMaxEvents)
          acc_.async_spans.push_back({uint64_t(std::max(double(t), sc.pipe_free[kTensor] - d.hold)),
                                      uint64_t(std::ceil(sc.pipe_free[kTensor])), uint16_t(&sm - sms_.data()),
                                      uint8_t(scheduler_of(slot)), cfg_.segment, AsyncUnit::Wgmma});
        // Its operands stream from shared memory over the SM's shared data
        // path: the warp's rows of A and its quarter of B (the warpgroup
        // reads B once), decode.h smem_bytes.
        const double start = std::max(double(t), sm.l1_free);
        sm.l1_free = start + d.smem_bytes / p_.l1_bytes_per_cycle;
        acc_.l1_busy_cycles += uint64_t(d.smem_bytes / p_.l1_bytes_per_cycle);
        const double end = std::max(sc.pipe_free[kTensor], sm.l1_free);
        w.wgmma_open = std::max(w.wgmma_open, uint64_t(std::ceil(end)) + p_.lat_wgmma);
        break;
      }
      case WgmmaStep::Commit:
        w.wgmma_groups.push_back(w.wgmma_open);
        w.wgmma_open = 0;
        break;
      case WgmmaStep::Wait:
        if (w.wgmma_groups.size() > d.wait_groups)
          w.wgmma_groups.erase(w.wgmma_groups.begin(), w.wgmma_groups.end() - d.wait_groups);
        break;
      case WgmmaStep::None: break;
    }
    // Copy-engine requests (TMA, cp.async.bulk): they do not wait for the
    // warp; their completion is what their mbarrier contribution waits for.
    uint64_t bulk_done = 0;
    drained_ = 0;
    while (w.next_mem < w.tr->mems.size() && w.tr->mems[w.next_mem].inst == idx && w.tr->mems[w.next_mem].bulk)
      bulk_done = std::max(bulk_done, bulk_request(sm, *w.tr, w.tr->mems[w.next_mem++], t));
    bool global_load = false;  // a load from global or local memory: its result waits on a load barrier
    if (d.unit == Unit::Memory) {
      bool any = false, all_shared = true;
      uint64_t done = t;
      const bool atomic = d.writes > 0;  // a memory op with a destination that writes memory: atom
      // The instruction takes one entry of its queue until the data path
      // starts on its first request.
      uint8_t queued = 0;  // bit 1: its MIO entry taken, bit 2: its LG entry
      uint32_t requests = 0, global_requests = 0;
      while (w.next_mem < w.tr->mems.size() && w.tr->mems[w.next_mem].inst == idx) {
        const TraceMem& m = w.tr->mems[w.next_mem++];
        any = true;
        const bool shared = m.space == ptx::Space::Shared;
        ++requests;
        global_requests += !shared;
        if (const uint8_t bit = shared ? 1 : 2; !(queued & bit)) {
          queue(sm, sc, shared).push(std::max(double(t), sm.l1_free));
          queued |= bit;
        }
        if (shared) {
          acc_.traced_wavefronts += m.count;
          // A merged LDS costs the widened access's wavefronts.
          const uint16_t cost =
              ti.merge == 2 ? m.wide16() : ti.merge == 1 ? m.wide8() : ti.merge == 3 ? m.wide4() : m.count;
          const double start = std::max(double(t), sm.l1_free);
          // A store takes the LD/ST units' address cycles (params.cpp lsu_request_cycles).
          const uint16_t hold = std::max<uint16_t>(m.write ? p_.lsu_request_cycles : 1, cost);
          sm.l1_free = start + hold;
          acc_.l1_busy_cycles += hold;
          done = std::max(done, uint64_t(sm.l1_free) + p_.lat_shared);
        } else {
          all_shared = false;
          done = std::max(done, global_request(sm, *w.tr, m, t, atomic && m.write, d.float_add));
        }
      }
      // A wmma load or store issues as the SASS instructions it is
      // (decode.h wmma_memory), back to back in the sub-partition's slots.
      if (d.wmma_memory && requests && ti.mask != 0) {
        const uint32_t sass = (d.ldsm && !global_requests ? 1u : requests) + (global_requests ? d.movm : 0u);
        if (sass > 1) {
          sc.issue_free = std::max(sc.issue_free, t + sass);
          acc_.per_pc[ti.pc].issued += sass - 1u;
          acc_.issued += sass - 1u;
        }
      }
      if (any) {
        ready_at = done;
        why = all_shared ? Stall::ShortScoreboard : Stall::LongScoreboard;
        if (d.async_copy) w.async_done = std::max(w.async_done, done);
        global_load = !all_shared && d.plain_load && !d.async_copy;
      } else {
        why = Stall::Wait;  // constant cache or a guard-false access
      }
    }
    // A block's stores and reductions are done when their sectors have left
    // the DRAM queue and the L2 has applied their updates, which may be long
    // after it retires; what it reads, the block waited for.
    if (drained_ > 0) {
      uint64_t& block_done = run_.done_cycle[sm.blocks[w.block_slot].order];
      block_done = std::max(block_done, uint64_t(std::ceil(drained_)));
    }
    // Only registers of an open barrier carry one (a freed barrier clears its members' tags).
    if (!ti.dead && w.load_barriers.open)
      free_barriers(w, dk_.slots.data() + d.first, uint32_t(d.reads) + (ti.renamed ? 0u : d.writes));
    if (ti.mask != 0 && !ti.dead) {
      const uint32_t* sl = dk_.slots.data() + d.first + d.reads;
      const uint32_t barrier = global_load && d.writes ? load_barrier(w, d, ready_at) : 0;
      for (uint32_t i = 0; i < d.writes; ++i) {
        w.scoreboard[sl[i]] = with_barrier(score(ready_at, why), barrier);
        if (w.producers) w.producers[sl[i]] = producer(ti.pc, t);
      }
    }
    if (ti.merge) w.merged_ready = ready_at;
    // mbarrier phase events of this instruction: its contributions (done
    // after the shared-memory latency, a copy's when its bytes have
    // landed); a phase whose last contribution this was releases its waiters.
    for (; w.next_sync < w.tr->syncs.size() && w.tr->syncs[w.next_sync].inst == idx; ++w.next_sync) {
      const TraceSync& s = w.tr->syncs[w.next_sync];
      if (s.wait) continue;
      Block& B = sm.blocks[w.block_slot];
      const uint64_t key = phase_key(s.bar, s.phase);
      Phase& ph = B.phases[key];
      ph.done = std::max(ph.done, bulk_done ? bulk_done : std::max(t + p_.lat_shared, d.async_copy ? w.async_done : 0));
      if (ph.expected && ++ph.seen == ph.expected) release_phase(sm, B, w.block_slot, key, ph, t);
    }
    if (d.lsu) w.lsu_free = t + uint64_t(p_.lsu_issue_interval);
    if (d.branch) w.issue_free = t + uint64_t(p_.branch_stall);
    w.next = idx + 1;
    skip_merged(w, t);
    w.deps_ok = false;
    if (w.next < w.tr->insts.size()) prepare_next(w);
    w.since = t + 1;
    w.next_since = t + 1;
    w.state = Stall::NotSelected;
    w.earliest = t + 1;
    // Its wake entry is written once, below, where its next state is known.
    Block& B = sm.blocks[w.block_slot];
    if (w.next >= w.tr->insts.size()) {
      w.active = false;
      sync_wake(sm, slot);
      note_residency(sm, t + 1);
      --sm.resident_warps;
      --B.live;
      if (B.live == 0) { retire(sm, w.block_slot, t); return; }
      if (B.arrived && B.arrived >= B.live) release_barrier(sm, B, w.block_slot, t);
      return;
    }
    if (d.unit == Unit::Barrier && ti.mask != 0) {
      w.at_barrier = true;
      sync_wake(sm, slot);
      w.state = Stall::Barrier;
      if (++B.arrived >= B.live) release_barrier(sm, B, w.block_slot, t);
    } else {
      if (w.dep_ready > t + 1 && !w.next_waits_phase) {
        // Its next instruction's operands are not ready at t + 1: the check
        // there (the greedy warp's, first) would find that and wait until
        // they are, in the state they give; so it waits from here, and the
        // scheduler is not checked for it until then.
        w.state = w.dep_why;
        w.earliest = w.dep_ready;
      }
      sync_wake(sm, slot);
    }
  }
};

}  // namespace

SliceRun simulate_slice(const DecodedKernel& dk, const CycleParams& p, const SliceConfig& cfg,
                        const std::vector<uint64_t>& blocks, const TraceSource& source, CycleResult& acc) {
  if (acc.per_pc.size() < dk.code.size()) acc.per_pc.resize(dk.code.size());
  Slice s(dk, p, cfg, blocks, source, acc);
  return s.run();
}

}  // namespace lab::sim::cycle
