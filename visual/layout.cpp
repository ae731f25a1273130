// visual/layout.cpp: where each view sits. The full layout tiles the display
// with fixed windows (no docking in ImGui 1.86); a single panel fills it.
//
//   +----------------+---------------------------+----------------------+
//   | lesson         | SM grid | cycles (tabs) | source | PTX         |
//   |                |                           |  (tabs: block view)  |
//   +----------------+---------------------------+----------------------+
//   | launch panel   | coalescing | banks | heat | roofline | comparison |
//   |                |  (tabs)                   |  occupancy (tabs)    |
//   +----------------+---------------------------+----------------------+
//   | playback bar                                                      |
//   +-------------------------------------------------------------------+
//
// The projector layout (demo, lessons; P toggles it) shows the story and one
// or two large panes, chosen by the lesson step's manifest or the demo's beat.
//
// Large text (--scale, [ and ]) leaves the six tiles too few characters
// across, and their controls would be cut. Below kSixTilesEm text widths
// across the window the lesson and launch panes keep a column and every
// other view becomes a tab of one pane beside them; below kTwoColumnsEm
// everything is a tab of one full-window pane (compact_layout).
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "visual/cycle_state.h"
#include "visual/screen_state.h"

#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

namespace {
constexpr ImGuiWindowFlags kTile = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoBringToFrontOnFocus;

bool tile(const char* title, float x, float y, float w, float h) {
  ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(w, h), ImGuiCond_Always);
  return ImGui::Begin(title, nullptr, kTile);
}

// The window's width in text heights below which the layouts fold (above).
constexpr float kSixTilesEm = 90.f;
constexpr float kTwoColumnsEm = 64.f;
// Tab bars never shorten a label: arrows scroll them when they do not fit.
constexpr ImGuiTabBarFlags kTabBar = ImGuiTabBarFlags_FittingPolicyScroll;

void tab(const char* label, void (*view)(const ViewModel&, UiState&), const ViewModel& vm, UiState& ui) {
  if (ImGui::BeginTabItem(label)) {
    ImGui::BeginChild(label, ImVec2(0, 0), false);
    view(vm, ui);
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
}

struct PanelInfo {
  Panel panel;
  const char* title;
  void (*view)(const ViewModel&, UiState&);
};
const PanelInfo kPanels[] = {
    {Panel::SmGrid, "SM grid", draw_sm_grid},
    {Panel::Timeline, "Cycles: one SM, 1 block vs full occupancy", draw_timeline},
    {Panel::Block, "Block", draw_block},
    {Panel::Memory, "Memory traffic", draw_memory_heat},
    {Panel::Coalescing, "Coalescing", draw_coalescing},
    {Panel::Banks, "Shared-memory banks", draw_banks},
    {Panel::Source, "Source and PTX", draw_source},
    {Panel::Roofline, "Roofline", draw_roofline},
    {Panel::Comparison, "CPU vs GPU", draw_comparison},
    {Panel::Occupancy, "Occupancy calculator", draw_occupancy},
    {Panel::Lesson, "Lesson", draw_lesson},
    {Panel::Program, "Program: predicted timeline per GPU", draw_program},
};
}  // namespace

namespace {
const PanelInfo* panel_info(Panel p) {
  for (const auto& i : kPanels)
    if (i.panel == p) return &i;
  return nullptr;
}

// The projector layout: the story (lesson text, or the demo's banner over
// it) in a narrow column and one or two large panes, stacked when the screen
// is wide enough only for one column, side by side otherwise.
void projector_layout(const ViewModel& vm, UiState& ui, float W, float H) {
  const float lw = ui.presenter ? 0.f : ui.story_only ? W : W * 0.26f;
  float top = 0;
  if (!ui.banner.empty()) {
    const float bh = ImGui::GetTextLineHeightWithSpacing() * 2 + ImGui::GetStyle().WindowPadding.y * 2;
    ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(W, bh), ImGuiCond_Always);
    if (ImGui::Begin("##banner", nullptr, kTile | ImGuiWindowFlags_NoTitleBar)) {
      ImGui::PushTextWrapPos(0.f);
      ImGui::TextColored(ImVec4(1.f, 0.85f, 0.4f, 1.f), "%s", ui.banner.c_str());
      ImGui::PopTextWrapPos();
    }
    ImGui::End();
    top = bh;
  }
  if (lw > 0) {
    if (tile("Lesson", 0, top, lw, H - top)) draw_lesson(vm, ui);
    ImGui::End();
  }
  if (ui.story_only) return;
  std::vector<Panel> panes;
  for (Panel p : ui.focus)
    if (panel_info(p) && panes.size() < 3) panes.push_back(p);
  if (panes.empty()) panes.push_back(Panel::SmGrid);
  const float x0 = lw, w = W - lw, h = H - top;
  // Two panes side by side when each still gets a 4:3 area, else stacked;
  // three: the first across the top half, the other two side by side below.
  // Source lines need the width: a pair with the source is always stacked.
  const bool with_source = std::find(panes.begin(), panes.end(), Panel::Source) != panes.end();
  const bool side = panes.size() == 2 && w / 2 > h * 0.9f && !with_source;
  for (size_t i = 0; i < panes.size(); ++i) {
    const PanelInfo* info = panel_info(panes[i]);
    float px0 = x0, py0 = top, pw = w, ph = h;
    if (panes.size() == 2) {
      if (side) pw = w / 2, px0 = x0 + i * pw;
      else ph = h / 2, py0 = top + i * ph;
    } else if (panes.size() == 3) {
      ph = h / 2;
      if (i > 0) py0 = top + ph, pw = w / 2, px0 = x0 + (i - 1) * pw;
    }
    // The comparison pane holds a lesson's before/after at such steps.
    const char* title =
        panes[i] == Panel::Comparison && vm.comparison.before_after ? "Before and after" : info->title;
    if (tile(title, px0, py0, pw, ph)) info->view(vm, ui);
    ImGui::End();
  }
}

