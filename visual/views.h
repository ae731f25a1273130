// visual/views.h: every view of the lab. Each is a function of the snapshot;
// it draws into the current ImGui window and writes only UiState.
#pragma once

#include "visual/view_model.h"

namespace lab::visual {

void draw_sm_grid(const ViewModel& vm, UiState& ui);
void draw_timeline(const ViewModel& vm, UiState& ui);  // one SM cycle by cycle (the cycle model)
void draw_block(const ViewModel& vm, UiState& ui);
// The SM grid's and block view's picture from the cycle model's cycles
// (view_sm_cycles.cpp); they draw it once vm.timeline is ready.
void draw_sm_cycles(const ViewModel& vm, UiState& ui);
// Every SM of the GPU with its resident blocks (the replay's placement by
// wave); warp_states: colour warps by the replay's state (no cycle model yet).
void draw_sm_overview(const ViewModel& vm, UiState& ui, bool warp_states);
void draw_block_cycles(const ViewModel& vm, UiState& ui);
void draw_memory_heat(const ViewModel& vm, UiState& ui);
void draw_coalescing(const ViewModel& vm, UiState& ui);
void draw_banks(const ViewModel& vm, UiState& ui);
void draw_source(const ViewModel& vm, UiState& ui);
void draw_roofline(const ViewModel& vm, UiState& ui);
void draw_comparison(const ViewModel& vm, UiState& ui);
void draw_occupancy(const ViewModel& vm, UiState& ui);
void draw_lesson(const ViewModel& vm, UiState& ui);
void draw_program(const ViewModel& vm, UiState& ui);  // a program's devices: timelines and memory
void draw_launch_panel(const ViewModel& vm, UiState& ui);
void draw_playback(const ViewModel& vm, UiState& ui);
void draw_help_overlay(const ViewModel& vm, UiState& ui);

// The whole lab: lays the views out over the display (or one view, when
// ui.panel names one) and handles the keyboard shortcuts.
void draw_lab(const ViewModel& vm, UiState& ui);
// True while draw_lab shows the projector layout (the story and the focus
// panes, large) rather than the six panes; the app sizes its text by it.
bool projector_layout_on(const UiState& ui);
void handle_shortcuts(UiState& ui);

// Markdown (CommonMark through md4c) as ImGui text; returns false when md4c
// rejects the input.
bool draw_markdown(const std::string& markdown);

}  // namespace lab::visual
