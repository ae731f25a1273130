// visual/theme.h: colours with a meaning, shared by every view and legend.
// One place decides what "waiting on memory" looks like, so the SM grid, the
// block view and the legends always agree.
#pragma once

#include <imgui.h>

#include <string>

#include "visual/view_model.h"

namespace lab::visual {

struct Palette {
  ImU32 warp_state[5];   // indexed by WarpState
  ImU32 sm_frame, sm_frame_selected, panel_text_dim;
  ImU32 heat_low, heat_high, footprint;
  ImU32 sector_used, sector_wasted, line_frame, lane;
  ImU32 bank_idle, bank_ok, bank_conflict;
  ImU32 roof, cpu_point, gpu_predicted, gpu_measured, current;
};

// The active palette (normal or high contrast).
const Palette& palette();
void apply_theme(bool high_contrast);
bool high_contrast();

// Pixel sizes in the views are written for 15-pixel text; px(v) scales
// them with the chosen text size (set by the app when it builds the font).
void set_ui_scale(float s);
float ui_scale();
inline float px(float v) { return v * ui_scale(); }

// Heat colour for t in [0,1]: dark blue -> yellow -> red.
ImU32 heat_color(float t);
// Text wrapped at spaces only, in the current text colour. ImGui's own
// wrapping may break after a '.', splitting "85.0%" at its decimal point.
void text_words(const std::string& text);
// A rate in three digits without exponents: "491 GFLOP/s", "65.8 TFLOP/s".
std::string flops_text(double gflops);
// A coloured square and its label, on one line.
void legend_item(ImU32 color, const char* label);
// The next legend item on the same line when it fits there, else on the next one.
void legend_next(ImU32 color, const char* label);
// A log-scale heat colour key with numbers: 0 .. max_value, in `unit`.
void heat_key(double max_value, const char* unit);
// Legend for the warp states (Issuing, Barrier, Memory, Done).
void warp_state_legend();
// The timeline's colour for a warp state by Nsight's name ("long_scoreboard",
// "barrier", ...): memory waits and barriers as the SM grid draws them.
ImU32 stall_color(const std::string& nsight_name);

}  // namespace lab::visual
