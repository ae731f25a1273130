// lab/sim/cycle/sample.cpp: the sampling plan and its scaling (sample.h).
#include "lab/sim/cycle/sample.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace lab::sim::cycle {

namespace {
constexpr uint32_t kDefaultSliceSms = kMaxAutoSliceSms;
constexpr uint64_t kMaxSimulatedWaves = 8;  // from 9 waves on the three segments do not overlap
}  // namespace

SamplePlan plan_sample(uint64_t blocks, uint32_t sm_count, uint32_t blocks_per_sm, uint32_t slice_sms) {
  SamplePlan p;
  sm_count = std::max(1u, sm_count);
  blocks_per_sm = std::max(1u, blocks_per_sm);
  p.blocks = blocks;
  p.blocks_per_sm = blocks_per_sm;
  const uint64_t wave = uint64_t(sm_count) * blocks_per_sm;
  p.waves = (blocks + wave - 1) / wave;
  uint32_t S = slice_sms ? slice_sms : kDefaultSliceSms;
  if (S >= sm_count) {
    p.full = true;
    p.slice_sms = sm_count;
    p.bandwidth_share = 1;
    SampleSegmentPlan seg;
    seg.what = fmt::format("every block on all {} SMs", sm_count);
    seg.first_wave = 0;
    seg.waves = uint32_t(p.waves);
    for (uint64_t b = 0; b < blocks; ++b) {
      seg.blocks.push_back(b);
      seg.wave_of.push_back(uint32_t(b / wave));
    }
    p.segments.push_back(std::move(seg));
    return p;
  }
  p.slice_sms = S;
  // Busy SMs share L2 and DRAM; the slice gets its part.
  const double busy = double(std::min<uint64_t>(sm_count, blocks));
  p.bandwidth_share = std::min(1.0, double(S) / busy);
  const uint64_t tail = blocks - (p.waves - 1) * wave;
  const uint64_t tail_per_sm = std::min<uint64_t>(blocks_per_sm, (tail + sm_count - 1) / sm_count);
  if (p.waves > 1 && tail < uint64_t(sm_count)) {
    p.tail_first_block = (p.waves - 1) * wave;
    p.tail_bandwidth_share = std::min(1.0, double(S) / double(tail));
  }
  auto wave_blocks = [&](uint64_t k, SampleSegmentPlan& seg, uint32_t rel) {
    // The slice stands for S SMs spread over the SMs the wave keeps busy
    // (SM 0 included), each with the blocks the GPU places on it: the block
    // scheduler deals a wave's blocks round-robin over the SMs, so SM j holds
    // blocks j, j + SMs, j + 2 SMs, ... of the wave. The SMs are the first S
    // points of the golden-ratio (Kronecker) sequence, a low-discrepancy
    // sample: evenly spaced SMs alias with the grid's rows (with 64 blocks of
    // an 8-wide grid and S = 8 every one would be in column 0), and a run of
    // consecutive blocks shares its rows; either way the sample's blocks
    // would not have the grid's mix of first and later touches of the inputs.
    const uint64_t base = k * wave;
    const uint64_t in_wave = std::min(wave, blocks - base);
    const uint64_t per_sm = k + 1 == p.waves ? tail_per_sm : blocks_per_sm;
    const uint64_t used = std::min<uint64_t>(sm_count, in_wave);  // SMs this wave keeps busy
    const uint64_t n_sms = std::min<uint64_t>(S, used);
    std::vector<uint64_t> sms(n_sms);
    constexpr double kGoldenFraction = 0.6180339887498949;  // (sqrt(5) - 1) / 2
    for (uint64_t j = 0; j < n_sms; ++j) {
      const double x = double(j) * kGoldenFraction;
      sms[j] = std::min(used - 1, uint64_t((x - std::floor(x)) * double(used)));
    }
    std::sort(sms.begin(), sms.end());
    if (std::adjacent_find(sms.begin(), sms.end()) != sms.end())  // collisions (S close to the SMs used)
      for (uint64_t j = 0; j < n_sms; ++j) sms[j] = j * used / n_sms;
    for (uint64_t m = 0; m < per_sm; ++m)
      for (uint64_t j : sms) {
        const uint64_t b = base + j + m * sm_count;
        if (b >= base + in_wave) continue;
        seg.blocks.push_back(b);
        seg.wave_of.push_back(rel);
      }
  };
  auto segment = [&](uint64_t from, uint64_t count, std::string what) {
    SampleSegmentPlan seg;
    seg.first_wave = uint32_t(from);
    seg.waves = uint32_t(count);
    seg.what = std::move(what);
    for (uint64_t k = 0; k < count; ++k) wave_blocks(from + k, seg, uint32_t(k));
    p.segments.push_back(std::move(seg));
  };
  if (p.waves <= kMaxSimulatedWaves) {
    segment(0, p.waves, p.waves == 1 ? "wave 0" : fmt::format("waves 0-{}", p.waves - 1));
  } else {
    const uint64_t m = p.waves / 2 - 1;
    segment(0, 2, "waves 0-1");
    segment(m, 3, fmt::format("waves {}-{} (steady per-wave rate)", m, m + 2));
    segment(p.waves - 3, 3, fmt::format("waves {}-{}", p.waves - 3, p.waves - 1));
    p.middle_waves_scaled = p.waves - 5;  // waves 2 .. W-4
  }
  return p;
}

double steady_wave_cycles(const SampleSegmentPlan& segment, const std::vector<uint64_t>& done_cycle) {
  if (segment.waves < 2 || done_cycle.size() != segment.wave_of.size()) return 0;
  std::vector<double> sum(segment.waves, 0.0);
  std::vector<uint64_t> n(segment.waves, 0);
  for (size_t i = 0; i < done_cycle.size(); ++i) {
    const uint32_t k = segment.wave_of[i];
    if (k >= segment.waves) continue;
    sum[k] += double(done_cycle[i]);
    ++n[k];
  }
  const uint32_t last = segment.waves > 2 ? segment.waves - 2 : 1;  // the last wave drains: left out
  if (!n[0] || !n[last]) return 0;
  const double spacing = (sum[last] / double(n[last]) - sum[0] / double(n[0])) / double(last);
  return spacing > 0 ? spacing : 0;
}

double stitch_cycles(const SamplePlan& plan, const std::vector<uint64_t>& segment_cycles, double steady_wave,
                     double busiest_wave, double turnaround) {
  if (plan.segments.size() == 1) return double(segment_cycles[0]);
  // The waves between the first segment and the last are counted at the
  // middle segment's steady per-wave time. Both ways of reading it from the
  // segment read high, for different reasons, so the lower stands: its cycles
  // per wave count its fill and drain in every wave, most of a wave where a
  // block lives about a memory latency (gpu-benches' stream read on the
  // H100: 20% above the full run; the waves' spacing 2% below); the spacing
  // of its first two waves still holds some of the fill where it lasts
  // beyond the first wave (stream triad on the H100: 8% above the full run,
  // its cycles per wave 5%). No wave is shorter than its busiest shared
  // path: where the first wave's stores queue behind its own loads, the
  // spacing reads low (STREAM triad on the V100: 7% below the full run,
  // where the DRAM queue's share of the wave is the full run's to 0.1%).
  double steady = (double(segment_cycles[1]) + turnaround) / double(plan.segments[1].waves);
  if (steady_wave > 0) steady = std::min(steady, steady_wave);
  steady = std::max(steady, busiest_wave);
  return double(segment_cycles[0]) + turnaround + double(plan.middle_waves_scaled) * steady + double(segment_cycles[2]);
}

}  // namespace lab::sim::cycle
