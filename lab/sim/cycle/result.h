// lab/sim/cycle/result.h: what the cycle-level SM model reports for one
// launch. Every time here is a PREDICTION of the model, never a measurement.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "lab/sim/cycle/stall.h"

namespace lab::sim::cycle {

// Per instruction (pc): issues and the warp-cycles spent waiting to issue it,
// by state (Nsight's source-level "Warp Stall Sampling" counts, every cycle
// instead of sampled).
struct PcCycles {
  uint64_t issued = 0;
  std::array<uint64_t, kStallCount> stall{};
};

// One issue of one warp, for the live view (TimingOptions::events): when it
// issued, and what it waited on before (the state it was in, from when).
struct IssueEvent {
  uint64_t cycle = 0;        // the issue cycle (segment-local; see `segment`)
  uint64_t wait_from = 0;    // first cycle of the waiting interval before it
  uint32_t block = 0;        // linear block index
  uint16_t sm = 0;           // SM of the slice
  uint16_t warp = 0;         // warp in the block
  uint32_t pc = 0;
  Stall reason = Stall::Selected;  // the state of [wait_from, cycle) (Selected: no wait)
  uint8_t segment = 0;
  uint8_t block_slot = 0;    // the block's slot on its SM: the warp's slot is block_slot x warps per block + warp
  uint8_t scheduler = 0;     // the SM sub-partition (scheduler) that issued it
  // The instruction whose result this one waited for (a register it reads or
  // writes, written by a load, a multiply, ...) and that one's issue cycle;
  // -1 when its operands were ready when its wait began.
  int32_t waited_pc = -1;
  uint64_t waited_issue = 0;
};

// One interval a warp spent in one waiting state (TimingOptions::events):
// every state change is kept, so a wait that began on long_scoreboard and
// ended not_selected shows both parts (IssueEvent keeps only the last).
struct WarpSpan {
  uint64_t from = 0, to = 0;  // [from, to), segment-local cycles
  uint32_t block = 0;
  uint16_t sm = 0, warp = 0;
  uint8_t block_slot = 0, scheduler = 0;
  Stall reason = Stall::NotSelected;
  uint8_t segment = 0;
};

// One interval an SM's asynchronous unit worked for a warp (TimingOptions::
// events): the copy engine on a TMA or bulk copy (issue to the last byte
// landed), or a sub-partition's tensor pipe on a wgmma.
enum class AsyncUnit : uint8_t { CopyEngine, Wgmma };
struct AsyncSpan {
  uint64_t from = 0, to = 0;  // [from, to), segment-local cycles
  uint16_t sm = 0;
  uint8_t scheduler = 0;      // the tensor pipe's sub-partition (wgmma)
  uint8_t segment = 0;
  AsyncUnit unit = AsyncUnit::CopyEngine;
};

struct SampleSegment {
  std::string what;          // "waves 0-1", "waves 7-9 (steady)", ...
  uint64_t first_block = 0, blocks = 0;
  uint64_t cycles = 0;       // simulated cycles of the segment
};

struct CycleResult {
  // ---- the prediction ------------------------------------------------------------
  double cycles = 0;          // predicted kernel duration in SM cycles (whole grid)
  double time_s = 0;          // cycles / clock + launch overhead
  double launch_overhead_s = 0;
  // ---- what was simulated --------------------------------------------------------
  bool sampled = false;       // false: every block, every SM, cycle by cycle
  uint32_t slice_sms = 0;     // SMs simulated together
  uint32_t sm_count = 0;      // SMs of the GPU model
  uint32_t blocks_per_sm = 0; // occupancy limit used
  uint64_t blocks_total = 0, blocks_timed = 0;
  double waves = 0;
  std::vector<SampleSegment> segments;
  std::string sample_note;    // one sentence: what was sampled and how it was scaled
  // A sampled-only run: the share of its missed reads its own SMs fetched
  // from DRAM (corunners.h); 1 for every other run.
  double first_read_fetch_fraction = 1;
  std::string scheduler = "GTO";
  // ---- Nsight-style metrics of the timed blocks ------------------------------------
  uint64_t sim_cycles = 0;          // SM cycles simulated (sum over segments, per slice)
  uint64_t atomic_drain_cycles = 0; // of those, cycles after the last warp retired while the L2 applied queued atomics
  uint64_t active_sm_cycles = 0;    // sum over SMs of cycles with >= 1 resident warp
  uint64_t issued = 0;              // warp instructions issued
  uint64_t warp_cycles = 0;         // sum over SMs of resident warps x cycles
  uint32_t max_warps_per_sm = 0;
  uint32_t schedulers_per_sm = 4;
  double issue_slot_utilisation() const {
    return active_sm_cycles ? double(issued) / (double(active_sm_cycles) * schedulers_per_sm) : 0;
  }
  double achieved_occupancy() const {
    return active_sm_cycles && max_warps_per_sm ? double(warp_cycles) / (double(active_sm_cycles) * max_warps_per_sm)
                                                : 0;
  }
  uint64_t l1_sectors = 0, l1_hits = 0;     // global/local load sectors looked up in L1
  uint64_t l2_sectors = 0, l2_hits = 0;     // sectors that reached L2
  uint64_t dram_bytes = 0;                  // DRAM bytes of the timed blocks
  // Cycles the slice's DRAM queue spent on them, reads and writes each at
  // its own rate (params.h): over the cycles simulated, the DRAM's utilisation.
  double dram_busy_cycles = 0;
  uint64_t l1_busy_cycles = 0;              // sum over SMs of L1/shared data-path busy cycles
  // What the model consumed from the trace: global/local sectors and shared
  // wavefronts. With every block timed they equal the interpreter's counters
  // (metrics.h sectors, wavefronts); a fast path that skipped the trace would
  // show here as a difference (tests/test_sim_trace.cpp).
  uint64_t traced_sectors = 0, traced_wavefronts = 0;
  // Warp-level scalar shared loads the model folded into an LDS.64/LDS.128
  // (cycle/decode.h `merge`): issued by the interpreter, not by the model.
  uint64_t merged_loads = 0;
  // PTX instructions the SASS does not have: the loop control of the loops
  // ptxas unrolls (cycle/unroll.h) and what ptxas folds into another
  // instruction (cycle/decode.h, mark_fused).
  uint64_t folded_instructions = 0;
  // Busy fraction of each shared resource over the timed cycles (0..1).
  double l1_utilisation = 0, l2_utilisation = 0, dram_utilisation = 0;
  bool outputs_incomplete = false;          // TimingOptions::sample_only: only the timed blocks ran
  double l1_hit_rate() const { return l1_sectors ? double(l1_hits) / double(l1_sectors) : 0; }
  double l2_hit_rate() const { return l2_sectors ? double(l2_hits) / double(l2_sectors) : 0; }
  std::array<uint64_t, kStallCount> stall{};  // warp-cycles by state, whole timed sample
  std::vector<PcCycles> per_pc;               // indexed like Kernel::code
  std::vector<IssueEvent> events;             // with TimingOptions::events
  std::vector<WarpSpan> spans;                // with TimingOptions::events: every waiting interval
  std::vector<AsyncSpan> async_spans;         // with TimingOptions::events: the copy engine's and wgmma's work
  double model_seconds = 0;                   // wall time of the cycle model itself
  double interpreter_seconds = 0;             // running the timed blocks in the interpreter (own thread)
  double model_cpu_seconds = 0;               // CPU time of the cycle model's threads (not inflated by other load)
};

// Adds what the engine counted in one segment's simulation (`part`, which
// started empty) to the launch's result: the counters, the per-pc and stall
// tables, and the event streams appended. time_launch adds the segments in
// order, so the result is the same whether they ran one after another or
// side by side.
void add_segment(CycleResult& into, const CycleResult& part);

}  // namespace lab::sim::cycle
