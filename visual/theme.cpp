// visual/theme.cpp: the two palettes and the ImGui style that goes with them.
#include "visual/theme.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace lab::visual {

namespace {
// Dark theme: state colours chosen to stay distinct for the common forms of
// colour blindness (blue / orange / purple / grey rather than red vs green).
Palette make_normal() {
  Palette p{};
  p.warp_state[0] = IM_COL32(45, 48, 56, 255);      // empty slot
  p.warp_state[1] = IM_COL32(64, 200, 120, 255);    // issuing
  p.warp_state[2] = IM_COL32(170, 110, 240, 255);   // at barrier
  p.warp_state[3] = IM_COL32(245, 160, 40, 255);    // waiting on memory
  p.warp_state[4] = IM_COL32(90, 96, 110, 255);     // done
  p.sm_frame = IM_COL32(110, 120, 140, 255);
  p.sm_frame_selected = IM_COL32(255, 255, 255, 255);
  p.panel_text_dim = IM_COL32(150, 156, 170, 255);
  p.heat_low = IM_COL32(20, 24, 60, 255);
  p.heat_high = IM_COL32(255, 80, 40, 255);
  p.footprint = IM_COL32(0, 255, 255, 255);
  p.sector_used = IM_COL32(64, 200, 120, 255);
  p.sector_wasted = IM_COL32(200, 70, 70, 255);
  p.line_frame = IM_COL32(140, 150, 170, 255);
  p.lane = IM_COL32(90, 170, 255, 255);
  p.bank_idle = IM_COL32(45, 48, 56, 255);
  p.bank_ok = IM_COL32(64, 200, 120, 255);
  p.bank_conflict = IM_COL32(255, 40, 40, 255);
  p.roof = IM_COL32(220, 220, 230, 255);
  p.cpu_point = IM_COL32(90, 170, 255, 255);
  p.gpu_predicted = IM_COL32(245, 160, 40, 255);
  p.gpu_measured = IM_COL32(64, 200, 120, 255);
  p.current = IM_COL32(255, 255, 255, 255);
  return p;
}

Palette make_high_contrast() {
  Palette p = make_normal();
  p.warp_state[0] = IM_COL32(30, 30, 30, 255);
  p.warp_state[1] = IM_COL32(0, 230, 90, 255);
  p.warp_state[2] = IM_COL32(200, 120, 255, 255);
  p.warp_state[3] = IM_COL32(255, 170, 0, 255);
  p.warp_state[4] = IM_COL32(120, 120, 120, 255);
  p.sm_frame = IM_COL32(200, 200, 200, 255);
  p.panel_text_dim = IM_COL32(210, 210, 210, 255);
  return p;
}

Palette g_normal = make_normal();
Palette g_high = make_high_contrast();
bool g_high_contrast = false;
}  // namespace

const Palette& palette() { return g_high_contrast ? g_high : g_normal; }

namespace {
float g_ui_scale = 1.f;
}
void set_ui_scale(float s) { g_ui_scale = s; }
float ui_scale() { return g_ui_scale; }
bool high_contrast() { return g_high_contrast; }

void apply_theme(bool hc) {
  g_high_contrast = hc;
  ImGui::StyleColorsDark();
  ImGuiStyle& s = ImGui::GetStyle();
  s.WindowRounding = 4.f;
  s.FrameRounding = 3.f;
  s.GrabRounding = 3.f;
  s.WindowBorderSize = 1.f;
  s.ItemSpacing = ImVec2(8, 5);
  s.WindowPadding = ImVec2(8, 6);
  ImVec4* c = s.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.09f, 0.10f, 0.12f, 1.f);
  c[ImGuiCol_ChildBg] = ImVec4(0.09f, 0.10f, 0.12f, 1.f);
  c[ImGuiCol_TitleBg] = ImVec4(0.13f, 0.15f, 0.19f, 1.f);
  c[ImGuiCol_TitleBgActive] = ImVec4(0.16f, 0.22f, 0.32f, 1.f);
  c[ImGuiCol_Header] = ImVec4(0.20f, 0.28f, 0.40f, 1.f);
  c[ImGuiCol_Tab] = ImVec4(0.15f, 0.18f, 0.24f, 1.f);
  c[ImGuiCol_TabActive] = ImVec4(0.22f, 0.34f, 0.52f, 1.f);
  c[ImGuiCol_TabHovered] = ImVec4(0.28f, 0.42f, 0.62f, 1.f);
  if (hc) {
    c[ImGuiCol_WindowBg] = ImVec4(0, 0, 0, 1);
    c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 1);
    c[ImGuiCol_Text] = ImVec4(1, 1, 1, 1);
    c[ImGuiCol_Border] = ImVec4(0.8f, 0.8f, 0.8f, 1);
    c[ImGuiCol_TitleBgActive] = ImVec4(0.10f, 0.25f, 0.55f, 1.f);
    s.WindowBorderSize = 2.f;
    s.FrameBorderSize = 1.f;
  }
}

