// visual/live.h: the EventSink of a big launch, watched while it runs.
//
// A full trace (visual/trace.h) copies every event under one lock: fine for
// a small, steppable run, 12x too slow for a 256^3 GEMM. LiveAggregator
// instead keeps one shard per simulator worker thread (found through a
// thread_local, never locked on the hot path) holding plain counters: heat
// per element of A, B and C, warp instructions per pc, the worker's
// resident block and its warps' latest instruction. fill(), called by the
// session at frame rate from another thread, sums the shards into a
// ViewModel. The current global and shared access is sampled: fill() asks,
// and each shard copies the next such event it sees.
//
// Counters are relaxed atomics written by one thread each (load + store, no
// read-modify-write), so a publish reads a slightly stale but race-free view.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "lab/sim/events.h"
#include "lab/sim/metrics.h"
#include "visual/trace.h"
#include "visual/view_model.h"

namespace lab::visual {

class LiveAggregator : public sim::EventSink {
 public:
  // `event_every`: the SimOptions::event_every the launch uses; sampled
  // per-pc counts are scaled by it until finish() has the exact ones.
  LiveAggregator(TraceContext ctx, uint32_t event_every);
  ~LiveAggregator() override;
  void on_event(const sim::WarpEvent& e) override;
  // Writes the state so far into vm (launch, lesson, roofline are left alone).
  void fill(ViewModel& vm);
  // After the launch: per-pc counts from the simulator's exact metrics.
  void finish(const sim::KernelMetrics& metrics);
  uint64_t blocks_retired() const;

 private:
  struct Shard;
  Shard& shard();
  TraceContext ctx_;
  uint32_t event_every_;
  uint64_t id_;  // tells this aggregator's thread_local cache from an earlier one's
  uint32_t warps_per_block_ = 1, threads_per_block_ = 1;
  std::vector<std::array<uint32_t, 2>> heat_dims_;
  // Per matrix: elements per heat cell along rows and columns as shifts
  // (-1: not a power of two, divide instead). The heat loop runs for every
  // lane of every global access, where divisions would cost the most.
  struct CellMap { int col_shift = -1, elem_shift = -1,  // elem_shift: bytes to elements
                   rpc_shift = -1, cpc_shift = -1; uint32_t rpc = 1, cpc = 1; };
  std::vector<CellMap> cell_map_;
  std::vector<std::string> ptx_text_;     // instruction_text of every pc, made once
  std::vector<uint32_t> ptx_line_;        // line_of every pc
  size_t heat_cells_ = 0;
  std::vector<std::atomic<uint8_t>> block_state_;  // 0 pending, 1 placed, 2 retired
  std::vector<std::atomic<uint32_t>> block_sm_;
  std::mutex shards_mu_;  // taken once per worker thread, and by fill()
  std::vector<std::unique_ptr<Shard>> shards_;
  bool exact_ = false;
  std::vector<uint64_t> exact_count_;
  std::vector<LineHeat> exact_line_heat_, exact_pc_heat_;
  // The latest sampled accesses, kept between publishes.
  struct Access;
  std::unique_ptr<Access> last_global_, last_shared_;
};

}  // namespace lab::visual
