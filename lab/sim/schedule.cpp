// lab/sim/schedule.cpp: waves, tail and achieved occupancy of a grid.
#include "lab/sim/schedule.h"

#include <algorithm>
#include <cassert>

namespace lab::sim {

Schedule schedule_blocks(const GpuModel& gpu, uint64_t blocks, uint32_t block_threads, uint32_t blocks_per_sm) {
  assert(blocks_per_sm >= 1 && gpu.sm_count >= 1);
  Schedule s;
  s.blocks = blocks;
  s.sm_count = uint32_t(gpu.sm_count);
  s.blocks_per_sm = blocks_per_sm;
  s.warps_per_block = (block_threads + uint32_t(gpu.warp_size) - 1) / uint32_t(gpu.warp_size);
  s.max_warps_per_sm = uint32_t(gpu.max_warps_per_sm);
  s.blocks_per_wave = uint64_t(s.sm_count) * blocks_per_sm;
  s.theoretical_occupancy = double(blocks_per_sm * s.warps_per_block) / s.max_warps_per_sm;
  if (blocks == 0) return s;
  s.waves = (blocks + s.blocks_per_wave - 1) / s.blocks_per_wave;
  s.waves_fractional = double(blocks) / double(s.blocks_per_wave);
  s.tail_blocks = blocks - (s.waves - 1) * s.blocks_per_wave;
  s.tail_fill = double(s.tail_blocks) / double(s.blocks_per_wave);
  s.sms_used = uint32_t(std::min<uint64_t>(blocks, s.sm_count));
  s.last_wave_blocks_per_sm = uint32_t((s.tail_blocks + s.sm_count - 1) / s.sm_count);

  // Per SM: n_s blocks over its active waves. Blocks go round-robin, so SM
  // i holds in the last wave ceil or floor of tail_blocks / sm_count blocks.
  double sum = 0;
  for (uint32_t sm = 0; sm < s.sms_used; ++sm) {
    uint64_t in_tail = s.tail_blocks / s.sm_count + (sm < s.tail_blocks % s.sm_count ? 1 : 0);
    uint64_t full_waves = s.waves - 1;
    uint64_t active_waves = full_waves + (in_tail ? 1 : 0);
    uint64_t block_waves = full_waves * blocks_per_sm + in_tail;  // block x wave slots it ran
    if (!active_waves) continue;
    sum += double(block_waves * s.warps_per_block) / double(active_waves * s.max_warps_per_sm);
  }
  s.achieved_occupancy = s.sms_used ? sum / s.sms_used : 0;
  return s;
}

}  // namespace lab::sim
