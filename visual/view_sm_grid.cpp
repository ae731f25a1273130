// visual/view_sm_grid.cpp: every SM of the GPU model with its resident blocks
// and warps coloured by state, per-SM occupancy and the wave count; and the
// block view (one block's warps: active lanes, instruction, source line).
// Both ask for the cycle model's timing and, once it is there, draw its
// cycles instead (view_sm_cycles.cpp); until then, or where the model has no
// timing, they draw the interpreter's replay, which runs a block's warps one
// after another and so says nothing of time, and say so.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "visual/screen_state.h"
#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

// A strip in this exact colour heads each SM cell. Nothing else uses it, so
// the screenshot test can count SMs by counting these strips.
constexpr ImU32 kSmHeader = IM_COL32(52, 84, 130, 255);

namespace {
// Until the cycle model's timing is there: why the picture is the replay's.
void replay_note(const ViewModel& vm, const std::string& pane) {
  const std::string why = vm.timeline && !vm.timeline->status.empty() ? vm.timeline->status : "waiting for the kernel";
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.75f, 0.3f, 1.f));
  text_words("Interpreter replay order (warps of a block run one after another; not time). Cycles: " + why);
  ImGui::PopStyleColor();
  shown(pane + ".time_base", std::string("interpreter replay"));
}
}  // namespace

void draw_sm_grid(const ViewModel& vm, UiState& ui) {
  ui.timeline_wanted = true;  // the worker times the kernel with the cycle model (session_timeline.cpp)
  if (ui.sm_placement) {
    // A moment about placement (a full SM, the tail wave): blocks by wave, no time.
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.75f, 0.3f, 1.f));
    text_words("Blocks placed on SMs by wave, at the replay's position (placement only, not time: the cycles "
               "are the demo's last beat for this kernel).");
    ImGui::PopStyleColor();
    shown("sm.time_base", std::string("placement"));
    draw_sm_overview(vm, ui, false);
    return;
  }
  if (vm.timeline && vm.timeline->ready()) {
    draw_sm_cycles(vm, ui);
    return;
  }
  replay_note(vm, "sm");
  draw_sm_overview(vm, ui, true);
}

