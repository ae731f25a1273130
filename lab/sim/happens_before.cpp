// lab/sim/happens_before.cpp: vector clocks over a block's warps (happens_before.h).
#include "lab/sim/happens_before.h"

#include <algorithm>
#include <bit>

namespace lab::sim {

void HappensBefore::reset(uint32_t warps) {
  n_ = warps;
  vc_.assign(size_t(n_) * n_, 1);  // time 1 everywhere: nothing ordered yet
  for (auto& b : barriers_) b = BarrierArrivals{};
  published_.assign(n_, 0);
  fence_clock_.assign(n_, Clock{});
  acquired_.assign(n_, Clock{});
  released_.clear();
}

void HappensBefore::release_into(uint32_t warp, Clock& into) {
  if (into.size() != n_) into.assign(n_, 0);
  const uint32_t* mine = &vc_[size_t(warp) * n_];
  for (uint32_t y = 0; y < n_; ++y) into[y] = std::max(into[y], mine[y]);
  const uint32_t next = time(warp) + 1;
  into[warp] = std::max(into[warp], next);
  vc_[size_t(warp) * n_ + warp] = next;
}

void HappensBefore::join(uint32_t warp, const Clock& from) {
  if (from.size() != n_) return;
  uint32_t* mine = &vc_[size_t(warp) * n_];
  for (uint32_t y = 0; y < n_; ++y)
    if (y != warp) mine[y] = std::max(mine[y], from[y]);
}

void HappensBefore::barrier_arrive(uint32_t id, uint32_t warp, bool waits) {
  if (id >= barriers_.size() || warp >= n_) return;
  BarrierArrivals& b = barriers_[id];
  release_into(warp, b.published);
  if (waits && warp < 32) b.waiters |= 1u << warp;
}

void HappensBefore::barrier_complete(uint32_t id) {
  if (id >= barriers_.size()) return;
  BarrierArrivals& b = barriers_[id];
  for (uint32_t m = b.waiters; m; m &= m - 1) join(uint32_t(std::countr_zero(m)), b.published);
  b = BarrierArrivals{};
}

void HappensBefore::publish(uint32_t warp) {
  if (warp < n_) release_into(warp, published_);
}

void HappensBefore::acquire_published(uint32_t warp) {
  if (warp < n_) join(warp, published_);
}

void HappensBefore::fence(uint32_t warp) {
  if (warp >= n_) return;
  // Acquire pattern: strong reads, then this fence.
  if (!acquired_[warp].empty()) {
    join(warp, acquired_[warp]);
    acquired_[warp].clear();
  }
  // Release pattern: this fence, then a strong write, covers what came
  // before the fence (not what the warp does between the two).
  release_into(warp, fence_clock_[warp]);
}

void HappensBefore::strong_access(uint32_t warp, const uint64_t* keys, uint32_t count, bool reads, bool writes,
                                  bool acquire, bool release) {
  if (warp >= n_) return;
  if (reads) {
    for (uint32_t i = 0; i < count; ++i) {
      auto it = released_.find(keys[i]);
      if (it == released_.end()) continue;
      if (acquire) {
        join(warp, it->second);
      } else {  // relaxed: an acquire only with a fence after it
        Clock& a = acquired_[warp];
        if (a.size() != n_) a.assign(n_, 0);
        for (uint32_t y = 0; y < n_; ++y) a[y] = std::max(a[y], it->second[y]);
      }
    }
  }
  if (writes && (release || !fence_clock_[warp].empty())) {
    Clock now;
    if (release) release_into(warp, now);  // .release covers everything before it
    const Clock& c = release ? now : fence_clock_[warp];
    for (uint32_t i = 0; i < count; ++i) {
      Clock& r = released_[keys[i]];
      if (r.size() != n_) r.assign(n_, 0);
      for (uint32_t y = 0; y < n_; ++y) r[y] = std::max(r[y], c[y]);
    }
  }
}

}  // namespace lab::sim
