// visual/demo_script.cpp: beats, their clock, and what each beat shows.
#include "visual/demo_script.h"

#include <algorithm>
#include <cstdio>

#include "visual/screen_state.h"

namespace lab::visual {

namespace {
std::string clock_text(double s) {
  char t[16];
  int m = int(s) / 60;
  std::snprintf(t, sizeof t, "%d:%02d", m, int(s) - 60 * m);
  return t;
}
}  // namespace

bool DemoScript::on_screen(const ViewModel& vm) const {
  // The session has published this kernel's trace (not the previous one's, not "simulating...").
  return vm.launch.current_kernel == kernel_ && vm.playback.total > 0;
}

DemoScript::Action DemoScript::update(double dt, const ViewModel& vm, int kernels, bool next, bool prev,
                                      UiState& ui) {
  Action act;
  kernels = std::max(1, kernels);
  if (requested_ != kernel_) {
    act.select_kernel = kernel_;
    requested_ = kernel_;
    beat_ = -1;
  }
  const double per_kernel = total_seconds() / kernels;
  // Beats: the overview, the trace's moments, then the SM cycle by cycle.
  const int beats = 2 + int(vm.moments.size());
  const int cycles_beat = beats - 1;
  // The cycle model times the kernel in the background from its first beat
  // (5-12 s of CPU on the worker's own thread), so its beat finds it ready.
  if (on_screen(vm)) ui.timeline_wanted = true;
  const double per_beat = per_kernel / beats;
  auto go_beat = [&](int b) {
    beat_ = b;
    beat_clock_ = 0;
    ui.sm_placement = b != cycles_beat;  // the replay's beats show placement; the last one, cycles
    if (b == 0) {
      act.seek = true, act.position = 0, act.play = true;
      ui.focus = {Panel::SmGrid, Panel::Source};
    } else if (b == cycles_beat) {
      // The SM grid from cycles alone: both residencies, issue slots and warps
      // stay legible in the demo's large text (the timeline pane is key T).
      ui.focus = {Panel::SmGrid};
      // Open 5% into the drawn SM's run, where both sides' first blocks have
      // every warp resident (03_smem_tiled: the 1-block SM idle on
      // long_scoreboard while the 2-block SM issues every cycle).
      ui.timeline_cycle = -1;
      ui.cycle_open_fraction = 0.05;
      ui.timeline_playing = true;
      ui.timeline_speed = 60;
    } else if (size_t(b - 1) < vm.moments.size()) {
      const Moment& m = vm.moments[size_t(b - 1)];
      act.seek = true, act.position = m.position;
      ui.focus = {panel_from_name(m.pane), Panel::Source};
    }
  };
  auto next_kernel = [&](int d) {
    int k = kernel_ + d;
    if (k >= kernels) {
      finished_ = true;
      k = kernels - 1;
    }
    kernel_ = std::max(0, k);
    if (requested_ != kernel_) act.select_kernel = kernel_, requested_ = kernel_, beat_ = -1;
  };
  if (beat_ < 0) {
    if (on_screen(vm)) go_beat(0);
  } else {
    if (!finished_) beat_clock_ += dt, elapsed_ += dt;
    if (next || (beat_clock_ >= per_beat && !finished_)) {
      if (beat_ + 1 < beats) go_beat(beat_ + 1);
      else next_kernel(+1);
    } else if (prev) {
      if (beat_ > 0) go_beat(beat_ - 1);
      else next_kernel(-1);
    }
  }
  // The banner: where we are, what this beat shows, and the clocks.
  std::string name = kernel_ < int(vm.launch.kernels.size()) ? vm.launch.kernels[size_t(kernel_)] : "";
  std::string what = "simulating...";
  if (beat_ == 0) what = "overview: the kernel runs";
  else if (beat_ == cycles_beat) {
    char c[200] = "one SM cycle by cycle: the cycle model is timing it...";
    if (vm.timeline && vm.timeline->ready() && vm.timeline->same_residency)
      std::snprintf(c, sizeof c, "one SM cycle by cycle: one block per SM at most here; issue slots used %.0f%% (predicted)",
                    100 * vm.timeline->sides[1].issue_utilisation);
    else if (vm.timeline && vm.timeline->ready())
      std::snprintf(c, sizeof c,
                    "one SM cycle by cycle: warps interleave; issue slots used %.0f%% at 1 block per SM vs %.0f%% at "
                    "%u (predicted)",
                    100 * vm.timeline->sides[0].issue_utilisation, 100 * vm.timeline->sides[1].issue_utilisation,
                    vm.timeline->sides[1].blocks_per_sm);
    else if (vm.timeline && !vm.timeline->status.empty())
      std::snprintf(c, sizeof c, "one SM cycle by cycle: %s", vm.timeline->status.c_str());
    what = c;
  }
  else if (beat_ > 0 && size_t(beat_ - 1) < vm.moments.size())
    what = vm.moments[size_t(beat_ - 1)].name + ": " + vm.moments[size_t(beat_ - 1)].caption;
  char t[96];
  std::snprintf(t, sizeof t, "  [%s / %s, kernel %d of %d; demo %s / %s]", clock_text(beat_clock_).c_str(),
                clock_text(per_beat).c_str(), kernel_ + 1, kernels, clock_text(elapsed_).c_str(),
                clock_text(total_seconds()).c_str());
  ui.banner = name + ": " + what + t;
  ui.projector = true;
  shown("demo.kernel_index", double(kernel_));
  shown("demo.kernel", name);
  shown("demo.beat", double(beat_));
  shown("demo.beats", double(beats));
  shown("demo.beat_seconds", per_beat);
  shown("demo.elapsed_seconds", elapsed_);
  shown("demo.total_seconds", total_seconds());
  shown("demo.caption", what);
  shown("demo.finished", finished_);
  return act;
}

}  // namespace lab::visual
