// visual/view_source.cpp: the kernel's .cu and its PTX, each line with its
// numbers in columns (warp instructions, sectors per request, bank
// conflicts: the simulator's counts for the whole run) and a heat bar of the
// chosen metric so far; the current instruction's line is highlighted in
// both. Long lines wrap, so a stride in `in[i * stride]` stays visible.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "visual/screen_state.h"
#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

namespace {
int g_metric = 0;  // 0 = warp instructions, 1 = sectors, 2 = bank conflicts (a view-local choice)
const char* kMetricNames[] = {"warp instructions", "sectors", "bank conflicts"};

uint64_t metric_of(const LineHeat& h) {
  return g_metric == 0 ? h.warp_insts : g_metric == 1 ? h.sectors : h.conflicts;
}

void number_cell(uint64_t v) {
  if (v) ImGui::Text("%llu", (unsigned long long)v);
  else ImGui::TextDisabled("-");
}

// One table of text rows with the metric columns. `heat` (so far) drives
// the bar, `totals` (whole run; may be empty) the numbers.
void metric_table(const char* id, const std::vector<std::string>& rows, const std::vector<LineHeat>& heat,
                  const std::vector<LineHeat>& totals, const std::vector<uint32_t>* row_line, int current_row,
                  uint32_t current_line, bool presenter, const char* state_key) {
  const Palette& pal = palette();
  uint64_t mx = 1;
  for (const auto& h : heat) mx = std::max(mx, metric_of(h));
  const float digit = ImGui::CalcTextSize("0").x;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable(id, 6, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, digit * 3);
  ImGui::TableSetupColumn(row_line ? ".cu" : "line", ImGuiTableColumnFlags_WidthFixed, digit * 4);
  ImGui::TableSetupColumn("instr", ImGuiTableColumnFlags_WidthFixed, digit * 8);
  ImGui::TableSetupColumn("sect/req", ImGuiTableColumnFlags_WidthFixed, digit * 8);
  ImGui::TableSetupColumn("confl", ImGuiTableColumnFlags_WidthFixed, digit * 6);
  ImGui::TableSetupColumn(row_line ? "PTX" : "source", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  const std::vector<LineHeat>& shown = totals.empty() ? heat : totals;
  for (int i = 0; i < int(rows.size()); ++i) {
    const uint32_t line = row_line ? (i < int(row_line->size()) ? (*row_line)[i] : 0) : uint32_t(i + 1);
    ImGui::TableNextRow();
    const bool cur = row_line ? i == current_row : line == current_line;
    const bool same = row_line && !cur && line && line == current_line;
    if (cur) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(64, 82, 128, 255));
    else if (same) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(40, 50, 72, 255));
    ImGui::TableNextColumn();
    const uint64_t v = i < int(heat.size()) ? metric_of(heat[i]) : 0;
    if (v) {
      ImVec2 p = ImGui::GetCursorScreenPos();
      float t = float(v) / float(mx), h = ImGui::GetTextLineHeight();
      ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + 2 + digit * 2.8f * t, p.y + h - 2),
                                                heat_color(t));
    }
    ImGui::TableNextColumn();
    if (line) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.panel_text_dim), "%u", line);
    const LineHeat h = i < int(shown.size()) ? shown[i] : LineHeat{};
    ImGui::TableNextColumn();
    number_cell(h.warp_insts);
    ImGui::TableNextColumn();
    if (h.requests) ImGui::Text("%.1f", h.sectors_per_request());
    else ImGui::TextDisabled("-");
    ImGui::TableNextColumn();
    number_cell(h.conflicts);
    ImGui::TableNextColumn();
    ImGui::PushTextWrapPos(0.f);
    ImGui::TextUnformatted(rows[i].c_str());
    ImGui::PopTextWrapPos();
    if (h.warp_insts && state_key) {
      char key[64];
      std::snprintf(key, sizeof key, "%s.%d", state_key, row_line ? i : int(line));
      shown_line(key, h.warp_insts, h.requests ? h.sectors_per_request() : -1, h.conflicts);
    }
    if (cur && presenter) ImGui::SetScrollHereY(0.4f);
  }
  ImGui::EndTable();
}
}  // namespace

void draw_source(const ViewModel& vm, UiState& ui) {
  const SourceText& s = vm.source;
  if (s.lines.empty()) {
    ImGui::TextUnformatted("No source loaded.");
    return;
  }
  ImGui::TextWrapped("%s", s.file.c_str());
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("warp instructions").x + ImGui::GetFrameHeight() * 2);
  ImGui::Combo("bar: so far", &g_metric, kMetricNames, 3);
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::BeginGroup();  // beside the bar selector, broken at spaces (never cut at the edge)
  text_words(s.line_totals.empty() ? "(columns: so far)" : "(columns: whole run, the simulator's counts)");
  ImGui::EndGroup();
  ImGui::PopStyleColor();
  shown("source.heat_metric", kMetricNames[g_metric]);
  shown("source.file", s.file);
  ImVec2 avail = ImGui::GetContentRegionAvail();
  // Side by side when there is room for ~70 characters each, else stacked.
  const bool side = avail.x > ImGui::CalcTextSize("0").x * 150;
  ImVec2 cu = side ? ImVec2(avail.x * 0.55f, avail.y) : ImVec2(avail.x, avail.y * 0.6f);
  ImGui::BeginChild("cu", cu, false);
  const bool follow = ui.presenter || ui.projector;  // keep the current line in sight
  metric_table("cu_lines", s.lines, s.heat, s.line_totals, nullptr, -1, s.current_line, follow, "source.line");
  ImGui::EndChild();
  if (side) ImGui::SameLine();
  ImGui::BeginChild("ptx", ImVec2(0, 0), false);
  std::vector<LineHeat> ptx_heat = s.ptx_heat;
  if (ptx_heat.empty())
    for (uint64_t c : s.ptx_count) ptx_heat.push_back(LineHeat{c, 0, 0, 0, 0});
  metric_table("ptx_lines", s.ptx, ptx_heat, s.ptx_totals, &s.ptx_line, s.current_pc, s.current_line, follow,
               nullptr);
  ImGui::EndChild();
}

}  // namespace lab::visual
