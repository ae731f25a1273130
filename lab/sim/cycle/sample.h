// lab/sim/cycle/sample.h: which blocks the cycle model times, and how their
// time scales to the whole grid.
//
// A launch of W waves (W = blocks / (SMs x blocks per SM)) is timed on a
// slice of S SMs spread over the SMs each wave keeps busy (a low-discrepancy
// sample, SM 0 included), each with the blocks the GPU would place on it (SM j: blocks
// j, j + SMs, ... of the wave; in the last wave, as many as an SM holds in
// the tail). The slice gets S / (busy SMs)
// of the L2 and DRAM bandwidth. Up to 8 waves are simulated back to back;
// longer launches are timed as the first two waves, three waves in the
// middle and the last three, and the waves between the first two and the
// last three are counted at the steady per-wave rate the middle segment
// gives (steady_wave_cycles).
// With S = the GPU's SM count every block is simulated (a full run).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lab::sim::cycle {

// The largest slice the automatic choice makes (timed_launch.cpp). A launch
// of one wave or less gets up to twice as many: it has no later waves whose
// blocks average out which of them read an input first (the slice's share of
// first touches is its own luck), and its work is one wave's, so the work
// budget, not this cap, bounds it.
constexpr uint32_t kMaxAutoSliceSms = 8;
constexpr uint32_t kMaxAutoSliceSmsOneWave = 16;

struct SampleSegmentPlan {
  std::vector<uint64_t> blocks;        // in placement order
  std::vector<uint32_t> wave_of;       // per block: the wave (relative to the segment's first)
  uint32_t first_wave = 0, waves = 0;
  std::string what;
};

struct SamplePlan {
  bool full = false;
  uint32_t slice_sms = 1, blocks_per_sm = 1;
  uint64_t blocks = 0, waves = 0;
  double bandwidth_share = 1;
  uint64_t tail_first_block = ~0ull;  // first block of the last wave when it is partial
  double tail_bandwidth_share = 1;    // the slice's share while the last wave runs (fewer SMs busy)
  std::vector<SampleSegmentPlan> segments;  // ascending, non-overlapping block ids
  uint64_t middle_waves_scaled = 0;         // waves counted at the steady rate
};

// `slice_sms` 0 = kMaxAutoSliceSms; >= sm_count = a full run.
SamplePlan plan_sample(uint64_t blocks, uint32_t sm_count, uint32_t blocks_per_sm, uint32_t slice_sms);

// The steady per-wave time of a segment that starts on an empty slice, from
// when its blocks' work is done (SliceRun::done_cycle, in the segment's
// block order): the spacing of its waves' mean done cycles, from its first
// wave to its last but one. The last wave is left out: no wave follows it,
// so its later blocks have the slice to themselves and finish early (the
// drain). 0 when the segment has fewer than two waves or the spacing is not
// positive.
double steady_wave_cycles(const SampleSegmentPlan& segment, const std::vector<uint64_t>& done_cycle);

// Kernel cycles from the segments' simulated cycles, the middle segment's
// steady_wave_cycles (0: unknown) and the cycles per wave its busiest shared
// path (DRAM, L2, an SM's L1 data path) was busy: the middle waves at the
// lower of the spacing and the segment's cycles per wave, and no less than
// the busiest path's. `turnaround` (CycleParams::block_turnaround): each
// segment ends as its last block retires, but on the GPU the next wave's
// blocks start a turnaround after the slots they take came free, so it is
// counted where one segment meets the next and once more in the middle
// segment's cycles per wave (the wave after its last).
double stitch_cycles(const SamplePlan& plan, const std::vector<uint64_t>& segment_cycles, double steady_wave,
                     double busiest_wave = 0, double turnaround = 0);

}  // namespace lab::sim::cycle
