// lab/sim/memory_cost.h: what one warp-level memory instruction costs, in
// Nsight Compute's units. Called on the interpreter's hot path for every
// memory instruction, so these are plain functions over 32 lane addresses.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace lab::sim {

constexpr uint32_t kSectorBytes = 32;   // Nsight Compute: a sector is 32 bytes
constexpr uint32_t kLineBytes = 128;    // an L1/L2 line is 4 sectors
constexpr uint32_t kSharedBanks = 32;   // 32 banks of 4 bytes (CC 5.0 and later)
constexpr uint32_t kBankBytes = 4;

// Distinct 32-byte sectors touched by the active lanes of `mask`, each lane
// reading or writing `access_bytes` at lane_addr[lane]. If `sector_out` is not
// null it receives the sector addresses (byte address / 32), at most 64.
uint32_t global_sectors(const uint64_t* lane_addr, uint32_t mask, uint32_t access_bytes,
                        uint64_t* sector_out = nullptr);

// Shared-memory wavefronts for one request. Lanes are served in phases of
// 128 bytes (32 lanes for 4-byte accesses, 16 for 8-byte, 8 for 16-byte);
// within a phase a bank serves one distinct 4-byte word per wavefront, and
// lanes reading the same word are served together (broadcast). `ideal` is one
// wavefront per phase with an active lane: the cost with no bank conflicts,
// so conflicts() = Nsight's l1tex__data_bank_conflicts_pipe_lsu_mem_shared.
// The fewest sectors that could carry the distinct bytes the lanes touch:
// ceil(distinct bytes / 32). Lanes reading one address (a broadcast) need one
// sector; 32 consecutive floats need 4. Sectors beyond this are waste.
uint32_t global_ideal_sectors(const uint64_t* lane_addr, uint32_t mask, uint32_t access_bytes);

// Bank conflicts = wavefronts beyond the conflict-free ideal. The one place
// this subtraction is written; every report, criterion and view calls it.
constexpr uint64_t bank_conflicts(uint64_t wavefronts, uint64_t ideal) {
  return wavefronts > ideal ? wavefronts - ideal : 0;
}

struct SharedCost {
  uint32_t wavefronts = 0;
  uint32_t ideal = 0;
  uint32_t conflicts() const { return uint32_t(bank_conflicts(wavefronts, ideal)); }
};
SharedCost shared_wavefronts(const uint64_t* lane_addr, uint32_t mask, uint32_t access_bytes);

// An atomic's lanes: updates of one word cannot be merged (each lane's
// read-modify-write sees the previous lane's result), so unlike a load no
// lane shares another's wavefront: a bank serves one lane per wavefront.
// The ideal is shared_wavefronts()'s, so same-address atomics count as bank
// conflicts, as Nsight Compute counts them on shared atomics
// (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom).
SharedCost shared_atomic_wavefronts(const uint64_t* lane_addr, uint32_t mask, uint32_t access_bytes);

// The most lanes of `mask` that name one address: the updates an atomic
// request must apply one after another at that address.
uint32_t same_address_lanes(const uint64_t* lane_addr, uint32_t mask);

// How one shared request is served, for views and tests: the same phases and
// wavefronts shared_wavefronts() counts (one code path computes both), kept
// per lane. Lane l belongs to phase l / lanes_per_phase; its k-th 4-byte word
// (k < words_per_lane) lands in bank[l][k] and is served in wavefront
// wavefront[l][k] of that phase (0 = first). Lanes reading the same word get
// the same wavefront: a broadcast. Details are kept for accesses of at most
// 16 bytes (every PTX shared access: .v4.b32, .v2.b64); wider ones keep
// the first 4 words per lane and set `truncated`.
struct SharedServe {
  static constexpr uint32_t kMaxWords = 4;
  uint32_t mask = 0;            // active lanes
  uint8_t lanes_per_phase = 32; // 32, 16, 8 for 4-, 8-, 16-byte lanes
  uint8_t words_per_lane = 1;
  bool truncated = false;
  SharedCost cost;              // identical to shared_wavefronts()
  // A 128-bit access whose lane pairs share addresses: two lanes' values
  // return together, so `cost` is half the phases' sum (memory_cost.cpp).
  bool packed = false;
  uint8_t phase_wavefronts[32] = {};  // per phase index: wavefronts it costs
  uint8_t phase_ideal[32] = {};       // per phase index: its conflict-free cost
  uint8_t bank[32][kMaxWords] = {};
  uint8_t wavefront[32][kMaxWords] = {};
  uint32_t phases() const { return (32 + lanes_per_phase - 1) / lanes_per_phase; }
  uint32_t phase_of(uint32_t lane) const { return lane / lanes_per_phase; }
  uint32_t phase_mask(uint32_t p) const {
    return lanes_per_phase >= 32 ? mask : mask & (((1u << lanes_per_phase) - 1) << (p * lanes_per_phase));
  }
  uint32_t words_kept() const { return words_per_lane < kMaxWords ? words_per_lane : kMaxWords; }
};
SharedServe shared_serve(const uint64_t* lane_addr, uint32_t mask, uint32_t access_bytes);

}  // namespace lab::sim