// The folded layouts for large text: every view as a tab of one pane, with
// the lesson and launch panes in a column of their own when `story_column`.
void compact_layout(const ViewModel& vm, UiState& ui, float W, float H, bool story_column) {
  float x0 = 0;
  if (story_column) {
    const float lw = W * 0.36f, top_h = H * 0.6f;
    if (tile("Lesson", 0, 0, lw, top_h)) draw_lesson(vm, ui);
    ImGui::End();
    if (tile("Launch", 0, top_h, lw, H - top_h)) draw_launch_panel(vm, ui);
    ImGui::End();
    x0 = lw;
  }
  if (tile("Views", x0, 0, W - x0, H) && ImGui::BeginTabBar("alltabs", kTabBar)) {
    if (!story_column) {
      tab("Lesson", draw_lesson, vm, ui);
      tab("Launch", draw_launch_panel, vm, ui);
    }
    tab("SM grid", draw_sm_grid, vm, ui);
    tab("Cycles (timeline)", draw_timeline, vm, ui);
    tab("Source and PTX", draw_source, vm, ui);
    tab("Block", draw_block, vm, ui);
    tab("Coalescing", draw_coalescing, vm, ui);
    tab("Shared banks", draw_banks, vm, ui);
    tab("Heat maps A B C", draw_memory_heat, vm, ui);
    tab("Roofline", draw_roofline, vm, ui);
    tab(vm.comparison.before_after ? "Before and after" : "CPU vs GPU", draw_comparison, vm, ui);
    tab("Occupancy", draw_occupancy, vm, ui);
    ImGui::EndTabBar();
  }
  ImGui::End();
}
}  // namespace

bool projector_layout_on(const UiState& ui) {
  return ui.panel == Panel::All && ui.projector && (!ui.focus.empty() || ui.presenter || ui.story_only);
}

