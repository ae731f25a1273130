// lab/cli/cmd_view.cpp: `gpulab view [LESSON | FILE.cu] ...` opens the visual
// lab (with no argument: the GEMM progression); `gpulab demo` is the
// instructor's mode. Without a display both print the progression's table and
// say how to open the view.
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <string>

#include "lab/gemm/gemm_registry.h"
#include "lab/cli/command.h"
#include "lab/sim/launch.h"
#include "lab/lesson/manifest.h"
#include "lab/cli/gpu_option.h"
#ifdef GPULAB_HAVE_VISUAL
#include "visual/app.h"
#endif

namespace lab::cli {
namespace {

struct ViewArgs {
  std::vector<std::string> args, grid, block;
  std::string target, kernel, version, gpu = "H100", screenshot, window_size = "1600x900", panel = "all", state,
      pictures;
  int n = 128, frames = 30, step = 0, predict = 0, warp = -1;
  double at = 0, minutes = 10, shot_after = 0;
  float speed = 400, scale = 1.f;
  bool fps = false, play = false, sim_time = false, projector = false, size_given = false;
  unsigned event_every = 64;
};

int print_table(bool built_with_view) {
  std::printf("GPU Lab: the GEMM progression\n\n");
  try {
    auto versions = gemm::load_gemm_versions();
    std::printf("  %-22s %-10s %-12s %-12s\n", "version", "precision", "block", "tile/block");
    for (const auto& v : versions)
      std::printf("  %-22s %-10s %4ux%-7u %4ux%-7u\n", v.name.c_str(), gemm::precision_name(v.precision), v.block[0],
                  v.block[1], v.tile[0], v.tile[1]);
  } catch (const std::exception& e) {
    std::printf("  (cannot read the progression: %s)\n", e.what());
  }
  std::printf("\nTimings: `gpulab bench` measures the CPU versions and predicts or measures the GPU ones.\n\n");
  if (built_with_view)
    std::printf("No display found ($DISPLAY and $WAYLAND_DISPLAY are unset, or the X server refused).\n"
                "To see the visual lab, run on a desktop, or render a picture without one:\n"
                "  xvfb-run -a -s \"-screen 0 1600x900x24\" gpulab view --screenshot lab.png\n");
  else
    std::printf("This gpulab was built without the visual lab (Dear ImGui, GLFW, OpenGL not found).\n"
                "Install libimgui-dev libglfw3-dev libgl-dev and rebuild with -DGPULAB_VISUAL=ON.\n");
  return kExitOk;
}

int run_view(const ViewArgs& a, bool demo) {
  // A runaway kernel in the view's worker threads ends in seconds with a hang
  // report (the same per-warp budget as `gpulab sim`).
  sim::LaunchLimits limits;
  limits.max_steps = 10'000'000;
  sim::LaunchLimitScope::set_process_default(limits);
#ifdef GPULAB_HAVE_VISUAL
  visual::AppOptions o;
  o.demo = demo;
  o.screenshot = a.screenshot;
  o.frames = a.frames;
  o.fps = a.fps;
  o.panel = a.panel;
  o.scale = a.scale;
  o.state = a.state;
  o.shot_after_seconds = a.shot_after;
  o.demo_minutes = a.minutes;
  o.projector = a.projector;
  o.warp = a.warp;
  o.pictures = a.pictures;
  o.size_given = a.size_given;
  if (!a.state.empty() && a.screenshot.empty()) {
    std::fprintf(stderr, "gpulab view: --state FILE.json is written with a picture: add --screenshot FILE.png\n");
    return kExitUsage;
  }  if (std::sscanf(a.window_size.c_str(), "%dx%d", &o.width, &o.height) != 2 || o.width < 320 || o.height < 240) {
    std::fprintf(stderr, "gpulab view: --size '%s': give WIDTHxHEIGHT, at least 320x240 (e.g. 1600x900)\n",
                 a.window_size.c_str());
    return kExitUsage;
  }
  bool ok = false;
  visual::panel_from_name(a.panel, &ok);
  if (!ok) {
    std::fprintf(stderr, "gpulab view: --panel '%s': choose all, sm, block, memory, coalescing, banks, source, "
                         "roofline, comparison, occupancy, lesson or timeline\n", a.panel.c_str());
    return kExitUsage;
  }
  // CLI11's range check lets NaN through (every comparison with it is false).
  if (!std::isfinite(a.scale) || a.scale < 0.5f || a.scale > 4.f) {
    std::fprintf(stderr, "gpulab view: --scale %g: give a number from 0.5 to 4\n", double(a.scale));
    return kExitUsage;
  }
  if (!a.version.empty()) {
    std::string known;
    bool found = false;
    for (const auto& v : gemm::load_gemm_versions()) found |= v.name == a.version, known += " " + v.name;
    if (!found) {
      std::fprintf(stderr, "gpulab view: --version '%s' is not a GEMM version; choose one of:%s\n", a.version.c_str(),
                   known.c_str());
      return kExitUsage;
    }
  }
  visual::SessionConfig& s = o.session;
  s.gpu = a.gpu;
  s.size = a.n;
  // The chart's and the roofline's size: the demo's question (CPU against
  // GPU) is asked where the GPU is filled; the view keeps its quick 128^3.
  s.predict_size = a.predict > 0 ? a.predict : demo ? 1024 : 128;
  s.version = a.version.empty() && demo ? "01_naive" : a.version;  // the demo tells the story from the start
  s.start_fraction = a.at;
  s.speed = a.speed;
  s.autoplay = a.play || demo;
  s.print_sim_time = a.sim_time;
  s.event_every = std::max(1u, a.event_every);
  if (!a.target.empty()) {
    namespace fs = std::filesystem;
    fs::path t(a.target);
    if (t.extension() == ".cu") {
      // A GEMM version's file selects that version; other kernels are not traced by the view yet.
      bool found = false;
      try {
        for (const auto& v : gemm::load_gemm_versions())
          if (fs::path(v.file).filename() == t.filename()) s.version = v.name, found = true;
      } catch (const std::exception&) {
      }
      if (!found || !a.kernel.empty()) {
        if (a.kernel.empty()) {
          std::fprintf(stderr, "gpulab view: %s: name the kernel to launch with --kernel NAME (and --grid, "
                               "--block, --arg as for `gpulab sim`)\n", a.target.c_str());
          return kExitUsage;
        }
        s.file = a.target;
        s.kernel = a.kernel;
        s.args = a.args;
        auto dims = [&](const std::vector<std::string>& v, uint32_t* out) {
          if (v.size() > 3) throw std::invalid_argument("too many");
          for (size_t i = 0; i < v.size(); ++i) {
            const unsigned long d = std::stoul(v[i]);
            if (d == 0 || d > 0xffffffffu || v[i].find('-') != std::string::npos) throw std::invalid_argument("not positive");
            out[i] = uint32_t(d);
          }
        };
        try {
          dims(a.grid, s.grid);
          dims(a.block, s.block);
        } catch (const std::exception&) {
          std::fprintf(stderr, "gpulab view: --grid/--block take 1 to 3 positive integers\n");
          return kExitUsage;
        }
      }
    } else {
      // Lessons are found by lab/lesson, as `gpulab lesson` finds them.
      std::string dir = lesson::find_lesson_dir(GPULAB_SOURCE_DIR "/lessons", a.target);
      if (dir.empty()) {
        std::fprintf(stderr, "gpulab view: '%s' is neither a lesson (lessons/NN-topic) nor a .cu file\n",
                     a.target.c_str());
        return kExitUsage;
      }
      s.lesson_dir = dir;
      // --step 0 (the default) opens the first step that runs a kernel.
      try {
        const lesson::Lesson l = lesson::load_lesson(dir);
        const size_t steps = l.steps.size();
        // A lesson that times the CPU GEMM (lesson 01) draws its CPU-against-GPU
        // chart at the size its text measures, not the view's quick 128^3.
        for (const auto& st : l.steps)
          if (st.cpu_gemm > 0 && a.predict <= 0) s.predict_size = st.cpu_gemm;
        if (a.step < 0 || size_t(a.step) > steps) {
          std::fprintf(stderr, "gpulab view: --step %d: lesson %s has %zu steps; give 1 to %zu\n", a.step,
                       fs::path(dir).filename().c_str(), steps, steps);
          return kExitUsage;
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "gpulab view: %s\n", e.what());
        return kExitUsage;
      }
      s.lesson_step = a.step - 1;  // --step is 1-based, as the lesson pane counts
      o.projector = true;          // a lesson shows its step's panes large; P switches to all views
    }
  }
  int rc = visual::run_app(o);
  if (rc == visual::kNoDisplay) {
    if (!a.screenshot.empty()) {
      std::fprintf(stderr, "gpulab view: --screenshot needs a display; run it under "
                           "xvfb-run -a -s \"-screen 0 1600x900x24\"\n");
      return kExitUsage;
    }
    return print_table(true);
  }
  return rc;
#else
  (void)demo;
  (void)a;
  return print_table(false);
#endif
}

void add_options(CLI::App* cmd, ViewArgs& a, bool target) {
  if (target) cmd->add_option("target", a.target, "a lesson (01, lessons/01-...) or a kernel file (.cu)");
  cmd->add_option("--kernel", a.kernel, "kernel name in FILE.cu");
  cmd->add_option("--grid", a.grid, "grid dimensions for FILE.cu: X [Y [Z]]")->expected(1, 3);
  cmd->add_option("--block", a.block, "block dimensions for FILE.cu: X [Y [Z]]")->expected(1, 3);
  cmd->add_option("--arg", a.args, "kernel argument spec, as for `gpulab sim` (repeat per parameter)");
  cmd->add_option("--version", a.version, "GEMM version to open (e.g. 03_smem_tiled)");
  add_gpu_option(cmd, a.gpu, "GPU model")->capture_default_str();
  cmd->add_option("--predict", a.predict,
                  "M = N = K of the CPU-vs-GPU chart and the roofline (CPU measured, GPU predicted; default 128, "
                  "the demo 1024)")
      ->check(CLI::Range(16, 4096));
  cmd->add_option("--n", a.n, "M = N = K of the GEMM; above 128 it is watched live (no stepping)")->capture_default_str()->check(CLI::Range(16, 1024));
  cmd->add_option("--screenshot", a.screenshot, "render, write this PNG and exit");
  cmd->add_option("--frames", a.frames, "frames to render before the screenshot")->capture_default_str();
  cmd->add_option("--size", a.window_size, "window size WxH")->capture_default_str()->each([&a](const std::string&) {
    a.size_given = true;
  });
  cmd->add_option("--scale", a.scale, "text size, on top of the window's own scaling ([ and ] change it)")
      ->capture_default_str()->check(CLI::Range(0.5, 4.0));
  cmd->add_option("--state", a.state, "with --screenshot: write what the frame shows as JSON");
  cmd->add_option("--shot-after", a.shot_after, "take the screenshot this many seconds after the first trace is ready");
  cmd->add_flag("--projector", a.projector, "one or two large panes, chosen by the lesson step (P toggles)");
  if (!target)
    cmd->add_option("--pictures", a.pictures, "write each beat's picture (beat-NN.png) and beats.txt (time, caption) "
                                              "into this existing folder, then exit at the script's end")
        ->check(CLI::ExistingDirectory);
  if (target) cmd->add_option("--step", a.step, "a lesson: open at this step (1-based; default the first that runs a kernel)");
  cmd->add_option("--minutes", a.minutes, "demo: length of the lecture script")->capture_default_str()->check(CLI::Range(0.1, 120.0));
  cmd->add_option("--panel", a.panel, "one view full window: sm, block, memory, coalescing, banks, source, "
                                      "roofline, comparison, occupancy, lesson, timeline; or all")->capture_default_str();
  cmd->add_option("--at", a.at, "start the replay at this fraction of the trace (0..1)")->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--warp", a.warp, "the cycle SM grid opens with this warp slot of the 1-block SM picked: what it "
                                    "does and waits for (a click picks another)")->check(CLI::Range(0, 2047));
  cmd->add_option("--speed", a.speed, "playback speed, warp instructions per second")->capture_default_str();
  cmd->add_flag("--play", a.play, "start playing at once");
  cmd->add_flag("--fps", a.fps, "print the UI's measured frame times at exit");
  cmd->add_flag("--sim-time", a.sim_time, "print the simulator's own wall time for each run");
  cmd->add_option("--event-every", a.event_every,
                  "runs above 128^3 are watched live: sample 1 in N non-global instructions")->capture_default_str();
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  static ViewArgs view, demo;
  auto* v = app.add_subcommand("view", "open the visual lab (GEMM progression, a lesson, or a kernel)");
  add_options(v, view, true);
  v->callback([&rc] { rc = run_view(view, false); });
  auto* d = app.add_subcommand("demo", "instructor mode: full screen, large fonts, auto-play through the GEMM progression");
  add_options(d, demo, false);
  d->callback([&rc] { rc = run_view(demo, true); });
});

}  // namespace
}  // namespace lab::cli
