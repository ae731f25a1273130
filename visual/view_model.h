// visual/view_model.h: the snapshot every view draws from, and the UI's own state.
//
// A ViewModel is plain data, built off the UI thread (by the trace player or
// the live aggregator) and published whole; a view is a function
// draw_<view>(const ViewModel&, UiState&) that reads it and writes only
// UiState. No view reaches into the simulator.
//
// Index
//   [SM]        SM grid: resident blocks and warps by state, waves
//   [BLOCK]     one block's warps: active mask, current instruction, line
//   [ACCESS]    the current warp memory access (coalescing, banks)
//   [HEAT]      per-element access counts over the GEMM operands
//   [SOURCE]    .cu lines and PTX with per-line heat
//   [PERF]      roofline and CPU/GPU comparison
//   [OCCUPANCY] the GPU model's per-SM limits for the calculator
//   [LESSON]    lesson text and steps
//   [TIMELINE]  one SM cycle by cycle (the cycle model), 1 block vs full occupancy
//   [VIEWMODEL] the snapshot
//   [UISTATE]   what the UI alone owns
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lab/ptx/module.h"  // ptx::Space: the one representation of a memory space

namespace lab::visual {

// [SM] -------------------------------------------------------------------------
// The four states the issue names, plus Empty for an unused warp slot.
enum class WarpState : uint8_t { Empty, Issuing, Barrier, Memory, Done };
const char* warp_state_name(WarpState s);

struct ResidentBlock {
  uint32_t block_linear = 0;
  std::vector<WarpState> warps;  // one per warp of the block
};

struct SmSnapshot {
  std::vector<ResidentBlock> blocks;  // blocks resident now
  uint32_t blocks_retired = 0;        // blocks this SM has finished
  uint32_t warps_resident() const;
};

struct SmGrid {
  std::string gpu;                  // "H100"
  uint32_t sm_count = 0;            // the model's SM count: every one is drawn
  uint32_t max_warps_per_sm = 64;   // for the per-SM occupancy bar
  uint32_t blocks_per_sm = 1;       // resident blocks per SM the occupancy allows
  uint32_t warps_per_block = 1;
  uint64_t blocks_total = 0, blocks_placed = 0, blocks_retired = 0;
  std::vector<SmSnapshot> sms;      // size sm_count
  uint32_t wave() const;            // 1-based wave of the latest placed block
  uint32_t waves() const;           // ceil(blocks_total / (sm_count * blocks_per_sm))
};

// [BLOCK] ----------------------------------------------------------------------
struct WarpRow {
  uint32_t warp = 0;
  uint32_t active_mask = 0;  // lanes active at the warp's latest instruction
  uint32_t live_mask = 0;    // lanes that exist (a partial last warp has fewer)
  WarpState state = WarpState::Empty;
  int32_t pc = -1;           // latest instruction index, -1 = not started
  std::string ptx;           // its PTX text
  uint32_t line = 0;         // its .cu line, 0 = unknown
};

struct BlockView {
  bool valid = false;
  uint32_t block_linear = 0;
  uint32_t bx = 0, by = 0, bz = 0;   // block index
  uint32_t threads = 0;
  uint32_t sm = 0;
  std::vector<WarpRow> warps;
};

// [ACCESS] ---------------------------------------------------------------------

// How the simulator served a shared request (lab/sim/memory_cost.h's
// SharedServe, copied): lane l is in phase l / lanes_per_phase; its k-th
// 4-byte word lands in bank[l][k] and is served in wavefront[l][k] of its
// phase. The banks view draws this and computes nothing of its own.
struct BankService {
  bool valid = false;
  uint32_t lanes_per_phase = 32, words_per_lane = 1, phases = 1;
  std::array<uint8_t, 32> phase_wavefronts{}, phase_ideal{};
  uint8_t bank[32][4] = {};
  uint8_t wavefront[32][4] = {};
};

struct WarpAccess {
  bool valid = false;
  ptx::Space space = ptx::Space::Global;
  bool is_store = false;
  uint8_t access_bytes = 4;
  uint32_t mask = 0;
  uint32_t block_linear = 0, warp = 0, pc = 0, line = 0;
  std::string ptx;                   // the instruction's text
  std::string buffer;                // "A", "B", "C" for global, "" for shared
  uint64_t base = 0;                 // buffer start (global) or 0 (shared)
  std::array<uint64_t, 32> lane_addr{};  // absolute (global) or shared offset
  uint32_t sectors = 0;              // global: distinct 32-byte sectors, as counted
  uint32_t ideal_sectors = 0;        // global: the fewest that carry the distinct bytes (broadcast: 1)
  uint32_t wavefronts = 0, ideal_wavefronts = 0;  // shared, as counted
  uint32_t conflicts = 0;            // shared: wavefronts beyond the ideal (sim::bank_conflicts)
  bool atomic = false;               // atom/red: lanes updating one word serialise (no broadcast)
  BankService banks;                 // shared: the simulator's phases
};

// [HEAT] -----------------------------------------------------------------------
struct HeatMap {
  std::string name;                  // "A (M x K)"
  uint32_t rows = 0, cols = 0;       // as drawn (may be a downsampled view)
  uint32_t elem_rows = 0, elem_cols = 0;  // the matrix itself
  std::vector<uint32_t> count;       // rows*cols accesses so far
  std::vector<uint8_t> footprint;    // rows*cols: 1 where the current access touches
  uint32_t max_count() const;
};

// [SOURCE] ---------------------------------------------------------------------
// Per source line (or per PTX instruction): what the simulator counted so far.
struct LineHeat {
  uint64_t warp_insts = 0, sectors = 0, conflicts = 0;
  uint64_t requests = 0;         // global/local memory requests (for sectors per request)
  uint64_t shared_requests = 0;
  double sectors_per_request() const { return requests ? double(sectors) / double(requests) : 0; }
};

struct SourceText {
  std::string file;                    // display name
  std::vector<std::string> lines;      // .cu lines, 1-based as lines[i-1]
  std::vector<LineHeat> heat;          // same size as lines
  std::vector<std::string> ptx;        // one PTX instruction per pc
  std::vector<uint32_t> ptx_line;      // .cu line of each pc (0 = none)
  std::vector<uint64_t> ptx_count;     // warp instructions per pc so far
  std::vector<LineHeat> ptx_heat;      // every metric per pc so far (same as the lines', per instruction)
  // The whole run's counts (the simulator's, exact), for the per-line
  // columns; empty while a live run is still going.
  std::vector<LineHeat> line_totals, ptx_totals;
  uint32_t current_line = 0;
  int32_t current_pc = -1;
};

// [PERF] -----------------------------------------------------------------------
struct PerfPoint {
  std::string label;          // "03 smem tiled"
  double intensity = 0;       // FLOP per DRAM byte
  double gflops = 0;          // achieved (measured) or predicted
  double seconds = 0;
  bool cpu = false;           // a CPU version (measured here)
  bool measured = false;      // false: a prediction of the timing model
  bool bound = false;         // neither: the roofline's bound for it (lesson 07's layer at each batch)
  bool current = false;       // the kernel on screen
  uint64_t blocks = 0;        // blocks the launch has (a GPU point), 0 = unknown
};

struct Roofline {
  std::string device;         // "H100 (predicted)"
  double peak_gflops = 0;     // FP32 CUDA-core peak
  double peak_tensor_gflops = 0;  // 0 when not drawn
  double bandwidth_gbs = 0;   // DRAM
  double cpu_peak_gflops = 0, cpu_bandwidth_gbs = 0;  // 0 when unknown
  std::vector<PerfPoint> points;
  uint32_t sm_count = 0;      // the GPU model's SMs: a launch with fewer blocks leaves SMs idle
  std::string problem;        // "GEMM 128^3"
  std::string note;           // a sentence under the title (why a kernel has no point)
};

struct Comparison {
  std::string problem;                 // "GEMM 1024^3 fp32"
  std::vector<PerfPoint> versions;     // CPU and GPU versions in progression order
  // A lesson's before/after (lesson.toml [steps.compare]): two bars of time
  // on one problem, the first the "before"; the range the lesson expects.
  bool before_after = false;
  double expect_min = 0, expect_max = 0;
  // The counters that explain it: the rows whose before/after ratio is
  // furthest from 1 (name, before, after), whole-grid counts.
  struct Counter {
    std::string name;
    double before = 0, after = 0;
  };
  std::vector<Counter> counters;
};

// [OCCUPANCY] ------------------------------------------------------------------
// What the calculator needs to know of the GPU; the numbers come from the
// machine model (lab/sim/device.h), the arithmetic from lab/sim/occupancy.
struct OccupancyQuery {
  int block_threads = 256, registers = 32, shared_bytes = 0;
};
struct OccupancyAnswer {
  int blocks_per_sm = 0, warps_per_sm = 0, max_warps_per_sm = 0;
  int by_warps = 0, by_registers = 0, by_shared = 0, by_blocks = 0;  // blocks allowed by each limit
  std::string limiter;      // "registers", "shared memory", "warps", "blocks"
  std::string explanation;  // one sentence: which limit bites and by how much
  double occupancy() const { return max_warps_per_sm ? double(warps_per_sm) / max_warps_per_sm : 0; }
};
using OccupancyFn = std::function<OccupancyAnswer(const OccupancyQuery&)>;

struct OccupancyModel {
  std::string gpu;
  int max_threads_per_block = 1024, max_registers_per_thread = 255;
  int max_shared_per_block = 48 * 1024;
  OccupancyQuery kernel;    // the current kernel's own numbers (from ptxas), or a lesson step's
  uint64_t serial = 0;      // bumped with each new `kernel`: the sliders move to it
  OccupancyFn compute;      // pure; safe to call on the UI thread
};

// [LESSON] ---------------------------------------------------------------------
struct LessonStep {
  std::string title;
  std::string markdown;     // the step's text
  std::string run_label;    // button label, "" = no run button
  std::string run_target;   // what the button launches (kernel/version id)
  std::vector<std::string> panes;  // the views that make this step's point (panel names)
  bool measure = false;     // a lesson step that runs a kernel
  bool program = false;     // ... or a CUDA program (the program pane; ViewModel::program)
  bool text_only = false;   // runs and shows nothing: no kernel, command, chart or before/after (its text is the step)
};

struct LessonText {
  std::string id;           // "04-shared-memory-tiling", "" for the progression
  std::string title;
  int open_step = 0;        // the step the view opens at (a lesson: its first that runs a kernel)
  std::vector<LessonStep> steps;
};

// [TIMELINE] -------------------------------------------------------------------
// One SM's warps cycle by cycle, from the cycle-level SM model's event
// stream (lab/sim/cycle/result.h: issues and waiting intervals with their
// stall reasons): the same kernel timed twice, at one resident block per SM
// and at the occupancy limit, so latency hiding can be watched. Every number
// is the model's prediction. Copied out of the model's result by the worker
// (session_timeline.cpp); the view only draws it.
struct TimelineWait {
  uint64_t from = 0, to = 0;   // [from, to) in the SM's cycles
  uint8_t reason = 0;          // index into CycleTimeline::reasons
};

// One block's warp in a warp slot: resident from `from`, exited at its last issue `to`.
struct TimelineRun {
  uint32_t block = 0;
  uint64_t from = 0, to = 0;
};

struct TimelineWarp {
  uint32_t slot = 0;           // warp slot on the SM (block slot x warps per block + warp)
  uint32_t block_slot = 0, warp = 0;  // the slot's block slot, and its warp in the block
  uint32_t scheduler = 0;      // its sub-partition: slot % schedulers
  std::vector<uint64_t> issues;      // issue cycles, ascending
  std::vector<uint32_t> pcs;         // the instruction of each issue (same order)
  // For each issue: the instruction whose result it waited for (-1: none)
  // and when that one issued (lab/sim/cycle/result.h IssueEvent::waited_pc).
  std::vector<int32_t> waited_pcs;
  std::vector<uint64_t> waited_issues;
  std::vector<TimelineWait> waits;   // waiting intervals, ascending
  std::vector<TimelineRun> runs;     // the blocks the slot ran, ascending
};

// A warp slot at one cycle (cycle_state.cpp, the one place that reads it
// from the model's events): what the SM grid, the block view and the
// timeline's tooltip draw.
struct WarpAtCycle {
  enum Kind : uint8_t { NotResident, Issuing, Waiting, Done };
  Kind kind = NotResident;
  uint8_t reason = 0;   // Waiting: index into CycleTimeline::reasons
  uint32_t block = 0;   // the block of the slot at that cycle (Issuing, Waiting, Done)
  int32_t pc = -1;      // Issuing: the instruction issued; Waiting: the one it waits to issue
  // Waiting: the instruction whose result `pc` needs and that was not ready
  // (a load, ...) and the cycle it issued; -1 when `pc` waits for something else.
  int32_t waited_pc = -1;
  uint64_t waited_issue = 0;
};

struct TimelineSide {
  std::string title;                 // "1 block per SM", "2 blocks per SM (occupancy limit)"
  uint32_t blocks_per_sm = 0, warps_per_block = 0, max_warps_per_sm = 0;
  uint64_t cycles = 0;               // cycles the drawn SM ran (the model's first sample segment)
  std::string segment;               // which waves that segment is
  double kernel_cycles = 0, time_s = 0;  // predicted for the whole grid
  double issue_utilisation = 0;      // issued / (active SM cycles x schedulers), the model's timed sample
  double achieved_occupancy = 0;
  uint64_t issued = 0, active_sm_cycles = 0;
  std::vector<uint64_t> stall;       // warp-cycles by reason (as CycleTimeline::reasons), the timed sample
  std::vector<TimelineWarp> warps;   // the drawn SM's warp slots, by scheduler then slot
  std::vector<std::vector<uint64_t>> scheduler_issues;  // per scheduler: the drawn SM's issue cycles, ascending
  std::string note;                  // the model's sample note
  uint64_t waits_drawn = 0;          // waiting intervals on the drawn SM (0: nothing waited)
  // Hopper's asynchronous units on the drawn SM (empty for other kernels):
  // the copy engine's work on TMA copies, and per scheduler the tensor
  // pipe's on wgmma, as [from, to) cycle intervals, ascending.
  std::vector<std::pair<uint64_t, uint64_t>> copy_engine;
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> tensor;
};

struct CycleTimeline {
  std::string status;                // what is happening, or why there is no timeline; "" when ready
  std::string kernel, problem, gpu;
  uint32_t schedulers = 4;
  std::vector<std::string> reasons;       // Nsight's warp-state names, index = reason
  std::vector<std::string> explanations;  // one line each
  int selected_reason = 0;                // the index of "selected" (an issue, not a wait)
  TimelineSide sides[2];                  // [0] one block per SM, [1] the occupancy limit
  uint64_t open_cycle = 0;                // where the cursor opens: side 0's longest stretch with no issue
  bool same_residency = false;            // both sides hold one block per SM
  std::string residency_note;             // why, when they do
  // The timeline times the launch on screen (a user's or lesson's kernel), so
  // the launch pane's standard prediction is of the same launch; false: a
  // GEMM version, timed at its own problem (`problem`).
  bool launch_on_screen = false;
  bool ready() const { return status.empty() && sides[0].cycles && sides[1].cycles; }
};

// [VIEWMODEL] ------------------------------------------------------------------
struct LaunchInfo {
  std::string kernel, file, gpu, backend = "simulator";
  std::string problem;                 // "M=N=K=256"
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint32_t registers = 0, shared_bytes = 0;
  int current_kernel = -1, current_gpu = -1, current_size = -1;  // indexes into the choices below
  std::vector<std::string> kernels;    // choices (the progression)
  std::vector<std::string> gpus;       // GPU models
  std::vector<std::string> sizes;      // problem sizes
  std::vector<std::string> backends;   // "simulator", "cuda" where a GPU exists
  // The machine model's predicted time for this launch (lab/sim/report.h);
  // 0 = not predicted (yet). The note says at which size and on which model.
  double predicted_seconds = 0;
  std::string predicted_note;
  int lesson_step = -1;                // a lesson's step whose kernel this is, -1 = none
};

// A moment worth jumping to (the demo's script, the moment buttons): a
// position in the trace and the pane that shows it.
struct Moment {
  std::string name;             // "first uncoalesced load"
  std::string caption;          // one sentence for the audience, with the numbers
  std::string pane;             // panel name: "coalescing", "banks", "sm", ...
  uint64_t position = 0;        // replay cursor
  // About the replay's small launch leaving SMs idle (the GPU at its
  // fullest short of full, one partial wave): true for the view's stepping,
  // not the lecture's point, so the demo skips it.
  bool underfilled = false;
};

struct Playback {
  bool live = false;            // aggregating a streaming run (no stepping)
  bool playing = false;
  bool finished = false;
  uint64_t cursor = 0, total = 0;  // events applied / recorded (live: blocks)
  uint64_t warp_insts = 0;      // warp instructions so far
  double sim_seconds = 0;       // simulator wall time so far
  std::string status;           // "recording trace...", "error: ..."
  // With an "error: ..." status: what `gpulab view --screenshot` exits with
  // (the CLI's codes: 2 source that does not compile or parse, 1 a run that
  // failed), so a script sees the failure the window shows.
  int error_exit = 0;
};

// A lesson's CUDA program run by `gpulab run --json` (session_program.cpp):
// each simulated device's predicted timeline and memory, as the runtime
// reported them (lab/runtime/devices.h). Every time is a PREDICTION.
struct ProgramRun {
  struct Event {
    std::string kind, name;  // "kernel" + its name, "peer" + "peer 0->1", "h2d" + "H2D", ...
    double start_s = 0, end_s = 0;
    uint64_t bytes = 0;
  };
  struct Device {
    std::vector<Event> events;
    double predicted_s = 0, copy_s = 0, wait_s = 0;
    uint64_t live_bytes = 0, peak_bytes = 0, launches = 0;
  };
  std::string command;   // as the lesson gives it
  std::string status;    // "" = done; "running ..." or "error: ..."
  std::string gpu, link;
  double timeline_s = 0; // the largest device's predicted timeline: the whole run (all its steps), not one step
  std::vector<Device> devices;
  std::string output;    // the program's stdout
};

struct ViewModel {
  uint64_t serial = 0;           // increases with every publish
  LaunchInfo launch;
  Playback playback;
  SmGrid sm;
  BlockView block;
  WarpAccess global_access, shared_access;
  std::vector<HeatMap> heat;     // A, B, C
  SourceText source;
  Roofline roofline;
  Comparison comparison;
  OccupancyModel occupancy;
  LessonText lesson;
  std::vector<std::string> table;  // the progression's table as text lines
  std::vector<Moment> moments;     // key moments of the trace on screen, in order
  // The cycle model's picture of one SM (timed on request: the timeline
  // pane asks for it); shared, so publishing a snapshot does not copy it.
  std::shared_ptr<const CycleTimeline> timeline;
  ProgramRun program;  // a lesson step's program (the "program" pane)
};

// [UISTATE] --------------------------------------------------------------------
// Commands the UI sends to the worker; the worker owns the cursor.
enum class PlayCommand : uint8_t { None, Play, Pause, Toggle, StepInstr, StepBarrier, StepWave, Restart, Seek, SeekTo };

enum class Panel : uint8_t {
  All, SmGrid, Block, Memory, Coalescing, Banks, Source, Roofline, Comparison, Occupancy, Lesson, Timeline, Program
};
Panel panel_from_name(const std::string& name, bool* ok = nullptr);
const char* panel_name(Panel p);

struct UiState {
  Panel panel = Panel::All;      // All: the full layout; else one view fills the window
  bool presenter = false;        // `gpulab demo`: big fonts, high contrast
  // A lesson step with nothing to run or show (text only): the projector
  // layout gives its text the whole window instead of empty panes.
  bool story_only = false;
  // Projector layout: the story's text and at most two large panes (chosen
  // by the lesson step or the demo's moment); empty = the full layout.
  std::vector<Panel> focus;
  bool projector = false;        // use `focus` (demo, lessons); P toggles
  float text_scale = 1.f;        // chosen text size ([ and ] keys, --scale)
  std::string banner;            // the demo's caption and timer, drawn over the panes
  bool lesson_auto_seek = true;  // a lesson step's kernel opens at the moment that makes its point (not with --at)
  bool show_help = false;
  float speed = 200.f;           // playback: warp instructions per second
  int selected_sm = -1;
  int lesson_step = 0;
  int kernel_choice = 0, gpu_choice = 0, size_choice = 0, backend_choice = 0;
  bool launch_requested = false; // the launch panel's Run button
  uint64_t synced_serial = 0;    // the snapshot whose launch choices the combos were set from
  OccupancyQuery occ;            // the calculator's sliders
  uint64_t occ_serial = 0;       // the OccupancyModel::serial the sliders last took (0: none yet)
  // Requests for the worker, consumed each frame.
  PlayCommand command = PlayCommand::None;
  double seek_fraction = 0;
  uint64_t seek_position = 0;    // SeekTo: an exact replay position (a moment)
  std::string run_target;        // a lesson's run button
  // Frame time of the UI's own work, for the status bar.
  float ui_ms = 0;
  // E: write the picture on screen as a PNG (app.cpp, after the frame is drawn);
  // the note says where, for a few seconds.
  bool export_wanted = false;
  std::string export_note;
  // The timeline pane: its cursor in cycles (-1: open at the model's idle
  // stretch), the cycles it shows, its own playback in cycles per second.
  double timeline_cycle = -1;
  float timeline_window = 1200;
  bool timeline_playing = false;
  float timeline_speed = 150;
  bool timeline_wanted = false;  // the pane was drawn: the worker times the kernel for it
  // The SM grid and block view draw the timeline's cycles (the same cursor).
  double cycle_open_fraction = -1;  // --at: open the cycle cursor at this fraction of the run, not the idle stretch
  bool sm_placement = false;     // the SM grid shows where blocks sit by wave (the demo's replay moments), not cycles
  int cycle_side = 1;            // the block view's side: 0 one block per SM, 1 the occupancy limit
  // The program pane's memory scale: the most bytes any GPU held in any run
  // shown so far, so stepping through ZeRO's stages shows the bars shrink
  // (a scale per run made every step's largest bar full width: issue 28).
  uint64_t program_bytes_scale = 0;
  int cycle_block_slot = 0;      // the block view's block slot on the timed SM
  // The warp slot clicked in the cycle SM grid (--warp opens with one): its
  // side (0 one block per SM, 1 the occupancy limit) and slot; -1 none. The
  // grid says what it is doing at the cursor and what it waits for.
  int pinned_side = -1, pinned_slot = -1;
  const void* cycle_timeline_seen = nullptr;  // the timeline the cursor belongs to (a new one reopens it)
  float cycle_strip = 64;        // cycles of history the SM grid's and block view's strips show
};

}  // namespace lab::visual
