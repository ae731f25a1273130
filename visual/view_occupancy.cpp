// visual/view_occupancy.cpp: the occupancy calculator. Sliders for block
// size, registers per thread and shared memory per block; the answer with
// the limiter explained; and the three curves NVIDIA's calculator draws
// (occupancy as each input varies, the others held). The arithmetic is the
// machine model's (OccupancyModel::compute); this file only asks and draws.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "visual/screen_state.h"
#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

namespace {
void draw_curve(const char* title, const std::vector<float>& xs, const std::vector<float>& ys, float current_x,
                ImVec2 size, const char* unit) {
  const Palette& pal = palette();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::Text("%s", title);
  float th = ImGui::GetTextLineHeightWithSpacing();
  // The percentage labels sit left of the plot, in a margin as wide as the widest.
  ImVec2 a(p.x + ImGui::CalcTextSize("100%").x + 4, p.y + th), b(p.x + size.x - 4, p.y + size.y - th);
  dl->AddRectFilled(a, b, IM_COL32(20, 22, 28, 255));
  for (int q = 0; q <= 4; ++q) {
    float y = b.y - (b.y - a.y) * q / 4;
    dl->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), IM_COL32(55, 58, 68, 255));
    char t[8];
    std::snprintf(t, sizeof t, "%d%%", q * 25);
    const float fs = ImGui::GetFontSize();  // centred on its line, kept inside the plot's height
    if (q % 2 == 0)
      dl->AddText(ImVec2(a.x - 4 - ImGui::CalcTextSize(t).x, std::clamp(y - fs / 2, a.y - fs / 2, b.y - fs)),
                  pal.panel_text_dim, t);
  }
  if (xs.size() >= 2) {
    float xmin = xs.front(), xmax = xs.back();
    auto X = [&](float x) { return a.x + (b.x - a.x) * (x - xmin) / std::max(1e-6f, xmax - xmin); };
    auto Y = [&](float y) { return b.y - (b.y - a.y) * y; };
    // A step curve: occupancy changes in whole blocks.
    for (size_t i = 1; i < xs.size(); ++i) {
      dl->AddLine(ImVec2(X(xs[i - 1]), Y(ys[i - 1])), ImVec2(X(xs[i]), Y(ys[i - 1])), pal.gpu_predicted, 2.f);
      dl->AddLine(ImVec2(X(xs[i]), Y(ys[i - 1])), ImVec2(X(xs[i]), Y(ys[i])), pal.gpu_predicted, 2.f);
    }
    float cx = X(std::clamp(current_x, xmin, xmax));
    dl->AddLine(ImVec2(cx, a.y), ImVec2(cx, b.y), pal.current, 1.5f);
    char t[32];
    std::snprintf(t, sizeof t, "%g", xmin);
    dl->AddText(ImVec2(a.x, b.y + 1), pal.panel_text_dim, t);
    std::snprintf(t, sizeof t, "%g %s", xmax, unit);
    dl->AddText(ImVec2(b.x - ImGui::CalcTextSize(t).x, b.y + 1), pal.panel_text_dim, t);
  }
  dl->AddRect(a, b, pal.line_frame);
  ImGui::SetCursorScreenPos(p);
  ImGui::Dummy(size);
}
}  // namespace

void draw_occupancy(const ViewModel& vm, UiState& ui) {
  const OccupancyModel& m = vm.occupancy;
  if (!m.compute) {
    ImGui::TextUnformatted("No GPU model loaded: the calculator needs its per-SM limits.");
    return;
  }
  // Sliders start at each new kernel's (or lesson step's) numbers.
  if (ui.occ_serial != m.serial && m.kernel.block_threads > 0) {
    ui.occ = m.kernel;
    ui.occ_serial = m.serial;
  }
  ImGui::Text("Occupancy on %s", m.gpu.c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("use this kernel's numbers")) ui.occ = m.kernel;
  float w = ImGui::GetContentRegionAvail().x;
  ImGui::PushItemWidth(w * 0.45f);
  ImGui::SliderInt("threads per block", &ui.occ.block_threads, 32, m.max_threads_per_block);
  ui.occ.block_threads = std::max(32, (ui.occ.block_threads + 16) / 32 * 32);
  ImGui::SliderInt("registers per thread", &ui.occ.registers, 1, m.max_registers_per_thread);
  ImGui::SliderInt("shared bytes per block", &ui.occ.shared_bytes, 0, m.max_shared_per_block);
  ImGui::PopItemWidth();
  OccupancyAnswer ans = m.compute(ui.occ);
  shown("occupancy.gpu", m.gpu);
  shown("occupancy.block_threads", double(ui.occ.block_threads));
  shown("occupancy.registers", double(ui.occ.registers));
  shown("occupancy.shared_bytes", double(ui.occ.shared_bytes));
  shown("occupancy.warps_per_sm", double(ans.warps_per_sm));
  shown("occupancy.limiter", ans.limiter);
  ImGui::Text("%d blocks/SM x %d warps = %d of %d warps: %.0f%% occupancy", ans.blocks_per_sm,
              ans.blocks_per_sm ? ans.warps_per_sm / ans.blocks_per_sm : 0, ans.warps_per_sm, ans.max_warps_per_sm,
              100 * ans.occupancy());
  ImGui::Text("blocks allowed by  warps: %d   registers: %d   shared memory: %d   block slots: %d", ans.by_warps,
              ans.by_registers, ans.by_shared, ans.by_blocks);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().gpu_predicted), "limiter: %s", ans.limiter.c_str());
  ImGui::TextWrapped("%s", ans.explanation.c_str());

  // The three curves.
  std::vector<float> xs, ys;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  ImVec2 size((avail.x - 16) / 3, std::max(90.f, avail.y));
  auto sweep = [&](int lo, int hi, int step, auto set) {
    xs.clear();
    ys.clear();
    for (int v = lo; v <= hi; v += step) {
      OccupancyQuery q = ui.occ;
      set(q, v);
      xs.push_back(float(v));
      ys.push_back(float(m.compute(q).occupancy()));
    }
  };
  sweep(32, m.max_threads_per_block, 32, [](OccupancyQuery& q, int v) { q.block_threads = v; });
  draw_curve("vs threads per block", xs, ys, float(ui.occ.block_threads), size, "thr");
  ImGui::SameLine(0, 8);
  sweep(8, m.max_registers_per_thread, 8, [](OccupancyQuery& q, int v) { q.registers = v; });
  draw_curve("vs registers per thread", xs, ys, float(ui.occ.registers), size, "regs");
  ImGui::SameLine(0, 8);
  int step = std::max(256, m.max_shared_per_block / 64);
  sweep(0, m.max_shared_per_block, step, [](OccupancyQuery& q, int v) { q.shared_bytes = v; });
  draw_curve("vs shared memory per block", xs, ys, float(ui.occ.shared_bytes), size, "B");
}

}  // namespace lab::visual