void draw_sm_overview(const ViewModel& vm, UiState& ui, bool warp_states) {
  const SmGrid& g = vm.sm;
  const Palette& pal = palette();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.panel_text_dim));
  ImGui::TextWrapped("%s: %u SMs. Wave %u / %u; blocks %llu placed, %llu retired of %llu; %u block%s/SM x %u warps",
                     g.gpu.c_str(), g.sm_count, g.wave(), g.waves(), (unsigned long long)g.blocks_placed,
                     (unsigned long long)g.blocks_retired, (unsigned long long)g.blocks_total, g.blocks_per_sm,
                     g.blocks_per_sm == 1 ? "" : "s", g.warps_per_block);
  ImGui::PopStyleColor();
  shown("sm.count", double(g.sm_count));
  shown("sm.wave", double(g.wave()));
  shown("sm.waves", double(g.waves()));
  shown("sm.blocks_placed", double(g.blocks_placed));
  shown("sm.blocks_total", double(g.blocks_total));
  shown("sm.blocks_per_sm", double(g.blocks_per_sm));
  if (warp_states) warp_state_legend();
  if (g.sm_count == 0) {
    ImGui::TextUnformatted("No GPU model loaded.");
    return;
  }

  // Cells: choose the column count that makes cells closest to 1:1 in the space left.
  ImVec2 avail = ImGui::GetContentRegionAvail();
  avail.y = std::max(avail.y, px(60.f));
  uint32_t n = g.sm_count;
  uint32_t best_cols = 1;
  float best_size = 0;
  for (uint32_t cols = 1; cols <= n; ++cols) {
    uint32_t rows = (n + cols - 1) / cols;
    float s = std::min(avail.x / cols, avail.y / rows);
    if (s > best_size) best_size = s, best_cols = cols;
  }
  uint32_t cols = best_cols;
  uint32_t rows = (n + cols - 1) / cols;
  float cw = avail.x / cols, ch = avail.y / rows;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 origin = ImGui::GetCursorScreenPos();
  const float pad = std::max(1.f, std::min(cw, ch) * 0.05f);
  uint32_t slots = std::max(1u, g.max_warps_per_sm);
  // Warp slots laid out as a near-square grid inside the cell.
  uint32_t wcols = uint32_t(std::ceil(std::sqrt(double(slots))));
  uint32_t wrows = (slots + wcols - 1) / wcols;

  for (uint32_t i = 0; i < n; ++i) {
    float x0 = origin.x + (i % cols) * cw + pad, y0 = origin.y + (i / cols) * ch + pad;
    float x1 = x0 + cw - 2 * pad, y1 = y0 + ch - 2 * pad;
    bool selected = int(i) == ui.selected_sm;
    dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), IM_COL32(28, 31, 38, 255), 2.f);
    // Room for the SM number with a margin above it, so the strip stays one piece around the text.
    const float fs = ImGui::GetFontSize();
    const bool labelled = (y1 - y0) * 0.3f >= fs + 6;
    float header = labelled ? fs + 6 : std::max(3.f, (y1 - y0) * 0.14f);
    dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y0 + header), kSmHeader);
    const SmSnapshot* sm = i < g.sms.size() ? &g.sms[i] : nullptr;
    uint32_t resident = sm ? sm->warps_resident() : 0;
    // Occupancy bar in the header: resident warps / max warps.
    float occ = float(resident) / slots;
    dl->AddRectFilled(ImVec2(x0, y0 + header - 2), ImVec2(x0 + (x1 - x0) * occ, y0 + header),
                      IM_COL32(120, 200, 255, 255));
    if (labelled) {
      char label[16];
      std::snprintf(label, sizeof label, "SM %u", i);
      dl->AddText(ImVec2(x0 + 4, y0 + 3), IM_COL32(230, 235, 245, 255), label);
    }
    // Warp slots.
    float gx0 = x0 + 1, gy0 = y0 + header + 1;
    float sw = (x1 - x0 - 2) / wcols, sh = (y1 - gy0 - 1) / wrows;
    uint32_t slot = 0;
    if (sm)
      for (const auto& b : sm->blocks) {
        for (WarpState w : b.warps) {
          if (slot >= slots) break;
          float sx = gx0 + (slot % wcols) * sw, sy = gy0 + (slot / wcols) * sh;
          // Without states: a resident warp in one colour (the time is the cycle model's, drawn above).
          const ImU32 c = warp_states || w == WarpState::Done ? pal.warp_state[int(w)] : IM_COL32(70, 110, 160, 255);
          dl->AddRectFilled(ImVec2(sx + 0.5f, sy + 0.5f), ImVec2(sx + sw - 0.5f, sy + sh - 0.5f), c);
          ++slot;
        }
      }
    for (; slot < slots; ++slot) {
      float sx = gx0 + (slot % wcols) * sw, sy = gy0 + (slot / wcols) * sh;
      dl->AddRectFilled(ImVec2(sx + 0.5f, sy + 0.5f), ImVec2(sx + sw - 0.5f, sy + sh - 0.5f),
                        pal.warp_state[0]);
    }
    if (selected) dl->AddRect(ImVec2(x0 - 1, y0 - 1), ImVec2(x1 + 1, y1 + 1), pal.sm_frame_selected, 2.f, 0, 2.f);
    ImGui::SetCursorScreenPos(ImVec2(x0, y0));
    ImGui::PushID(int(i));
    if (ImGui::InvisibleButton("sm", ImVec2(std::max(1.f, x1 - x0), std::max(1.f, y1 - y0)))) ui.selected_sm = int(i);
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::Text("SM %u: %u warps resident of %u (%.0f%% occupancy)", i, resident, slots, 100.f * occ);
      if (sm) {
        ImGui::Text("%zu blocks resident, %u retired", sm->blocks.size(), sm->blocks_retired);
        for (const auto& b : sm->blocks) ImGui::BulletText("block %u: %zu warps", b.block_linear, b.warps.size());
      }
      ImGui::EndTooltip();
    }
    ImGui::PopID();
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + rows * ch));
  ImGui::Dummy(ImVec2(1, 1));
}

