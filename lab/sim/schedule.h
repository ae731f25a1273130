// lab/sim/schedule.h: how a grid's blocks land on a GPU model's SMs.
//
// The block scheduler fills every SM up to the occupancy limit (blocks per
// SM), then starts a new block on an SM whenever one retires. With blocks of
// equal duration this is a sequence of waves: `sm_count x blocks_per_sm`
// blocks at a time, the last wave possibly partial (the tail effect).
// Block b goes to SM b % sm_count (round-robin over SMs, as the hardware's
// first wave does), which the interpreter uses for %smid and for events.
#pragma once

#include <cstdint>

#include "lab/sim/device.h"

namespace lab::sim {

struct Schedule {
  uint64_t blocks = 0;             // grid size
  uint32_t sm_count = 0;
  uint32_t blocks_per_sm = 0;      // occupancy limit
  uint32_t warps_per_block = 0;
  uint32_t max_warps_per_sm = 0;
  uint64_t blocks_per_wave = 0;    // sm_count x blocks_per_sm
  uint64_t waves = 0;              // ceil(blocks / blocks_per_wave)
  double waves_fractional = 0;     // blocks / blocks_per_wave (2.1 = two full waves and a 10% tail)
  uint64_t tail_blocks = 0;        // blocks in the last wave
  double tail_fill = 0;            // tail_blocks / blocks_per_wave: 1 = no tail effect
  uint32_t sms_used = 0;           // SMs that receive at least one block
  uint32_t last_wave_blocks_per_sm = 0;  // most blocks an SM holds in the last wave
  double theoretical_occupancy = 0;
  // Active warps over active cycles, averaged over the SMs that ran blocks,
  // with equal block durations (Nsight's sm__warps_active...pct_of_peak_sustained_active).
  double achieved_occupancy = 0;

  uint32_t sm_of(uint64_t block_linear) const { return uint32_t(block_linear % sm_count); }
  uint64_t wave_of(uint64_t block_linear) const { return block_linear / blocks_per_wave; }
};

// blocks_per_sm comes from occupancy (compute_occupancy(...).blocks_per_sm), >= 1.
Schedule schedule_blocks(const GpuModel& gpu, uint64_t blocks, uint32_t block_threads, uint32_t blocks_per_sm);

}  // namespace lab::sim
