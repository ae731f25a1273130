// lab/sim/exec_memory.h: the steps of one warp-wide memory request, shared
// by every instruction family that touches memory (ld/st/atom in
// exec_memory.cpp, the tensor-core loads and stores in exec_matrix.cpp), so
// bounds, alignment, the checker's veto and the metrics are done one way.
#pragma once

#include <cstdint>
#include <vector>

#include "lab/sim/exec.h"

namespace lab::sim {


struct Access {
  uint64_t addr[32];   // space-local: global address, shared offset, local frame offset, param offset
  uint8_t* host[32];
  // The space the lanes' addresses point into after generic resolution:
  // Global, Shared, Local or Param only (const is read as global).
  ptx::Space where = ptx::Space::Global;
  uint32_t bytes = 0;  // per lane
};

// Turns the lanes' addresses in `a` into host pointers (a.host); raises a
// `misaligned` or `out-of-bounds` fault and returns false if any lane of
// `mask` is misaligned to `align` or outside its space.
bool resolve(WarpContext& c, Access& a, uint32_t mask, bool is_write, uint32_t align);

// The lanes of `mask` the kernel checker lets through (all of them when
// checks are off). `values`: what a store writes, for same-address races.
// `is_async`: a cp.async's destination, written later (cp_async_complete).
uint32_t checker_veto(WarpContext& c, const Access& a, uint32_t mask, bool is_write, bool is_atomic,
                      const uint64_t* values = nullptr, bool is_async = false);

// Lands the cp.async copies of `lanes` whose group is older than `before`
// (UINT32_MAX: all of them) in shared memory: at cp.async.wait_group /
// wait_all, and when the threads exit.
void cp_async_complete(WarpContext& c, uint32_t lanes, uint32_t before);

// Counts one request in Nsight Compute's units (sectors + L2 for global and
// local, wavefronts for shared) on the current pc, and fills the event.
// `atomic`: an atom/red request (memory_cost.h: shared_atomic_wavefronts,
// same_address_lanes).
void count_request(WarpContext& c, ptx::Space where, const uint64_t* lane_addr, uint32_t access_bytes, uint32_t mask,
                   bool is_write, bool atomic = false);

// Counts one copy-engine request (cp.async.bulk, cp.async.bulk.tensor): its
// global `sectors` (sorted, distinct; they reach L2 and DRAM like a load's)
// and `bytes_read`, and records it for the cycle model as a bulk request
// landing `shared_bytes` in shared memory (cycle/trace.h TraceMem::bulk).
void count_bulk_request(WarpContext& c, const std::vector<uint64_t>& sectors, uint64_t bytes_read, uint32_t shared_bytes);

}  // namespace lab::sim
