// visual/trace.h: the simulator's event stream, recorded and replayed.
//
// TraceRecorder is the EventSink of a small, steppable launch: it keeps every
// event in compact form (lane addresses only for memory instructions).
// TraceReplay folds a prefix of a trace into a ViewModel: SM residency and
// warp states, the block view, the latest global and shared access, heat maps
// and per-line heat. Both run off the UI thread.
//
// Replay order: the simulator runs a block to completion on one worker; on a
// GPU all resident blocks of a wave advance together. The replay interleaves
// the recorded events of the blocks of a wave round-robin (each block's own
// order kept), so the SM grid shows a wave's blocks progressing together.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "lab/ptx/module.h"
#include "lab/sim/events.h"
#include "lab/sim/metrics.h"
#include "visual/view_model.h"

namespace lab::visual {

struct TraceEvent {
  sim::WarpEvent::Kind kind;
  ptx::Space space = ptx::Space::Generic;
  uint8_t access_bytes = 0;
  bool is_store = false;
  uint32_t block = 0, sm = 0, warp = 0, pc = 0, mask = 0;
  uint32_t sectors = 0, wavefronts = 0, ideal = 0;
  uint32_t ideal_sectors = 0;
  int32_t lanes = -1;  // index into TraceRecorder::lanes_ (x32), -1 when not a memory access
  int32_t served = -1; // shared: index into the recording's SharedServe list (deduplicated)
  uint8_t op_flags = 0;  // the instruction's ptx::kOp* flags (barrier, exit), as the simulator sent them
};

class TraceRecorder : public sim::EventSink {
 public:
  explicit TraceRecorder(size_t max_events) : max_events_(max_events) {}
  void on_event(const sim::WarpEvent& e) override;
  bool truncated() const { return truncated_; }
  // Moves the recording out (call after the launch returned).
  void take(std::vector<TraceEvent>& events, std::vector<std::array<uint64_t, 32>>& lanes,
            std::vector<sim::SharedServe>& served);

 private:
  std::mutex mu_;
  size_t max_events_;
  bool truncated_ = false;
  std::vector<TraceEvent> events_;
  std::vector<std::array<uint64_t, 32>> lanes_;
  // Shared requests repeat a few bank patterns (a GEMM's tiles): each distinct
  // SharedServe is kept once, found by a hash of its bytes.
  std::vector<sim::SharedServe> served_;
  std::vector<std::pair<uint64_t, int32_t>> served_index_;  // (hash, index), sorted by hash
};

// A global buffer the views name (A, B, C of a GEMM) and draw as a matrix.
struct MatrixBuffer {
  std::string name;
  uint64_t address = 0, bytes = 0;
  uint32_t rows = 0, cols = 0, elem_bytes = 4;
};

struct TraceContext {
  const ptx::Module* module = nullptr;
  const ptx::Kernel* kernel = nullptr;
  uint32_t sm_count = 1, max_warps_per_sm = 64, blocks_per_sm = 1;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::vector<MatrixBuffer> matrices;
  std::vector<std::string> source_lines;  // the .cu, for the source view
  std::string source_name;
  std::vector<std::string> ptx_lines;     // the PTX text, line by line (Instr::ptx_line indexes it)
};

class TraceReplay {
 public:
  TraceReplay(TraceContext ctx, std::vector<TraceEvent> events, std::vector<std::array<uint64_t, 32>> lanes,
              std::vector<sim::SharedServe> served = {});
  uint64_t size() const { return order_.size(); }
  uint64_t cursor() const { return cursor_; }
  // Moves the cursor to `pos` (replaying from the start when moving back).
  void seek(uint64_t pos);
  // Advances to the next position satisfying each stepping rule.
  void step_instr();
  void step_barrier();   // past the next moment every warp of some block has left a barrier
  void step_wave();      // to the first event of the next wave
  // Writes the state at the cursor into vm (launch, lesson, roofline are left alone).
  void fill(ViewModel& vm) const;
  // The simulator's exact counts for the whole run (the source pane's
  // columns), which a trace cut at max_events would otherwise undercount.
  void set_exact_counts(const sim::KernelMetrics& metrics);
  // Key moments of the trace (first uncoalesced load, first bank conflict, a
  // full SM, the tail wave), found once when the replay is built.
  const std::vector<Moment>& moments() const { return moments_; }

 private:
  void apply(const TraceEvent& e);
  void reset();
  void find_moments();
  struct WarpSlot { WarpState state = WarpState::Issuing; int32_t pc = -1; uint32_t mask = 0; };
  struct BlockSlot { bool placed = false, retired = false; uint32_t sm = 0; std::vector<WarpSlot> warps; };

  TraceContext ctx_;
  std::vector<TraceEvent> events_;
  std::vector<std::array<uint64_t, 32>> lanes_;
  std::vector<sim::SharedServe> served_;
  std::vector<uint32_t> order_;       // replay order: indices into events_
  std::vector<uint32_t> wave_start_;  // positions in order_ where each wave begins
  uint64_t cursor_ = 0;
  // State at the cursor.
  std::vector<BlockSlot> blocks_;
  uint32_t warps_per_block_ = 1, threads_per_block_ = 1;
  uint64_t placed_ = 0, retired_ = 0, warp_insts_ = 0;
  int64_t last_global_ = -1, last_shared_ = -1, last_instr_ = -1;
  std::vector<LineHeat> line_heat_;
  std::vector<uint64_t> pc_count_;
  std::vector<LineHeat> pc_heat_;
  std::vector<LineHeat> line_totals_, pc_totals_;  // exact, whole run (set_exact_counts)
  std::vector<Moment> moments_;
  std::vector<std::vector<uint32_t>> heat_;  // per matrix, per drawn cell
  std::vector<std::array<uint32_t, 2>> heat_dims_;
};

// The PTX text of instruction `pc`, trimmed, from the module's text.
std::string instruction_text(const TraceContext& ctx, uint32_t pc);
// What the warp does at an event, from the flags the simulator put on it.
inline bool is_barrier(const TraceEvent& e) { return e.op_flags & ptx::kOpBarrier; }  // bar.sync / bar.red
inline bool is_exit(const TraceEvent& e) { return e.op_flags & ptx::kOpExit; }        // exit / ret
// The same from the opcode table, for readers that keep no TraceEvent.
uint32_t line_of(const ptx::Kernel& k, uint32_t pc);
// The views' description of one memory event, for replayed traces and live runs alike.
// `served`: how a shared request was served (the simulator's phases), or null.
WarpAccess warp_access(const TraceContext& ctx, const ptx::Kernel& k, const TraceEvent& e,
                       const std::array<uint64_t, 32>& lanes, const sim::SharedServe* served);
// Per source line and per pc, the simulator's counts of a finished run folded
// into what the source pane shows (one fold for replayed and live runs).
void fold_counts(const ptx::Module& module, const ptx::Kernel& k, const sim::KernelMetrics& metrics, size_t lines,
                 std::vector<LineHeat>& per_line, std::vector<LineHeat>& per_pc);
// The heat-map cells (kMaxHeatCells a side at most) of each matrix.
constexpr uint32_t kMaxHeatCells = 64;

}  // namespace lab::visual
