// visual/session_impl.h: the worker's state, shared by the session's parts.
// Each part has one job:
//   session.cpp         the worker loop: commands, playback clock, publishing
//   session_gemm.cpp    a GEMM version of the progression: launch, trace or live
//   session_kernel.cpp  a user's or a lesson's kernel: launch through sim::run_kernel
//   session_perf.cpp    roofline and comparison: the machine model's predictions, CPU measured
//   session_lesson.cpp  the lesson pane's text: a lesson's steps or the versions' header comments
//   session_timeline.cpp the timeline pane: the cycle model's picture of one SM, 1 block vs full
//   session_program.cpp a lesson step's CUDA program, run by the lab's own `gpulab run --json`
// The view reaches lessons only through lab/lesson and runs kernels only
// through the simulator's run path (lab/sim/compiled.h, run.h, gemm::simulate_gemm).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lab/gemm/gemm_registry.h"
#include "lab/lesson/manifest.h"
#include "lab/lesson/measure_run.h"
#include "lab/ptx/module.h"
#include "lab/sim/compiled.h"
#include "lab/sim/device.h"
#include "lab/sim/run.h"
#include "visual/live.h"
#include "visual/session.h"
#include "visual/trace.h"

namespace lab::visual {

std::vector<std::string> split_lines(const std::string& text);
std::string read_file(const std::string& path);
std::string header_comment(const std::string& path);  // a kernel file's leading // comment, as Markdown
// A lesson file as a student knows it: the reference solution lives in
// ../.solutions/ (kept out of the way while they work) and is shown as
// "solution.cu"; other files keep their path.
std::string lesson_file_label(const std::string& path);

// A kernel that is not a GEMM version: the user's FILE.cu or a lesson's step.
struct KernelRun {
  sim::RunRequest request;
  std::vector<lesson::MeasureRun::Matrix> matrices;  // buffers to draw as matrices; empty = guess square ones
  std::string label;        // what the launch panel says it is
  int lesson_step = -1;
};

struct Session::Impl {
  SessionConfig cfg;
  std::vector<gemm::GemmVersion> versions;
  int version = 0;
  std::atomic<int> want_version{-1};
  // A lesson (`gpulab view LESSON`): its manifest, and the step whose kernel is on screen.
  std::optional<lesson::Lesson> lesson;
  std::atomic<int> want_step{-1};
  int step_on_screen = -1;
  // What the replay points into: kept alive with it.
  sim::CompiledKernel compiled;  // the run path's value (lab/sim/compiled.h)
  std::unique_ptr<sim::RunOutcome> kernel_run;  // a user's or a lesson's kernel
  std::unique_ptr<TraceReplay> replay;
  std::unique_ptr<LiveAggregator> live;  // instead of replay for a big run
  const std::atomic<bool>* stop = nullptr;
  ViewModel base;
  std::vector<PerfPoint> cpu_points;  // measured once, at predict_size
  // The roofline's GPU points: the machine model's prediction for each
  // version at predict_size, filled one per worker turn after a launch.
  std::vector<PerfPoint> gpu_points;
  std::string gpu_points_model;  // the GPU model they were predicted for
  PerfPoint kernel_point;        // a user's or lesson's kernel: its own prediction
  // The predictor thread (lowest CPU priority, so a live run comes first):
  // it predicts every version for pred_gpu; a new generation restarts it.
  std::thread predictor;
  std::mutex pred_mu;
  std::string pred_gpu;
  std::atomic<uint64_t> pred_generation{0};
  std::vector<std::pair<size_t, PerfPoint>> pred_done;
  struct LaunchRequest { int version = -1, gpu = -1, size = -1; std::string backend; };
  std::mutex req_mu;
  std::optional<LaunchRequest> request;
  std::string backend_note;  // why the chosen backend is not the one shown
  bool playing = false;
  std::atomic<float> speed{400};
  double credit = 0;  // fractional instructions owed by the playback clock
  mutable std::mutex pub_mu;
  std::shared_ptr<const ViewModel> published = std::make_shared<ViewModel>();
  uint64_t serial = 0;
  std::mutex cmd_mu;
  struct Command { PlayCommand cmd; double fraction; uint64_t position; };
  std::vector<Command> commands;
  // The timeline pane (session_timeline.cpp): a job that times the kernel on
  // screen, set by prepare/prepare_kernel, started on its own thread once
  // the pane is drawn (timeline_wanted), its result taken by timeline_tick.
  using TimelineJob = std::function<std::shared_ptr<CycleTimeline>(const std::atomic<bool>* cancel)>;
  TimelineJob timeline_job;
  std::atomic<bool> timeline_wanted{false};
  std::atomic<bool> timeline_cancel{false};
  bool timeline_started = false;
  std::thread timeline_thread;
  std::mutex timeline_mu;
  std::shared_ptr<const CycleTimeline> timeline_result;
  // The program pane (session_program.cpp): a step's `gpulab run` on its own thread.
  std::thread program_thread;
  std::mutex program_mu;
  std::optional<ProgramRun> program_result;

