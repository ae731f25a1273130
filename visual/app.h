// visual/app.h: the window: GLFW + OpenGL 3.3 + ImGui, the frame loop,
// screenshots and frame timing. `gpulab view` and `gpulab demo` call run_app.
#pragma once

#include <string>

#include "visual/session.h"

namespace lab::visual {

struct AppOptions {
  SessionConfig session;
  bool demo = false;             // full screen, large fonts, high contrast, auto-play
  std::string screenshot;        // write this PNG after `frames` frames, then exit
  int frames = 30;
  int width = 1600, height = 900;
  bool size_given = false;       // --size: otherwise the demo fills the screen, pictures too
  bool fps = false;              // print measured UI frame times at exit
  std::string panel = "all";     // one view full window, or all
  float scale = 1.f;             // text size on top of the window's own scaling ([ and ] change it)
  std::string state;             // with screenshot: write what the frame shows as JSON here
  double shot_after_seconds = 0; // > 0: take the screenshot this long after the first trace (not after `frames`)
  double demo_minutes = 10;      // the demo script's length
  bool projector = false;        // one or two large panes, chosen by the lesson step (demo: always)
  int warp = -1;                 // --warp: the cycle SM grid opens with this warp slot (1-block side) picked
  std::string pictures;          // demo --pictures DIR: one picture per beat there, and beats.txt listing them
};

constexpr int kNoDisplay = 3;    // run_app's answer when no window can be opened

// Returns 0, kNoDisplay when GLFW cannot open a display, or 2 on errors.
int run_app(const AppOptions& options);

// True when a display server seems reachable ($DISPLAY or $WAYLAND_DISPLAY set).
bool display_available();

// The text size in pixels for a window of w x h: `base` at 1600x900, scaled
// with the window (within 0.75x..3x) and by the chosen `scale`.
float text_pixels(float base, int w, int h, float scale);

// Writes the current framebuffer (width x height, RGB) as a PNG; false on failure.
bool write_framebuffer_png(const std::string& path, int width, int height);

// The file the E key writes the picture on screen to: the first
// DIR/gpulab-picture-NNN.png (NNN from 001) that does not exist, so no
// earlier picture (or anything else) is ever overwritten. Empty when all
// 999 names are taken.
std::string next_picture_name(const std::string& dir);

}  // namespace lab::visual
