// lab/sim/events.h: the event stream the views consume (block placed, warp
// instruction with its lane addresses and cost, block retired). Views
// include this and metrics.h, never the interpreter.
#pragma once

#include <cstdint>

#include "lab/ptx/module.h"

namespace lab::sim {

// ---- events for the views ----------------------------------------------------
// Switchable: with no sink the interpreter does no event work.
struct WarpEvent {
  enum Kind : uint8_t { BlockPlaced, WarpInstr, Barrier, BlockRetired } kind;
  uint32_t block_linear = 0;  // linear block index in the grid
  uint32_t sm = 0;            // modelled SM the block is placed on
  uint32_t warp = 0;          // warp index in the block
  uint32_t pc = 0;
  uint32_t active_mask = 0;
  uint64_t seq = 0;           // global order (per worker, merged by time)
  // For memory instructions: the 32 lane addresses (0 for inactive lanes),
  // the space and access size. Sectors / wavefronts are as counted.
  ptx::Space space = ptx::Space::Generic;
  uint8_t access_bytes = 0;
  bool is_store = false;
  uint32_t sectors = 0, wavefronts = 0, ideal_wavefronts = 0;
  uint64_t lane_addr[32] = {};
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Called from worker threads; implementations must be thread-safe.
  virtual void on_event(const WarpEvent& e) = 0;
};

}  // namespace lab::sim