  void publish(ViewModel vm) {
    vm.serial = ++serial;
    auto p = std::make_shared<const ViewModel>(std::move(vm));
    std::lock_guard lock(pub_mu);
    published = std::move(p);
  }
  // session_gemm.cpp
  void prepare();
  void fill_static(const sim::GpuModel& gpu, const sim::LaunchConfig& lc, int regs, int blocks_per_sm);
  void apply_request(const LaunchRequest& r);
  void occupancy_model(const sim::GpuModel& gpu, int block_threads, int regs, int shared_bytes);
  // session_kernel.cpp
  KernelRun user_kernel() const;
  KernelRun lesson_kernel(int step) const;  // throws when the step runs no kernel
  void prepare_kernel(const KernelRun& run);
  // session_perf.cpp
  void predict_all();
  void measure_cpu(int n);
  bool predict_next(bool* all);
  void perf_charts();
  void kernel_charts(const sim::RunOutcome& out, const sim::GpuModel& gpu);
  // Lesson 07's layer over batch sizes (a step's roofline_layer): its roofline bound at each batch.
  void layer_charts(int in, int out);
  // session_lesson.cpp
  void load_lesson();              // cfg.lesson_dir -> lesson, base.lesson
  void progression_text();         // base.lesson from the versions' header comments
  // session_timeline.cpp
  void timeline_for_gemm();        // the job for the GEMM version on screen
  void timeline_for_kernel(const KernelRun& run);
  void timeline_reset();           // cancel a timing in flight; no timeline until asked again
  void timeline_tick(bool& dirty); // start the job when wanted; take its result
  // session_program.cpp
  bool program_step(int step) const;  // the step shows the program pane and names a `gpulab run`
  // A step whose command is `gpulab occupancy --gpu G --block B --regs R
  // --smem S`: the occupancy pane takes those numbers (session_lesson.cpp).
  // False when the step's command is not one.
  bool occupancy_step(int step);
  // A step whose command is `gpulab train ...` (lesson 10): the command runs
  // (--json) and the comparison chart shows its CPU step, measured, beside
  // the GPU step, predicted. False when the step runs no such command.
  bool train_step(int step);
  // A step with a before/after ([steps.compare]): it runs as `gpulab lesson
  // --before-after` runs it and the comparison chart shows its two times and
  // the range the lesson expects. False when the step has none.
  bool compare_step(int step);
  // A step whose command is `gpulab sim FILE --kernel K --grid G --block B
  // --arg ...`: that launch, as the command makes it (lessons/ paths taken
  // from the lessons folder the view reads). Empty when it is not one.
  std::optional<KernelRun> sim_step(int step) const;
  // The step's `gpulab` command is one the view draws (sim, occupancy, a
  // train step to compare, a program run); others (train --fit, --sweep, ...)
  // leave the step to its text.
  bool command_drawn(int step) const;
  void start_program(int step);
  void program_tick(bool& dirty);     // take a finished run into base.program
  void program_join();
};

// One turn of the worker: apply the UI's commands, advance the playback clock, publish.
void play_tick(Session::Impl& I, std::chrono::steady_clock::time_point& last, bool& dirty);

}  // namespace lab::visual
