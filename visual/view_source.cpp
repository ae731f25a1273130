// visual/view_source.cpp: the kernel's .cu with per-line heat (warp
// instructions, sectors or bank conflicts so far) and its PTX beside it; the
// current instruction's line is highlighted in both.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

namespace {
int g_metric = 0;  // 0 = warp instructions, 1 = sectors, 2 = bank conflicts (a view-local choice)

uint64_t metric_of(const LineHeat& h) {
  return g_metric == 0 ? h.warp_insts : g_metric == 1 ? h.sectors : h.conflicts;
}
}  // namespace

void draw_source(const ViewModel& vm, UiState& ui) {
  const SourceText& s = vm.source;
  const Palette& pal = palette();
  if (s.lines.empty()) {
    ImGui::TextUnformatted("No source loaded.");
    return;
  }
  ImGui::Text("%s", s.file.c_str());
  ImGui::SameLine(0, 20);
  ImGui::TextUnformatted("heat:");
  ImGui::SameLine();
  ImGui::RadioButton("warp instructions", &g_metric, 0);
  ImGui::SameLine();
  ImGui::RadioButton("sectors", &g_metric, 1);
  ImGui::SameLine();
  ImGui::RadioButton("bank conflicts", &g_metric, 2);
  uint64_t mx = 1;
  for (const auto& h : s.heat) mx = std::max(mx, metric_of(h));
  ImVec2 avail = ImGui::GetContentRegionAvail();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float line_h = ImGui::GetTextLineHeightWithSpacing();
  ImVec4 cur_bg(0.25f, 0.32f, 0.50f, 1.f);

  ImGui::BeginChild("cu", ImVec2(avail.x * 0.55f, avail.y), true, ImGuiWindowFlags_HorizontalScrollbar);
  {
    ImDrawList* cdl = ImGui::GetWindowDrawList();
    ImGuiListClipper clip;
    clip.Begin(int(s.lines.size()), line_h);
    while (clip.Step())
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
        uint32_t ln = uint32_t(i + 1);
        ImVec2 p = ImGui::GetCursorScreenPos();
        uint64_t v = i < int(s.heat.size()) ? metric_of(s.heat[i]) : 0;
        if (ln == s.current_line)
          cdl->AddRectFilled(p, ImVec2(p.x + ImGui::GetWindowWidth(), p.y + line_h), ImGui::GetColorU32(cur_bg));
        // Heat bar: width and colour scale with the metric.
        float t = float(v) / float(mx);
        if (v) cdl->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + 4 + 40 * t, p.y + line_h - 2), heat_color(t));
        ImGui::SetCursorScreenPos(ImVec2(p.x + 48, p.y));
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.panel_text_dim), "%3u", ln);
        ImGui::SameLine();
        ImGui::TextUnformatted(s.lines[i].c_str());
        if (ImGui::IsItemHovered() && i < int(s.heat.size()))
          ImGui::SetTooltip("line %u: %llu warp instructions, %llu sectors, %llu bank conflicts", ln,
                            (unsigned long long)s.heat[i].warp_insts, (unsigned long long)s.heat[i].sectors,
                            (unsigned long long)s.heat[i].conflicts);
      }
    if (ui.presenter && s.current_line) ImGui::SetScrollFromPosY(ImGui::GetCursorStartPos().y + (s.current_line - 1) * line_h, 0.4f);
  }
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("ptx", ImVec2(0, avail.y), true, ImGuiWindowFlags_HorizontalScrollbar);
  {
    ImDrawList* cdl = ImGui::GetWindowDrawList();
    uint64_t pmx = 1;
    for (uint64_t c : s.ptx_count) pmx = std::max(pmx, c);
    ImGuiListClipper clip;
    clip.Begin(int(s.ptx.size()), line_h);
    while (clip.Step())
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
        ImVec2 p = ImGui::GetCursorScreenPos();
        bool same_line = s.current_line && i < int(s.ptx_line.size()) && s.ptx_line[i] == s.current_line;
        if (i == s.current_pc)
          cdl->AddRectFilled(p, ImVec2(p.x + ImGui::GetWindowWidth(), p.y + line_h), ImGui::GetColorU32(cur_bg));
        else if (same_line)
          cdl->AddRectFilled(p, ImVec2(p.x + ImGui::GetWindowWidth(), p.y + line_h), IM_COL32(40, 50, 72, 255));
        uint64_t c = i < int(s.ptx_count.size()) ? s.ptx_count[i] : 0;
        if (c) cdl->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + 3 + 24 * float(c) / pmx, p.y + line_h - 2),
                                  heat_color(float(c) / pmx));
        ImGui::SetCursorScreenPos(ImVec2(p.x + 30, p.y));
        uint32_t l = i < int(s.ptx_line.size()) ? s.ptx_line[i] : 0;
        if (l) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.panel_text_dim), "%3u", l);
        else ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.panel_text_dim), "   ");
        ImGui::SameLine();
        ImGui::TextUnformatted(s.ptx[i].c_str());
      }
    if (ui.presenter && s.current_pc >= 0) ImGui::SetScrollFromPosY(ImGui::GetCursorStartPos().y + s.current_pc * line_h, 0.4f);
  }
  ImGui::EndChild();
  (void)dl;
}

}  // namespace lab::visual
