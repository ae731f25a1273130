// lab/sim/simt.cpp: parking, rejoining and yielding SIMT paths (simt.h).
//
// The stack's shape, which every move keeps: above the current path (rpc r)
// lie its siblings (entries with rpc r, other sides of a branch still to
// run) and then r's reconvergence entry (pc r, the lanes that meet there,
// rpc r'); above that, siblings with rpc r', the entry for r', and so on.
#include "lab/sim/simt.h"

#include <utility>

namespace lab::sim {

void retire_lanes(WarpState& w, uint32_t m) {
  w.live &= ~m;
  w.mask &= ~m;
  for (SimtEntry& e : w.stack) e.mask &= ~m;
}

void park_lanes(WarpState& w, uint32_t m, uint32_t pc) {
  w.mask &= ~m;
  for (SimtEntry& e : w.stack) e.mask &= ~m;
  w.parked |= m;
  w.parked_pc = pc;
}

void rejoin_lanes(WarpState& w, uint32_t m) {
  w.mask |= m;
  // Along the chain of reconvergence entries only: siblings are branch sides
  // the parked lanes never took.
  uint32_t r = w.rpc;
  for (size_t i = w.stack.size(); i-- > 0;) {
    SimtEntry& e = w.stack[i];
    if (e.rpc == r) continue;  // a sibling
    if (e.pc != r) break;      // not the shape above; leave the rest alone
    e.mask |= m;
    r = e.rpc;
  }
}

bool yield_path(WarpState& w) {
  while (!w.stack.empty()) {
    SimtEntry& t = w.stack.back();
    if (t.rpc == w.rpc) {  // a sibling: run it first, this path after it
      SimtEntry cur{w.pc, w.mask, w.rpc};
      w.pc = t.pc;
      w.mask = t.mask;
      std::swap(t, cur);
      return true;
    }
    if (t.pc != w.rpc) return false;
    const uint32_t waiting = t.mask & ~w.mask;
    if (waiting) {
      // Lanes wait at this path's reconvergence point r: let them run on
      // from r to r's own reconvergence point r', and make this path their
      // sibling there. Reconvergence at r is given up; at r' it still holds.
      const uint32_t r = t.pc, outer = t.rpc;
      t = SimtEntry{w.pc, w.mask, outer};
      w.pc = r;
      w.mask = waiting;
      w.rpc = outer;
      return true;
    }
    // Nobody else meets at r: reconverging there means nothing, drop it.
    w.rpc = t.rpc;
    w.stack.pop_back();
  }
  return false;
}

}  // namespace lab::sim
