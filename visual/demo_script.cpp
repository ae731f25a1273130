// visual/demo_script.cpp: beats, their clock, and what each beat shows.
#include "visual/demo_script.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "visual/screen_state.h"
#include "visual/theme.h"

namespace lab::visual {

namespace {
std::string clock_text(double s) {
  char t[16];
  int m = int(s) / 60;
  std::snprintf(t, sizeof t, "%d:%02d", m, int(s) - 60 * m);
  return t;
}

// One sentence per kernel for the audience: what changed and why it is
// faster. Keyed by the version's number (kernels/gemm/gemm.toml).
const char* why(const std::string& version) {
  static const std::pair<const char*, const char*> k[] = {
      {"01", "one thread per output, reading A and B straight from memory: a warp's 32 loads land in 32 different "
             "sectors, so most of every byte moved is thrown away"},
      {"02", "the same arithmetic with neighbouring threads on neighbouring columns: a warp's loads now share sectors "
             "(coalescing), the same work for a fraction of the memory traffic"},
      {"03", "tiles of A and B staged in shared memory: each value brought from memory is reused by 32 threads"},
      {"04", "each thread computes 8 outputs: one load from shared memory feeds 8 multiply-adds held in registers"},
      {"05", "an 8 x 8 tile of outputs per thread: registers reused both ways, far fewer loads per multiply-add"},
      {"06", "16-byte loads and a transposed tile: fewer, wider memory instructions and no bank conflicts"},
      {"07", "each warp owns a 64 x 64 piece of the tile: its loads stay conflict-free and its registers are reused"},
      {"08", "tensor cores: one warp instruction multiplies whole 16 x 16 x 16 tiles (FP16 in, FP32 out)"},
      {"09", "tensor cores fed directly (mma.sync, ldmatrix) while the next tiles arrive by asynchronous copy"},
      {"10", "Hopper's own path: the copy engine (TMA) moves whole tiles, and wgmma, issued by four warps together, "
             "reads them straight from shared memory at the tensor cores' full rate"},
      {"11", "the copy engine and the tensor cores stop taking turns: one warpgroup only fetches tiles, two only "
             "multiply, three shared-memory stages between them"},
  };
  for (const auto& [id, text] : k)
    if (version.rfind(id, 0) == 0) return text;
  return "";
}

// The comparison chart's best CPU and best GPU rates (GFLOP/s), and how many
// GPU points have arrived.
struct Best {
  double cpu = 0, gpu = 0;
  std::string cpu_name, gpu_name;
  int gpu_points = 0, gpu_arrived = 0;
};
Best best_of(const ViewModel& vm) {
  Best b;
  for (const PerfPoint& p : vm.comparison.versions) {
    if (!p.cpu && p.gflops != 0) ++b.gpu_arrived;  // a failed prediction (-1) has arrived too
    if (p.gflops <= 0) continue;
    if (p.cpu && p.gflops > b.cpu) b.cpu = p.gflops, b.cpu_name = p.label;
    if (!p.cpu) {
      ++b.gpu_points;
      if (p.gflops > b.gpu) b.gpu = p.gflops, b.gpu_name = p.label;
    }
  }
  return b;
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
  // The opening and the close: the question and the answer, on the chart
  // and the roofline (the session fills both as its points arrive).
  const double bookend = 0.1 * total_seconds();
  beat_len_ = bookend;
  if (stage_ != Stage::Kernels) {
    const bool opening = stage_ == Stage::Opening;
    ui.focus = {Panel::Comparison, Panel::Roofline};
    ui.projector = true;
    const Best b = best_of(vm);
    // The opening's clock waits for the chart's GPU points (predicted in the
    // background, a few seconds each), at most a minute.
    // (With --pictures, hold_: no audience waits, so the opening's picture waits for every point.)
    const bool waiting = opening && b.gpu_arrived < kernels && (waited_ < 60 || hold_);
    if (waiting && !paused_) waited_ += dt;
    else if (!paused_ && !finished_) beat_clock_ += dt, elapsed_ += dt;
    if (opening && (next || (beat_clock_ >= bookend && !hold_))) {
      stage_ = Stage::Kernels;
      beat_clock_ = 0;
      beat_ = -1;
    } else if (!opening && (next || (beat_clock_ >= bookend && !hold_))) {
      finished_ = true;
    } else if (!opening && prev) {
      stage_ = Stage::Kernels;
      beat_clock_ = 0;
      beat_ = -1;
    }
    std::string what;
    if (b.cpu > 0 && b.gpu > 0)
      what = fmt::format("{}: the best CPU code here ({}, measured) {}, the best GPU kernel ({}, predicted) {}: "
                         "{:.0f}x{}",
                         opening ? "Why GPUs? The same GEMM on this machine's CPU and on the GPU"
                                 : "The whole progression, each version's speed-up over the first CPU version on the chart",
                         b.cpu_name, flops_text(b.cpu), b.gpu_name, flops_text(b.gpu), b.gpu / b.cpu,
                         b.gpu_points < kernels ? fmt::format(" (GPU points: {} of {} so far)", b.gpu_points, kernels)
                                                : "");
    else
      what = opening ? "Why GPUs? The same GEMM on this machine's CPU (measured) and on the GPU (predicted): timing..."
                     : "The whole progression: timing...";
    ui.banner = what + fmt::format("  [{}{} / {}; demo {} / {}]", paused_ ? "paused, " : "", clock_text(beat_clock_),
                                   clock_text(bookend), clock_text(elapsed_), clock_text(total_seconds()));
    shown("demo.stage", opening ? "opening" : "closing");
    shown("demo.kernel_index", double(opening ? -1 : kernels));
    shown("demo.beat", -1.0);
    shown("demo.caption", what);
    shown("demo.paused", paused_);
    shown("demo.elapsed_seconds", elapsed_);
    shown("demo.total_seconds", total_seconds());
    shown("demo.finished", finished_);
    if (!opening || stage_ != Stage::Kernels) return act;
  }
  if (requested_ != kernel_) {
    act.select_kernel = kernel_;
    requested_ = kernel_;
    beat_ = -1;
  }
  const double per_kernel = (total_seconds() - 2 * bookend) / kernels;
  // Beats: the overview, the trace's moments, then the SM cycle by cycle.
  // The trace's moments the lecture shows: not those about the replay's
  // small launch leaving SMs idle (the replay is small so that it can be
  // stepped; the cycle beat and the chart speak for a full GPU).
  std::vector<const Moment*> moments;
  for (const Moment& m : vm.moments)
    if (!m.underfilled) moments.push_back(&m);
  const int beats = 2 + int(moments.size());
  const int cycles_beat = beats - 1;
  // The cycle model times the kernel in the background from its first beat
  // (5-12 s of CPU on the worker's own thread), so its beat finds it ready.
  if (on_screen(vm)) ui.timeline_wanted = true;
  const double per_beat = per_kernel / beats;
  beat_len_ = per_beat;
  auto go_beat = [&](int b) {
    beat_ = b;
    beat_clock_ = 0;
    ui.sm_placement = b != cycles_beat;  // the replay's beats show placement; the last one, cycles
    if (b == 0) {
      // The kernel's main loop (the trace's middle) in the source with its
      // per-line counts, beside the chart of every version: what changed, and
      // what it bought. (The replay's placement grid is small by design: the
      // GPU it shows is mostly idle, not the lecture's point.)
      act.seek = true, act.position = vm.playback.total / 2, act.play = true;
      ui.focus = {Panel::Source, Panel::Comparison};
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
    } else if (size_t(b - 1) < moments.size()) {
      const Moment& m = *moments[size_t(b - 1)];
      act.seek = true, act.position = m.position;
      ui.focus = {panel_from_name(m.pane), Panel::Source};
    }
  };
  auto next_kernel = [&](int d) {
    int k = kernel_ + d;
    if (k < 0) {  // back before the first kernel: the opening
      stage_ = Stage::Opening;
      beat_clock_ = 0;
      beat_ = -1;
      return;
    }
    if (k >= kernels) {  // past the last kernel: the close
      stage_ = Stage::Closing;
      beat_clock_ = 0;
      beat_ = -1;
      k = kernels - 1;
    }
    kernel_ = std::max(0, k);
    if (requested_ != kernel_) act.select_kernel = kernel_, requested_ = kernel_, beat_ = -1;
  };
  if (beat_ < 0) {
    if (on_screen(vm)) go_beat(0);
  } else {
    if (!finished_ && !paused_) beat_clock_ += dt, elapsed_ += dt;
    if (next || (beat_clock_ >= per_beat && !finished_ && !hold_)) {
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
  if (beat_ == 0) what = std::string(why(name)).empty() ? "overview: the kernel runs" : why(name);
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
  else if (beat_ > 0 && size_t(beat_ - 1) < moments.size())
    what = moments[size_t(beat_ - 1)]->name + ": " + moments[size_t(beat_ - 1)]->caption;
  char t[96];
  std::snprintf(t, sizeof t, "  [%s%s / %s, kernel %d of %d; demo %s / %s]", paused_ ? "paused, " : "",
                clock_text(beat_clock_).c_str(),
                clock_text(per_beat).c_str(), kernel_ + 1, kernels, clock_text(elapsed_).c_str(),
                clock_text(total_seconds()).c_str());
  ui.banner = name + ": " + what + t;
  ui.projector = true;
  shown("demo.stage", "kernels");
  shown("demo.paused", paused_);
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
