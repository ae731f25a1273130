// visual/session.h: the worker thread behind the views. It compiles and
// simulates the chosen GEMM version (or the user's kernel), records a trace,
// replays it at the playback speed the UI asks for, and publishes a fresh
// ViewModel for the UI thread to draw. The UI only calls snapshot() and
// send(); it never waits on the simulation.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "visual/view_model.h"

namespace lab::visual {

struct SessionConfig {
  std::string version;        // GEMM version name ("03_smem_tiled"); "" = the progression's third
  std::string file, kernel;   // a user's kernel (file.cu --kernel NAME) instead of a GEMM version
  uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};  // its launch
  std::vector<std::string> args;                        // its --arg specs (see `gpulab sim`)
  std::string lesson_dir;     // lessons/NN-topic (lab/lesson finds it): its steps drive the view
  int lesson_step = -1;       // the step to open at (0-based); -1 = the first that runs a kernel
  std::string gpu = "H100";
  int size = 128;             // M = N = K of the traced GEMM
  size_t max_events = 1'500'000;
  // Runs bigger than trace_max_size^3 are watched live (visual/live.h): no
  // full trace, so no stepping, but the simulation runs at nearly full speed.
  int trace_max_size = 128;
  uint32_t event_every = 64;  // live runs: SimOptions::event_every
  unsigned sim_threads = 0;   // simulator worker threads; 0 = all cores, as `gpulab sim`
  bool print_sim_time = false;  // print each run's simulator wall time on stdout
  int predict_size = 128;     // M = N = K at which the roofline's GPU points are predicted
  double start_fraction = 0;  // where the cursor starts (0..1) once the trace is ready
  bool autoplay = false;
  float speed = 400;          // warp instructions per second
};

class Session {
 public:
  explicit Session(SessionConfig cfg);
  ~Session();
  std::shared_ptr<const ViewModel> snapshot() const;
  // Forwards UiState's requests (commands, speed, launch choices) to the worker.
  void send(UiState& ui);
  // True once the first trace has been recorded and placed (or failed).
  bool ready() const { return ready_.load(); }
  // True once every version of the progression has its roofline point.
  bool charts_ready() const { return charts_ready_.load(); }
  // Switches to GEMM version `index` of the progression (demo's Page Up/Down).
  void select_version(int index);
  // Runs a lesson step's kernel (steps that run none leave the kernel on screen).
  void select_step(int step);
  // The launch panel's Run: version, GPU model and size by their index in
  // LaunchInfo's choices (-1: keep), backend too.
  void request_launch(int version, int gpu, int size, int backend);
  int version_count() const;
  struct Impl;  // the worker's state (session_impl.h)

 private:
  void run();
  std::unique_ptr<Impl> impl_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> charts_ready_{false};
  std::atomic<bool> stop_{false};
  std::thread worker_;
};

}  // namespace lab::visual