void draw_lab(const ViewModel& vm, UiState& ui) {
  ImGuiIO& io = ImGui::GetIO();
  const float W = io.DisplaySize.x, H = io.DisplaySize.y;
  const float bar_h = ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2 + 4;
  handle_shortcuts(ui);
  advance_cycle_clock(vm, ui);  // one cycle cursor for the SM grid, the block view and the timeline
  const bool lesson_mode = !vm.lesson.id.empty();
  if (!lesson_mode && !ui.presenter) {
    // The progression's text follows the kernel on screen when a new launch arrives.
    static int followed = -1;
    if (vm.launch.current_kernel >= 0 && vm.launch.current_kernel != followed && !vm.lesson.steps.empty() &&
        int(vm.lesson.steps.size()) == int(vm.launch.kernels.size())) {
      followed = vm.launch.current_kernel;
      ui.lesson_step = followed;
    }
  }
  if (lesson_mode && !vm.lesson.steps.empty()) {
    // A lesson drives the view: a step that runs a kernel runs it, and each
    // step shows the panes its manifest names.
    static int seen_step = -1;
    static std::string seen_lesson;
    ui.lesson_step = std::clamp(ui.lesson_step, 0, int(vm.lesson.steps.size()) - 1);
    if (ui.lesson_step != seen_step || seen_lesson != vm.lesson.id) {
      if (seen_step < 0) ui.lesson_step = std::clamp(vm.lesson.open_step, 0, int(vm.lesson.steps.size()) - 1);
      seen_step = ui.lesson_step;
      seen_lesson = vm.lesson.id;
      const LessonStep& st = vm.lesson.steps[size_t(ui.lesson_step)];
      if (st.measure && vm.launch.lesson_step != ui.lesson_step) ui.run_target = "step:" + std::to_string(ui.lesson_step);
      ui.story_only = st.text_only;
      if (ui.story_only) ui.focus.clear();
      if (!st.panes.empty()) {
        ui.focus.clear();
        for (const auto& n : st.panes) {
          bool ok = false;
          Panel p = panel_from_name(n, &ok);
          if (ok) ui.focus.push_back(p);
        }
      }
    }
  }
  if (lesson_mode && ui.lesson_auto_seek && vm.launch.lesson_step >= 0 && vm.launch.lesson_step == ui.lesson_step &&
      vm.playback.total > 0) {
    // The step's kernel has arrived: open its trace at the moment that makes
    // the step's point (the first moment shown in one of its panes), else
    // halfway, in the kernel's main loop.
    static int seeked_step = -1;
    static uint64_t seeked_total = 0;
    if (seeked_step != ui.lesson_step || seeked_total != vm.playback.total) {
      seeked_step = ui.lesson_step;
      seeked_total = vm.playback.total;
      uint64_t pos = vm.playback.total / 2;
      bool found = false;
      for (Panel p : ui.focus)
        for (const Moment& m : vm.moments)
          if (!found && panel_from_name(m.pane) == p) pos = m.position, found = true;
      ui.command = PlayCommand::SeekTo;
      ui.seek_position = pos;
    }
  }
  shown("lesson.id", vm.lesson.id);
  shown("lesson.title", vm.lesson.title);
  if (!vm.lesson.steps.empty()) {
    int st = std::clamp(ui.lesson_step, 0, int(vm.lesson.steps.size()) - 1);
    shown("lesson.step", double(st));
    shown("lesson.step_title", vm.lesson.steps[size_t(st)].title);
  }
  shown("kernel.name", vm.launch.kernel);
  shown("kernel.file", vm.launch.file);
  shown("kernel.problem", vm.launch.problem);
  shown("kernel.gpu", vm.launch.gpu);
  shown("kernel.lesson_step", double(vm.launch.lesson_step));
  if (vm.launch.current_kernel >= 0 && vm.launch.current_kernel < int(vm.launch.kernels.size()))
    shown("kernel.version", vm.launch.kernels[size_t(vm.launch.current_kernel)]);
  shown("playback.cursor", double(vm.playback.cursor));
  shown("playback.total", double(vm.playback.total));
  shown("playback.status", vm.playback.status);

  const bool projector = projector_layout_on(ui);
  std::string panes;
  if (ui.panel != Panel::All) {
    const PanelInfo* p = panel_info(ui.panel);
    if (p) {
      if (tile(p->title, 0, 0, W, H - bar_h)) p->view(vm, ui);
      ImGui::End();
    }
    panes = panel_name(ui.panel);
  } else if (projector) {
    projector_layout(vm, ui, W, H - bar_h);
    for (Panel p : ui.focus) panes += (panes.empty() ? "" : ",") + std::string(panel_name(p));
  } else if (const float em = W / std::max(1.f, ImGui::GetFontSize()); em < kSixTilesEm) {
    const bool story_column = em >= kTwoColumnsEm;
    panes = story_column ? "all,two-columns" : "all,tabs";
    compact_layout(vm, ui, W, H - bar_h, story_column);
  } else {
    panes = "all";
    float lw = W * 0.24f, mw = W * 0.42f, rw = W - lw - mw;
    float top_h = (H - bar_h) * 0.55f, bot_h = H - bar_h - top_h;
    if (tile("Lesson", 0, 0, lw, top_h)) draw_lesson(vm, ui);
    ImGui::End();
    if (tile("Launch", 0, top_h, lw, bot_h)) draw_launch_panel(vm, ui);
    ImGui::End();
    if (tile("SM", lw, 0, mw, top_h) && ImGui::BeginTabBar("smtabs", kTabBar)) {
      tab("SM grid", draw_sm_grid, vm, ui);
      tab("Cycles (timeline)", draw_timeline, vm, ui);
      ImGui::EndTabBar();
    }
    ImGui::End();
    if (tile("Memory", lw, top_h, mw, bot_h) && ImGui::BeginTabBar("memtabs", kTabBar)) {
      tab("Coalescing", draw_coalescing, vm, ui);
      tab("Shared banks", draw_banks, vm, ui);
      tab("Heat maps A B C", draw_memory_heat, vm, ui);
      ImGui::EndTabBar();
    }
    ImGui::End();
    if (tile("Kernel", lw + mw, 0, rw, top_h) && ImGui::BeginTabBar("srctabs", kTabBar)) {
      tab("Source and PTX", draw_source, vm, ui);
      tab("Block", draw_block, vm, ui);
      ImGui::EndTabBar();
    }
    ImGui::End();
    if (tile("Performance", lw + mw, top_h, rw, bot_h) && ImGui::BeginTabBar("perftabs", kTabBar)) {
      tab("Roofline", draw_roofline, vm, ui);
      tab(vm.comparison.before_after ? "Before and after" : "CPU vs GPU", draw_comparison, vm, ui);
      tab("Occupancy", draw_occupancy, vm, ui);
      ImGui::EndTabBar();
    }
    ImGui::End();
  }
  shown("layout.panes", panes);
  shown("layout.story_only", ui.story_only && projector);
  shown("layout.projector", projector);
  ImGui::SetNextWindowPos(ImVec2(0, H - bar_h), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(W, bar_h), ImGuiCond_Always);
  if (ImGui::Begin("Playback", nullptr, kTile | ImGuiWindowFlags_NoTitleBar)) draw_playback(vm, ui);
  ImGui::End();
  draw_help_overlay(vm, ui);
}

}  // namespace lab::visual