ImU32 heat_color(float t) {
  t = std::clamp(t, 0.f, 1.f);
  // Three stops: deep blue (cold), yellow, red (hot): a perceptually ordered ramp.
  const float stops[3][3] = {{20, 24, 60}, {240, 200, 40}, {255, 60, 30}};
  int i = t < 0.5f ? 0 : 1;
  float u = t < 0.5f ? t * 2 : (t - 0.5f) * 2;
  auto mix = [&](int k) { return int(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * u); };
  return IM_COL32(mix(0), mix(1), mix(2), 255);
}

void text_words(const std::string& text) {
  const float width = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 4);
  size_t start = 0;
  while (start < text.size()) {
    // The longest run of whole words from `start` that fits; one word alone if none does.
    size_t end = start, next = start;
    while (next < text.size()) {
      size_t sp = text.find(' ', next + 1);
      if (sp == std::string::npos) sp = text.size();
      if (end > start && ImGui::CalcTextSize(text.data() + start, text.data() + sp).x > width) break;
      end = sp, next = sp;
    }
    ImGui::TextUnformatted(text.data() + start, text.data() + end);
    start = end;
    while (start < text.size() && text[start] == ' ') ++start;
  }
}

void legend_next(ImU32 color, const char* label) {
  ImGui::SameLine(0, ImGui::GetFontSize());
  // The label and its swatch (about two text heights with the gap) must fit.
  if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(label).x + 2 * ImGui::GetFontSize()) ImGui::NewLine();
  legend_item(color, label);
}

void legend_item(ImU32 color, const char* label) {
  float h = ImGui::GetTextLineHeight();
  ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + h - 4, p.y + h - 2), color, 2.f);
  ImGui::Dummy(ImVec2(h - 2, h));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
}

void warp_state_legend() {
  const Palette& p = palette();
  for (int s = 1; s <= 4; ++s) {
    if (s > 1) legend_next(p.warp_state[s], warp_state_name(WarpState(s)));
    else legend_item(p.warp_state[s], warp_state_name(WarpState(s)));
  }
}

// A log-scale colour key with numbers: 0 .. max in `unit`.
void heat_key(double max_value, const char* unit) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h = ImGui::GetTextLineHeight();
  const float w = std::max(80.f, ImGui::CalcTextSize("0000000").x * 2);
  ImVec2 p = ImGui::GetCursorScreenPos();
  const int steps = 24;
  for (int i = 0; i < steps; ++i)
    dl->AddRectFilled(ImVec2(p.x + w * i / steps, p.y + 2), ImVec2(p.x + w * (i + 1) / steps, p.y + h - 2),
                      heat_color(float(i) / (steps - 1)));
  ImGui::Dummy(ImVec2(w, h));
  // Numbers at the ends and the log-scale middle.
  char lo[16], mid[16], hi[32];
  std::snprintf(lo, sizeof lo, "0");
  std::snprintf(mid, sizeof mid, "%.3g", std::expm1(std::log1p(max_value) / 2));
  std::snprintf(hi, sizeof hi, "%.3g", max_value);
  ImGui::SameLine(0, 4);
  ImGui::Text("%s .. %s .. %s %s (log scale)", lo, mid, hi, unit);
}

std::string flops_text(double gflops) {
  char t[32];
  if (gflops >= 1000) std::snprintf(t, sizeof t, "%.3g TFLOP/s", gflops / 1000);
  else std::snprintf(t, sizeof t, "%.3g GFLOP/s", gflops);
  return t;
}

ImU32 stall_color(const std::string& n) {
  const Palette& p = palette();
  // Issued is the SM grid's "issuing" green in every pane (issue 28: white
  // in the cycle views, green in the replay's).
  if (n == "selected") return p.warp_state[int(WarpState::Issuing)];
  if (n == "long_scoreboard") return p.warp_state[int(WarpState::Memory)];
  if (n == "barrier") return p.warp_state[int(WarpState::Barrier)];
  if (n == "not_selected") return IM_COL32(40, 120, 80, 255);     // ready: a dimmer "issuing" green
  if (n == "wait") return IM_COL32(80, 150, 230, 255);
  if (n == "short_scoreboard") return IM_COL32(230, 100, 170, 255);
  if (n == "mio_throttle") return IM_COL32(225, 210, 70, 255);
  if (n == "lg_throttle") return IM_COL32(220, 60, 50, 255);
  if (n == "math_pipe_throttle") return IM_COL32(60, 200, 200, 255);
  return IM_COL32(128, 128, 128, 255);
}

}  // namespace lab::visual