void draw_block(const ViewModel& vm, UiState& ui) {
  ui.timeline_wanted = true;
  if (vm.timeline && vm.timeline->ready()) {
    draw_block_cycles(vm, ui);
    return;
  }
  replay_note(vm, "block");
  const BlockView& b = vm.block;
  const Palette& pal = palette();
  if (!b.valid) {
    ImGui::TextUnformatted("No block is running yet.");
    return;
  }
  ImGui::Text("block (%u,%u,%u) #%u on SM %u: %u threads, %zu warps", b.bx, b.by, b.bz, b.block_linear, b.sm,
              b.threads, b.warps.size());
  legend_item(pal.lane, "active lane");
  ImGui::SameLine(0, 14);
  legend_item(IM_COL32(70, 74, 86, 255), "inactive (diverged)");
  ImGui::SameLine(0, 14);
  legend_item(pal.sector_wasted, "divergent warp");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float lane_w = std::clamp((ImGui::GetContentRegionAvail().x * 0.42f) / 32.f, 3.f, 10.f);
  float row_h = ImGui::GetTextLineHeightWithSpacing();
  if (ImGui::BeginTable("warps", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("warp");
    ImGui::TableSetupColumn("lanes 0..31", ImGuiTableColumnFlags_WidthFixed, lane_w * 32 + 4);
    ImGui::TableSetupColumn("line");
    ImGui::TableSetupColumn("PTX", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableHeadersRow();
    for (const WarpRow& w : b.warps) {
      ImGui::TableNextRow(0, row_h);
      ImGui::TableNextColumn();
      // A warp the replay has not reached yet is drawn as no state at all, not as issuing.
      const WarpState st = w.pc >= 0 ? w.state : WarpState::Empty;
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(st == WarpState::Empty ? pal.panel_text_dim : pal.warp_state[int(st)]),
                         "%2u", w.warp);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("warp %u: %s", w.warp, w.pc >= 0 ? warp_state_name(st) : "not run yet");
      ImGui::TableNextColumn();
      ImVec2 p = ImGui::GetCursorScreenPos();
      bool divergent = w.pc >= 0 && (w.active_mask & w.live_mask) != w.live_mask && w.state != WarpState::Done;
      for (int l = 0; l < 32; ++l) {
        bool live = (w.live_mask >> l) & 1, active = (w.active_mask >> l) & 1;
        ImU32 c = !live ? IM_COL32(30, 32, 38, 255) : active ? pal.lane : IM_COL32(70, 74, 86, 255);
        if (w.state == WarpState::Done && live) c = pal.warp_state[int(WarpState::Done)];
        dl->AddRectFilled(ImVec2(p.x + l * lane_w, p.y + 2), ImVec2(p.x + (l + 1) * lane_w - 1, p.y + row_h - 3), c);
      }
      if (divergent)
        dl->AddRect(ImVec2(p.x - 1, p.y + 1), ImVec2(p.x + 32 * lane_w, p.y + row_h - 2), pal.sector_wasted, 0, 0, 1.5f);
      ImGui::Dummy(ImVec2(lane_w * 32, row_h - 4));
      ImGui::TableNextColumn();
      if (w.line) ImGui::Text("%u", w.line); else ImGui::TextUnformatted("-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(w.pc >= 0 ? w.ptx.c_str() : "(not run yet by the replay)");
    }
    ImGui::EndTable();
  }
}

}  // namespace lab::visual
