// visual/demo_script.h: `gpulab demo`'s lecture script. It opens on the
// question (the same GEMM on this machine's CPU, measured, beside every GPU
// version, predicted: the comparison chart and the roofline, the speed-up in
// the banner), then the progression's kernels in order; for each, an
// overview beat with one plain sentence of why it is faster, and one beat
// per key moment of its trace (first uncoalesced load, first bank conflict,
// a full SM, the tail wave: TraceReplay::moments), each shown in the pane
// that makes its point, and a beat showing the SM grid from the cycle
// model's cycles (timed in the background from the first beat); it closes
// on the whole progression, chart and roofline again. The whole script
// takes `minutes` (10 by default): a tenth each for the opening and the
// close, the rest split evenly over the kernels and, within one, over its
// beats. The clock runs only while a kernel's trace is on screen, so a slow
// simulation does not eat its beats, and not while paused (Space).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "visual/view_model.h"

namespace lab::visual {

class DemoScript {
 public:
  explicit DemoScript(double minutes) : minutes_(minutes) {}
  struct Action {
    int select_kernel = -1;     // ask the session for this version
    bool seek = false;          // jump the replay to `position`
    uint64_t position = 0;
    bool play = false;          // play from here (the overview beat)
  };
  // One frame: `dt` seconds since the last; `kernels` in the progression;
  // `next`/`prev`: the presenter's keys. Writes the banner and the panes to
  // show into `ui`.
  Action update(double dt, const ViewModel& vm, int kernels, bool next, bool prev, UiState& ui);
  void toggle_pause() { paused_ = !paused_; }
  // --pictures: the beat on screen waits (past its time) until its picture is taken, so a slow frame never skips one.
  void hold(bool h) { hold_ = h; }
  bool paused() const { return paused_; }
  int kernel() const { return kernel_; }
  int beat() const { return beat_; }
  double elapsed() const { return elapsed_; }
  double total_seconds() const { return minutes_ * 60; }
  bool finished() const { return finished_; }
  // Which beat is on screen, as one number that changes with every beat
  // (the opening, each kernel's beats, the close); -1 while a kernel's
  // trace is still coming.
  double beat_seconds() const { return beat_len_; }  // the script's length of the beat on screen
  double beat_clock() const { return beat_clock_; }  // the script's seconds into it (still while waiting or paused)
  int beat_key() const {
    if (stage_ == Stage::Kernels && beat_ < 0) return -1;
    return int(stage_) * 100000 + kernel_ * 100 + std::max(0, beat_);
  }

 private:
  bool on_screen(const ViewModel& vm) const;
  enum class Stage { Opening, Kernels, Closing };
  Stage stage_ = Stage::Opening;
  bool paused_ = false;
  bool hold_ = false;
  double waited_ = 0;      // seconds the opening waited for the chart's GPU points
  double minutes_;
  int kernel_ = 0;
  int beat_ = -1;          // -1: waiting for the kernel's trace; 0: overview; k: moment k-1
  int requested_ = 0;      // kernel asked of the session (it opens on the first)
  double beat_clock_ = 0;  // seconds into this beat
  double beat_len_ = 0;    // seconds the beat on screen lasts (the opening's and the close's tenth, or a kernel's share)
  double elapsed_ = 0;     // seconds of the script shown so far
  bool finished_ = false;
};

}  // namespace lab::visual
