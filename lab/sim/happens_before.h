// lab/sim/happens_before.h: which memory accesses of a block's warps are
// ordered, for the race checks (sanitize.cpp).
//
// A vector clock per warp. Warp w's own clock counts the synchronisations it
// has published; its entry for warp y says how far y's accesses are known
// to happen before w's next ones: an access y made at y-time t is ordered
// before w's next access iff t < clock_w[y]. What orders warps, each as CUDA
// and the PTX ISA define it:
//   barriers    bar.sync / barrier.sync / bar.red, block-wide or named with
//               a thread count, and bar.arrive: each arrival publishes the
//               warp's accesses so far; when the barrier completes, the warps
//               that waited acquire what every arrival of it published
//               (PTX ISA 9.7.13.4: named barriers order only their threads);
//   mbarriers   an arrive (or a bulk copy's complete_tx) publishes; a
//               completed wait acquires everything published so far (every
//               mbarrier at once: a race between pipelines can be missed, a
//               correct handoff is never reported);
//   locks       a release (a fence, then a strong write or atomic: what
//               came before the fence; or a .release / .acq_rel operation:
//               what came before it) publishes at its address; an
//               acquire (a strong read or atomic there, then a fence; or an
//               .acquire operation) takes what was published there (PTX ISA
//               8.x memory consistency model: release and acquire patterns).
// Lanes of one warp are ordered by __syncwarp() instead (sanitize.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace lab::sim {

class HappensBefore {
 public:
  void reset(uint32_t warps);

  // Warp w's own clock: the time stamp of its accesses now (from 1).
  uint32_t time(uint32_t w) const { return vc_[std::size_t(w) * n_ + w]; }
  // Warp x's clock: entry y is the y-time before which y's accesses are ordered before x's next.
  const uint32_t* row(uint32_t x) const { return &vc_[std::size_t(x) * n_]; }
  // Warp y's access at y-time t happens before warp x's next access.
  bool ordered(uint32_t y, uint32_t t, uint32_t x) const { return y == x || t < vc_[std::size_t(x) * n_ + y]; }

  void barrier_arrive(uint32_t id, uint32_t warp, bool waits);
  void barrier_complete(uint32_t id);
  void publish(uint32_t warp);
  void acquire_published(uint32_t warp);
  void fence(uint32_t warp);
  // A strong access (atomic, volatile, relaxed, acquire, release) by `warp`
  // to the locations `keys`: acquire what was released there, then release.
  void strong_access(uint32_t warp, const uint64_t* keys, uint32_t count, bool reads, bool writes, bool acquire,
                     bool release);

 private:
  using Clock = std::vector<uint32_t>;
  // into = max(into, warp's clock with its own entry one past now); the warp
  // moves to its next time, so what it does later is not covered.
  void release_into(uint32_t warp, Clock& into);
  void join(uint32_t warp, const Clock& from);

  struct BarrierArrivals {
    Clock published;       // what the arrivals so far published
    uint32_t waiters = 0;  // warps (bits) waiting for it to complete
  };

  uint32_t n_ = 0;
  Clock vc_;                                     // n_ x n_: vc_[w * n_ + y]
  std::array<BarrierArrivals, 16> barriers_;     // bar ids 0..15
  Clock published_;                              // mbarrier arrivals so far
  std::vector<Clock> fence_clock_;               // per warp: its clock at its last fence (empty: none yet)
  std::vector<Clock> acquired_;                  // per warp: read from releases, joined at its next fence
  std::unordered_map<uint64_t, Clock> released_; // per location: what releases there published
};

}  // namespace lab::sim
