// visual/layout.cpp: where each view sits. The full layout tiles the display
// with fixed windows (no docking in ImGui 1.86); a single panel fills it.
//
//   +----------------+---------------------------+----------------------+
//   | lesson         | SM grid                   | source | PTX         |
//   |                |                           |  (tabs: block view)  |
//   +----------------+---------------------------+----------------------+
//   | launch panel   | coalescing | banks | heat | roofline | comparison |
//   |                |  (tabs)                   |  occupancy (tabs)    |
//   +----------------+---------------------------+----------------------+
//   | playback bar                                                      |
//   +-------------------------------------------------------------------+
#include <imgui.h>

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
    {Panel::Block, "Block", draw_block},
    {Panel::Memory, "Memory traffic", draw_memory_heat},
    {Panel::Coalescing, "Coalescing", draw_coalescing},
    {Panel::Banks, "Shared-memory banks", draw_banks},
    {Panel::Source, "Source and PTX", draw_source},
    {Panel::Roofline, "Roofline", draw_roofline},
    {Panel::Comparison, "CPU vs GPU", draw_comparison},
    {Panel::Occupancy, "Occupancy calculator", draw_occupancy},
    {Panel::Lesson, "Lesson", draw_lesson},
};
}  // namespace

void draw_lab(const ViewModel& vm, UiState& ui) {
  ImGuiIO& io = ImGui::GetIO();
  const float W = io.DisplaySize.x, H = io.DisplaySize.y;
  const float bar_h = ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2 + 4;
  handle_shortcuts(ui);
  // The lesson follows the kernel on screen when a new launch arrives.
  static int followed = -1;
  if (vm.launch.current_kernel >= 0 && vm.launch.current_kernel != followed && !vm.lesson.steps.empty() &&
      int(vm.lesson.steps.size()) == int(vm.launch.kernels.size())) {
    followed = vm.launch.current_kernel;
    ui.lesson_step = followed;
  }

  if (ui.panel != Panel::All) {
    for (const auto& p : kPanels)
      if (p.panel == ui.panel) {
        if (tile(p.title, 0, 0, W, H - bar_h)) p.view(vm, ui);
        ImGui::End();
      }
  } else {
    float lw = W * 0.24f, mw = W * 0.42f, rw = W - lw - mw;
    float top_h = (H - bar_h) * 0.55f, bot_h = H - bar_h - top_h;
    std::string lesson_title = vm.lesson.title.empty() ? "Lesson" : vm.lesson.title;
    if (tile("Lesson", 0, 0, lw, top_h)) draw_lesson(vm, ui);
    ImGui::End();
    if (tile("Launch", 0, top_h, lw, bot_h)) draw_launch_panel(vm, ui);
    ImGui::End();
    if (tile("SM grid", lw, 0, mw, top_h)) draw_sm_grid(vm, ui);
    ImGui::End();
    if (tile("Memory", lw, top_h, mw, bot_h) && ImGui::BeginTabBar("memtabs")) {
      tab("Coalescing", draw_coalescing, vm, ui);
      tab("Shared banks", draw_banks, vm, ui);
      tab("Heat maps A B C", draw_memory_heat, vm, ui);
      ImGui::EndTabBar();
    }
    ImGui::End();
    if (tile("Kernel", lw + mw, 0, rw, top_h) && ImGui::BeginTabBar("srctabs")) {
      tab("Source and PTX", draw_source, vm, ui);
      tab("Block", draw_block, vm, ui);
      ImGui::EndTabBar();
    }
    ImGui::End();
    if (tile("Performance", lw + mw, top_h, rw, bot_h) && ImGui::BeginTabBar("perftabs")) {
      tab("Roofline", draw_roofline, vm, ui);
      tab("CPU vs GPU", draw_comparison, vm, ui);
      tab("Occupancy", draw_occupancy, vm, ui);
      ImGui::EndTabBar();
    }
    ImGui::End();
  }
  ImGui::SetNextWindowPos(ImVec2(0, H - bar_h), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(W, bar_h), ImGuiCond_Always);
  if (ImGui::Begin("Playback", nullptr, kTile | ImGuiWindowFlags_NoTitleBar)) draw_playback(vm, ui);
  ImGui::End();
  draw_help_overlay(vm, ui);
}

}  // namespace lab::visual
