// lab/sim/cycle/result.cpp: a segment's counters added to a launch's result (result.h).
#include "lab/sim/cycle/result.h"

namespace lab::sim::cycle {

void add_segment(CycleResult& into, const CycleResult& part) {
  into.sim_cycles += part.sim_cycles;
  into.atomic_drain_cycles += part.atomic_drain_cycles;
  into.active_sm_cycles += part.active_sm_cycles;
  into.issued += part.issued;
  into.warp_cycles += part.warp_cycles;
  into.l1_sectors += part.l1_sectors;
  into.l1_hits += part.l1_hits;
  into.l2_sectors += part.l2_sectors;
  into.l2_hits += part.l2_hits;
  into.dram_bytes += part.dram_bytes;
  into.dram_busy_cycles += part.dram_busy_cycles;
  into.l1_busy_cycles += part.l1_busy_cycles;
  into.traced_sectors += part.traced_sectors;
  into.traced_wavefronts += part.traced_wavefronts;
  into.merged_loads += part.merged_loads;
  into.folded_instructions += part.folded_instructions;
  for (size_t s = 0; s < into.stall.size(); ++s) into.stall[s] += part.stall[s];
  if (into.per_pc.size() < part.per_pc.size()) into.per_pc.resize(part.per_pc.size());
  for (size_t pc = 0; pc < part.per_pc.size(); ++pc) {
    into.per_pc[pc].issued += part.per_pc[pc].issued;
    for (size_t s = 0; s < part.per_pc[pc].stall.size(); ++s) into.per_pc[pc].stall[s] += part.per_pc[pc].stall[s];
  }
  into.events.insert(into.events.end(), part.events.begin(), part.events.end());
  into.spans.insert(into.spans.end(), part.spans.begin(), part.spans.end());
  into.async_spans.insert(into.async_spans.end(), part.async_spans.begin(), part.async_spans.end());
}

}  // namespace lab::sim::cycle
