// lab/sim/cycle/engine.h: the cycle-level model of a slice of SMs.
//
// Each SM has `schedulers` sub-partitions; a warp in slot s of the SM
// belongs to sub-partition s % schedulers, and each sub-partition issues at
// most one warp instruction per cycle. Scheduling policy: GTO (greedy then
// oldest): keep issuing from the warp that issued last while it can, else
// the oldest ready warp. GTO is the policy GPGPU-Sim/Accel-Sim configure for
// Volta and later NVIDIA GPUs, and it reproduces the staggering of warps that
// lets loads of old warps overlap compute of young ones.
//
// A warp may issue when its scoreboard allows (every register the next
// instruction reads or writes is ready), its pipe is free (FP32, INT, FP64,
// MUFU, tensor: throughput per sub-partition) and, for memory instructions,
// the L1/shared data path's backlog is below the queue depth. Blocks are
// placed on SMs in block-id order as slots free (occupancy limit per SM), so
// tails and achieved occupancy come out of the simulation; where the GPU
// model has them, at the block scheduler's measured rate and a measured
// turnaround after a block retires (params.h blocks_per_cycle,
// block_turnaround). Memory: a
// sectored L1 per SM (hits from its own tags), sharing 128 B/cycle between
// global sectors and shared wavefronts; L2 and DRAM as bandwidth queues with
// latencies, shared by the slice's SMs; L2 hit/miss per request from the
// interpreter's L2 model (the trace carries it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "lab/sim/cycle/decode.h"
#include "lab/sim/cycle/params.h"
#include "lab/sim/cycle/result.h"
#include "lab/sim/cycle/trace.h"

namespace lab::sim::cycle {

// Produces the trace of a block (runs it in the interpreter). Called in the
// order the blocks are placed, i.e. increasing position in the block list.
using TraceSource = std::function<std::unique_ptr<BlockTrace>(uint64_t block)>;

struct SliceConfig {
  uint32_t sms = 1;
  uint32_t blocks_per_sm = 1;
  uint32_t warps_per_block = 1;
  uint32_t shared_bytes_per_block = 0;  // the L1 gets the unified capacity the shared carveout leaves
  double bandwidth_share = 1;           // this slice's share of L2 and DRAM bandwidth
  uint64_t tail_first_block = ~0ull;    // from this block id on (the last wave) the share is:
  double tail_bandwidth_share = 1;
  bool events = false;
  uint8_t segment = 0;
  // Asked every few thousand loop turns: true ends the run where it is (the
  // launch was cancelled; its cycles mean nothing). A one-wave slice has all
  // its traces before it starts, so only the engine itself can stop it.
  std::function<bool()> stop;
};

struct SliceRun {
  uint64_t cycles = 0;                 // until the last block retired
  // Per block, in the order given: when its work is done, its retirement
  // or later, when what it did not wait for has drained (its stores' sectors
  // through the DRAM queue, its reductions through the L2's atomic queues: a
  // block that only writes retires before that). A sampled launch reads the
  // steady per-wave rate from these (sample.h steady_wave_cycles).
  std::vector<uint64_t> done_cycle;
  bool deadlock = false;               // warps waited at a barrier that never completed
  bool stopped = false;                // SliceConfig::stop ended it early
};

// Simulates `blocks` (placed in that order) on the slice, cycle by cycle,
// adding issue/stall/cache statistics to `acc`.
SliceRun simulate_slice(const DecodedKernel& dk, const CycleParams& p, const SliceConfig& cfg,
                        const std::vector<uint64_t>& blocks, const TraceSource& source, CycleResult& acc);

}  // namespace lab::sim::cycle
