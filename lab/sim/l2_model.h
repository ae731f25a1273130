// lab/sim/l2_model.h: the L2 cache between the SMs and DRAM, which turns a
// warp's global sector requests into DRAM traffic: 128-byte lines of four
// 32-byte sectors with per-sector valid and dirty bits, set-associative,
// LRU within a set, write-back.
//
// It sits on the interpreter's hot path (every global request of every warp),
// so: one tag lookup per line a request touches, not per sector; an LRU clock
// per set, not one shared counter; a lock per set taken only when several
// workers share the cache; and the tag arrays built once per process and
// reused by later launches of the same geometry (each set is emptied lazily,
// on its first access in a launch).
#pragma once

#include <cstdint>
#include <cstddef>
#include <vector>
#include <memory>

#include "lab/sim/memory_cost.h"

namespace lab::sim {

// A range of 128-byte lines (numbers [first_line, end_line): addresses /
// 128) whose misses a sampled-only run's L2 fetches from DRAM at `fraction`
// (L2Model::set_fetch_fractions; cycle/corunners.h estimates them per
// buffer, `buffer` its index in the list it was given).
struct FetchRange {
  uint64_t first_line = 0, end_line = 0;
  double fraction = 1;
  size_t buffer = 0;
};

// x mod d without a division (a 64-bit divide costs tens of cycles on every
// line lookup, and a GPU's set count is rarely a power of two: H100's 50 MB
// in 16 ways is 25,600 sets). Lemire, Kaser and Kurz, "Faster Remainder by
// Direct Computation" (2019), Theorem 1: with c = ceil(2^F / d) and
// F >= N + log2(d), x mod d = ((c * x) mod 2^F) * d >> F for every N-bit x;
// here F = 128 and N = 64, so the remainder is exact for d < 2^64.
struct FastMod {
  unsigned __int128 c = 0;
  uint64_t d = 1;
  explicit FastMod(uint64_t divisor) : c(~(unsigned __int128)0 / divisor + 1), d(divisor) {}
  uint64_t operator()(uint64_t x) const {
    const unsigned __int128 low = c * x;  // mod 2^128
    // (low * d) >> 128, from the two 64-bit halves of low.
    const unsigned __int128 lo_part = ((unsigned __int128)uint64_t(low) * d) >> 64;
    const unsigned __int128 hi_part = (low >> 64) * d;
    return uint64_t((lo_part + hi_part) >> 64);
  }
};

constexpr uint32_t kL2Ways = 16;  // the model's associativity, every GPU

class L2Model {
 public:
  explicit L2Model(uint64_t capacity_bytes);
  ~L2Model();
  L2Model(const L2Model&) = delete;
  L2Model& operator=(const L2Model&) = delete;
  // Returns the DRAM sectors (32 bytes each) the `n` sector accesses cause.
  // Reads: sectors not present in L2 (fetched from DRAM). Writes: sectors
  // that become dirty in this write-back L2; each is written to DRAM once,
  // at eviction or at the end of the kernel, so counting it here gives the
  // kernel's DRAM write bytes without a flush. Sectors of one line should
  // come together (sorted, as the interpreter sends them): each run of them
  // is one lookup.
  //
  // `who` (optional) is the block making the request: a line it touched
  // itself before, and has not touched since while it claimed more than
  // set_block_reuse's lines, is fetched again (see there).
  struct Requester {
    uint32_t block = 0;       // the block's linear index
    uint32_t* claims = nullptr;  // lines the block has brought in or taken over so far (BlockState::l2_claims)
  };
  uint32_t access(const uint64_t* sectors, uint32_t n, bool is_write, const Requester* who = nullptr);
  uint64_t capacity_bytes() const { return capacity_; }
  // Empties the cache and gives it a new capacity. Not to be
  // called while another thread accesses it.
  void resize(uint64_t capacity_bytes);
  // Several threads will call access() at once (the launch's workers): each
  // set is then locked while it is read and updated. Off (the default), no
  // lock is taken. Not to be changed while another thread accesses it.
  void set_concurrent(bool concurrent) { concurrent_ = concurrent; }
  // A sampled-only run (launch.cpp) sends this cache the reads of a few
  // blocks, where on the GPU the blocks on every other SM read many of the
  // same lines at about the same time, and only the first of them fetches a
  // line from DRAM. `fraction` (0..1] of the lines this cache misses on a
  // read are fetched from DRAM; the others (chosen by a hash of the line,
  // the same in every run) another SM brought in: they become present and
  // cost no DRAM sector. 1, the default, for every other run.
  void set_fetch_fraction(double fraction);
  // The same per range of lines (FetchRange, sorted, disjoint): a miss in a
  // range is fetched at its fraction, elsewhere at set_fetch_fraction's.
  void set_fetch_fractions(const std::vector<FetchRange>& ranges);
  // A block's own reuse, as the GPU sees it. The interpreter runs a block
  // from start to end, so between two touches of a line by the same block
  // the cache here has seen only that block's lines; on the GPU every block
  // resident at the same time claimed about as many in between. A line a
  // block touches again after claiming more than `lines` others (the L2's
  // lines over the blocks resident GPU-wide) is fetched again, as the GPU's
  // LRU would have evicted it. 0 (the default): off.
  void set_block_reuse(uint32_t lines) { block_reuse_ = lines; }
  // Bytes the L2 fetches from DRAM for a missed read sector: 32 (the
  // default: the sector alone) or 64 (the sector and its neighbour in the
  // 64-byte half-line, both then present; the GPU model's measurement,
  // device.h l2_fetch_bytes).
  void set_fetch_bytes(uint32_t bytes) { fetch_pairs_ = bytes >= 64; }

  struct Sets;  // l2_model.cpp

 private:
  std::unique_ptr<Sets> sets_;
  uint64_t capacity_ = 0;
  bool concurrent_ = false;
  uint32_t fetch_threshold_ = kFetchAll;  // set_fetch_fraction, in 1/2^24
  struct FetchThreshold {
    uint64_t first = 0, end = 0;
    uint32_t threshold = 0;
  };
  std::vector<FetchThreshold> fetch_ranges_;  // set_fetch_fractions
  bool sampled_fetch_ = false;            // either is set: a miss may be another SM's fetch
  uint32_t fetch_threshold_of(uint64_t line) const;
  uint32_t block_reuse_ = 0;              // set_block_reuse
  bool fetch_pairs_ = false;              // set_fetch_bytes(64)
  static constexpr uint32_t kFetchAll = 1u << 24;
};

}  // namespace lab::sim
