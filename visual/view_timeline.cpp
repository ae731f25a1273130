// visual/view_timeline.cpp: one SM cycle by cycle, from the cycle-level SM
// model (CycleTimeline, filled by session_timeline.cpp). Two sides share one
// cycle axis: the kernel at one resident block per SM and at the occupancy
// limit. Each side has a row per scheduler (sub-partition) with its issue
// slots, used or idle, and a row per warp slot, grouped by scheduler, with
// its issues and its waits coloured by stall reason (Nsight's names). The
// pane's cursor is a cycle; it plays at its own speed.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "visual/cycle_state.h"
#include "visual/screen_state.h"
#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

namespace {

constexpr ImU32 kNoWarp = kNoWarpColor;  // a warp slot with no resident warp (not placed yet, or done)

// The tallest stall reasons of a side (not "selected"), as "name 41%".
std::string top_stalls(const CycleTimeline& T, const TimelineSide& s, size_t n) {
  uint64_t total = 0;
  for (uint64_t v : s.stall) total += v;
  std::vector<std::pair<uint64_t, size_t>> order;
  for (size_t i = 0; i < s.stall.size(); ++i)
    if (int(i) != T.selected_reason && s.stall[i]) order.emplace_back(s.stall[i], i);
  std::sort(order.rbegin(), order.rend());
  std::string out;
  char buf[96];
  for (size_t k = 0; k < order.size() && k < n; ++k) {
    std::snprintf(buf, sizeof buf, "%s%s %.0f%%", k ? ", " : "", T.reasons[order[k].second].c_str(),
                  100.0 * double(order[k].first) / double(std::max<uint64_t>(1, total)));
    out += buf;
  }
  return out;
}

// The last issue before the next stretch of at least 100 cycles in which
// none of the side's schedulers issues, from `from` on; ~0 when none.
uint64_t next_idle_stretch(const TimelineSide& s, uint64_t from) {
  std::vector<uint64_t> all;
  for (const auto& v : s.scheduler_issues) all.insert(all.end(), std::lower_bound(v.begin(), v.end(), from), v.end());
  std::sort(all.begin(), all.end());
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i] - all[i - 1] >= 100) return all[i - 1];
  return ~0ull;
}

// A tick spacing of 1, 2 or 5 x 10^k cycles, at least `min_px` apart.
double tick_step(double cycles_per_px, float min_px) {
  double want = cycles_per_px * min_px, step = 1;
  while (step < want) {
    if (step * 2 >= want) return step * 2;
    if (step * 5 >= want) return step * 5;
    step *= 10;
  }
  return step;
}

struct Frame {
  double c0 = 0, c1 = 1;   // cycles on the axis
  float x0 = 0, x1 = 1;    // their pixels
  float x(double c) const { return x0 + float((c - c0) / (c1 - c0)) * (x1 - x0); }
  double cycle(float px) const { return c0 + double(px - x0) / double(x1 - x0) * (c1 - c0); }
};

// Runs of consecutive issue cycles in [c0, c1) as rectangles; returns how many issues.
uint64_t draw_issues(ImDrawList* dl, const std::vector<uint64_t>& issues, const Frame& f, float y0, float y1, ImU32 col) {
  auto it = std::lower_bound(issues.begin(), issues.end(), uint64_t(std::max(0.0, f.c0)));
  uint64_t n = 0;
  float last = -1e9f;
  while (it != issues.end() && double(*it) < f.c1) {
    uint64_t a = *it, b = a + 1;
    ++it, ++n;
    while (it != issues.end() && *it == b && double(b) < f.c1) ++it, ++b, ++n;
    float xa = std::max(f.x(double(a)), last), xb = std::max(f.x(double(b)), xa + 1.f);
    if (xb <= last) continue;
    dl->AddRectFilled(ImVec2(xa, y0), ImVec2(xb, y1), col);
    last = xb;
  }
  return n;
}

// A side's waits in [c0, c1), with narrower-than-a-pixel ones folded into
// the pixel already drawn; counts the waits that show by reason.
void draw_waits(ImDrawList* dl, const CycleTimeline& T, const std::vector<TimelineWait>& waits, const Frame& f,
                float y0, float y1, const std::vector<ImU32>& colors, std::vector<uint64_t>& seen) {
  auto it = std::partition_point(waits.begin(), waits.end(), [&](const TimelineWait& w) { return double(w.to) <= f.c0; });
  float last = -1e9f;
  for (; it != waits.end() && double(it->from) < f.c1; ++it) {
    if (it->reason < seen.size()) ++seen[it->reason];
    float xa = std::max(f.x(std::max(double(it->from), f.c0)), last);
    float xb = std::max(f.x(std::min(double(it->to), f.c1)), xa + 1.f);
    if (xb <= last + 0.5f) continue;
    dl->AddRectFilled(ImVec2(xa, y0), ImVec2(xb, y1), it->reason < colors.size() ? colors[it->reason] : IM_COL32_WHITE);
    last = xb;
  }
  (void)T;
}

// One side: its numbers, then the scheduler rows and the warp rows.
void draw_side(const CycleTimeline& T, const TimelineSide& s, const char* key, const Frame& frame_in, float height,
               UiState& ui) {
  const Palette& pal = palette();
  const ImVec4 dim = ImGui::ColorConvertU32ToFloat4(pal.panel_text_dim);
  const std::string k = std::string("timeline.") + key;
  const uint32_t warps = uint32_t(s.warps.size());
  const float top = ImGui::GetCursorScreenPos().y;
  ImGui::TextColored(ImVec4(0.95f, 0.85f, 0.45f, 1.f), "%s", s.title.c_str());
  ImGui::SameLine();
  ImGui::Text("issue slots used %.1f%% (predicted)", 100.0 * s.issue_utilisation);
  // The details wrap in a narrow pane (the full layout's tab) rather than clip.
  const std::string stalls = top_stalls(T, s, 4);
  ImGui::PushStyleColor(ImGuiCol_Text, dim);
  char line[512];
  std::snprintf(line, sizeof line,
                "%u warps resident of %u | kernel %.0f cycles = %.4g us (predicted from this one-SM slice) | "
                "waiting: %s | drawn: the slice's SM, %s, %llu cycles",
                warps, s.max_warps_per_sm, s.kernel_cycles, s.time_s * 1e6, stalls.c_str(), s.segment.c_str(),
                (unsigned long long)s.cycles);
  text_words(line);
  ImGui::PopStyleColor();
  shown(k + ".title", s.title);
  shown(k + ".blocks_per_sm", double(s.blocks_per_sm));
  shown(k + ".warps", double(warps));
  shown(k + ".cycles", double(s.cycles));
  shown(k + ".kernel_cycles", s.kernel_cycles);
  shown(k + ".time_us", s.time_s * 1e6);
  shown(k + ".issue_utilisation", s.issue_utilisation);
  shown(k + ".achieved_occupancy", s.achieved_occupancy);
  shown(k + ".issued", double(s.issued));
  uint64_t total = 0;
  for (uint64_t v : s.stall) total += v;
  for (size_t i = 0; i < s.stall.size() && i < T.reasons.size(); ++i)
    shown(k + ".stall_share." + T.reasons[i], double(s.stall[i]) / double(std::max<uint64_t>(1, total)));

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize(), lh = ImGui::GetTextLineHeight();
  ImVec2 o = ImGui::GetCursorScreenPos();
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float label_w = ImGui::CalcTextSize("S0 100% ").x;
  Frame f = frame_in;
  f.x0 = o.x + label_w;
  f.x1 = o.x + avail_w - 2;
  // The lines above, then the drawing, then the cursor's step past it (2 px and one item spacing).
  const float area = std::max(height - (o.y - top) - 3 - ImGui::GetStyle().ItemSpacing.y, lh * 4);
  const float axis_h = lh;
  const uint32_t scheds = std::max(1u, T.schedulers);
  const float sched_h = std::clamp(area * 0.045f, 3.f, lh);
  const float gap = px(3.f);
  // Hopper's asynchronous units, when the kernel uses them: a row for the
  // copy engine (TMA) and one per scheduler for the tensor pipe's wgmma work.
  bool any_tensor = false;
  for (const auto& v : s.tensor) any_tensor |= !v.empty();
  const uint32_t async_rows = (s.copy_engine.empty() ? 0u : 1u) + (any_tensor ? scheds : 0u);
  const float async_top = o.y + axis_h + scheds * sched_h + 2 * gap;
  const float warps_top = async_top + async_rows * sched_h + (async_rows ? gap : 0.f);
  const float warps_h = std::max(1.f, o.y + area - warps_top);
  const float row_h = warps ? warps_h / float(warps) : warps_h;

  // Axis: cycle numbers.
  const double step = tick_step((f.c1 - f.c0) / std::max(1.f, f.x1 - f.x0), ImGui::CalcTextSize("000000").x + fs);
  for (double c = std::ceil(f.c0 / step) * step; c < f.c1; c += step) {
    float x = f.x(c);
    dl->AddLine(ImVec2(x, o.y + axis_h - 4), ImVec2(x, o.y + area), IM_COL32(255, 255, 255, 28));
    char b[24];
    std::snprintf(b, sizeof b, "%.0f", c);
    dl->AddText(ImVec2(x + 2, o.y), pal.panel_text_dim, b);
  }
  dl->AddText(ImVec2(o.x, o.y), pal.panel_text_dim, "cycle");

  // Scheduler rows: every cycle is one issue slot; the dark red ones stay idle.
  const ImU32 idle = IM_COL32(95, 38, 38, 255), used = pal.warp_state[int(WarpState::Issuing)];
  const double slots_per_sched = std::max(0.0, std::min(f.c1, double(s.cycles)) - std::max(0.0, f.c0));
  uint64_t issued_view = 0;
  for (uint32_t q = 0; q < scheds; ++q) {
    float y0 = o.y + axis_h + gap + q * sched_h, y1 = y0 + sched_h - 1;
    float xe = f.x(std::min(f.c1, double(s.cycles)));
    if (xe > f.x0) dl->AddRectFilled(ImVec2(f.x0, y0), ImVec2(xe, y1), idle);
    uint64_t n = q < s.scheduler_issues.size() ? draw_issues(dl, s.scheduler_issues[q], f, y0, y1, used) : 0;
    issued_view += n;
    if (sched_h >= fs * 0.8f) {
      char b[24];
      std::snprintf(b, sizeof b, "S%u %.0f%%", q, slots_per_sched > 0 ? 100.0 * double(n) / slots_per_sched : 0.0);
      dl->AddText(ImVec2(o.x, y0 + (sched_h - fs) / 2), IM_COL32(220, 225, 235, 255), b);
    }
  }
  if (sched_h < fs * 0.8f)
    dl->AddText(ImVec2(o.x, o.y + axis_h + gap + (scheds * sched_h - fs) / 2), IM_COL32(220, 225, 235, 255), "slots");
  // The asynchronous units' rows: busy intervals on a dark track.
  {
    const ImU32 track = IM_COL32(40, 44, 52, 255), copy_col = IM_COL32(150, 215, 255, 255),
                tensor_col = IM_COL32(255, 215, 110, 255);
    auto draw_busy = [&](const std::vector<std::pair<uint64_t, uint64_t>>& v, float y0, float y1, ImU32 col) {
      dl->AddRectFilled(ImVec2(f.x0, y0), ImVec2(f.x1, y1), track);
      double busy = 0;
      float last = -1e9f;
      for (const auto& [a, b] : v) {
        if (double(b) <= f.c0 || double(a) >= f.c1) continue;
        const double ca = std::max(double(a), f.c0), cb = std::min(double(b), f.c1);
        busy += cb - ca;
        const float xa = std::max(f.x(ca), last), xb = std::max(f.x(cb), xa + 1.f);
        if (xb <= last) continue;
        dl->AddRectFilled(ImVec2(xa, y0), ImVec2(xb, y1), col);
        last = xb;
      }
      return busy;
    };
    uint32_t row = 0;
    auto label = [&](float y0, const char* text) {
      if (sched_h >= fs * 0.8f) dl->AddText(ImVec2(o.x, y0 + (sched_h - fs) / 2), IM_COL32(220, 225, 235, 255), text);
    };
    if (!s.copy_engine.empty()) {
      const float y0 = async_top + row++ * sched_h, y1 = y0 + sched_h - 1;
      const double busy = draw_busy(s.copy_engine, y0, y1, copy_col);
      label(y0, "TMA");
      shown(k + ".copy_engine_spans", double(s.copy_engine.size()));
      shown(k + ".view_copy_engine_busy_cycles", busy);
    }
    if (any_tensor) {
      double busy = 0;
      for (uint32_t q = 0; q < scheds; ++q) {
        const float y0 = async_top + row++ * sched_h, y1 = y0 + sched_h - 1;
        busy += draw_busy(q < s.tensor.size() ? s.tensor[q] : std::vector<std::pair<uint64_t, uint64_t>>{}, y0, y1,
                          tensor_col);
        char b[16];
        std::snprintf(b, sizeof b, "wgmma%u", q);
        label(y0, b);
      }
      shown(k + ".view_wgmma_busy_cycles", busy);
      size_t spans = 0;
      for (const auto& v : s.tensor) spans += v.size();
      shown(k + ".wgmma_spans", double(spans));
    }
  }
  const double slots_view = slots_per_sched * scheds;
  shown(k + ".view_slots", slots_view);
  shown(k + ".view_issued", double(issued_view));
  shown(k + ".view_idle_slots", slots_view - double(issued_view));

  // Warp rows, grouped by scheduler.
  std::vector<ImU32> colors;
  for (const auto& r : T.reasons) colors.push_back(stall_color(r));
  std::vector<uint64_t> seen(T.reasons.size(), 0);
  const ImU32 tick = stall_color("selected");
  int hovered = -1;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (uint32_t i = 0; i < warps; ++i) {
    const TimelineWarp& w = s.warps[i];
    float y0 = warps_top + i * row_h, y1 = y0 + std::max(1.f, row_h - (row_h >= 4 ? 1.f : 0.f));
    dl->AddRectFilled(ImVec2(f.x0, y0), ImVec2(f.x1, y1), kNoWarp);
    draw_waits(dl, T, w.waits, f, y0, y1, colors, seen);
    draw_issues(dl, w.issues, f, y0, y1, tick);
    if (i == 0 || s.warps[i - 1].scheduler != w.scheduler) {
      uint32_t n = 0;
      while (i + n < warps && s.warps[i + n].scheduler == w.scheduler) ++n;
      float gy1 = y0 + n * row_h;
      if (i) dl->AddLine(ImVec2(o.x, y0 - 0.5f), ImVec2(f.x1, y0 - 0.5f), IM_COL32(200, 205, 215, 120));
      char b[32];
      std::snprintf(b, sizeof b, "S%u: %u warp%s", w.scheduler, n, n == 1 ? "" : "s");
      ImVec2 ts = ImGui::CalcTextSize(b);
      if (ts.x > label_w - 4) std::snprintf(b, sizeof b, "S%u", w.scheduler);
      dl->AddText(ImVec2(o.x, (y0 + gy1 - fs) / 2), IM_COL32(220, 225, 235, 255), b);
    }
    if (mouse.x >= f.x0 && mouse.x < f.x1 && mouse.y >= y0 && mouse.y < y0 + row_h) hovered = int(i);
  }
  uint64_t waits_view = 0;
  for (size_t r = 0; r < seen.size(); ++r) {
    waits_view += seen[r];
    if (seen[r]) shown(k + ".view_waits." + T.reasons[r], double(seen[r]));
  }
  shown(k + ".view_waits_total", double(waits_view));
  // The cursor.
  const double cur = std::clamp(ui.timeline_cycle, f.c0, f.c1);
  dl->AddLine(ImVec2(f.x(cur), o.y + axis_h - 2), ImVec2(f.x(cur), o.y + area), IM_COL32(255, 255, 255, 200), 2.f);
  if (hovered >= 0) {
    const TimelineWarp& w = s.warps[size_t(hovered)];
    const uint64_t c = uint64_t(std::max(0.0, f.cycle(mouse.x)));
    const WarpAtCycle a = warp_at_cycle(w, c);
    const std::string what = a.kind == WarpAtCycle::Issuing ? std::string("issued (selected)") : warp_at_cycle_text(T, a);
    const char* why = a.kind == WarpAtCycle::Waiting && a.reason < T.explanations.size() ? T.explanations[a.reason].c_str() : "";
    const uint32_t block = a.block;
    ImGui::SetTooltip("warp slot %u (block %u), scheduler %u, cycle %llu: %s\n%s", w.slot, block, w.scheduler,
                      (unsigned long long)c, what.c_str(), why);
  }
  ImGui::SetCursorScreenPos(ImVec2(o.x, o.y + area + 2));
  ImGui::Dummy(ImVec2(1, 1));
}

}  // namespace

void draw_timeline(const ViewModel& vm, UiState& ui) {
  ui.timeline_wanted = true;  // the worker times the kernel for this pane (session_timeline.cpp)
  const Palette& pal = palette();
  const ImVec4 dim = ImGui::ColorConvertU32ToFloat4(pal.panel_text_dim);
  if (!vm.timeline || !vm.timeline->ready()) {
    const std::string st = vm.timeline ? vm.timeline->status : std::string("waiting for the kernel...");
    ImGui::TextWrapped("%s", st.c_str());
    shown("timeline.status", st);
    return;
  }
  const CycleTimeline& T = *vm.timeline;
  const TimelineSide& one = T.sides[0];
  const TimelineSide& full = T.sides[1];
  shown("timeline.status", "ready");
  shown("timeline.kernel", T.kernel);
  shown("timeline.problem", T.problem);
  shown("timeline.same_residency", T.same_residency);
  shown("timeline.residency_note", T.residency_note);

  char text[768];
  std::snprintf(text, sizeof text,
                "%s on one %s SM, cycle by cycle: predicted by the lab's cycle model (%u schedulers per SM, GTO). %s.",
                T.kernel.c_str(), T.gpu.c_str(), T.schedulers, T.problem.c_str());
  text_words(text);
  std::snprintf(text, sizeof text,
                "Issue slots used (predicted): %s %.1f%%  vs  %s %.1f%%.  Kernel time predicted from this one-SM "
                "slice: %.4g us vs %.4g us.",
                one.title.c_str(), 100.0 * one.issue_utilisation, full.title.c_str(), 100.0 * full.issue_utilisation,
                one.time_s * 1e6, full.time_s * 1e6);
  text_words(text);
  ImGui::PushStyleColor(ImGuiCol_Text, dim);
  if (T.launch_on_screen && vm.launch.predicted_seconds > 0) {
    // Two predictions of one launch: the standard one samples more SMs and
    // waves than this one-SM slice; say which is which (lessons cite the standard one).
    std::snprintf(text, sizeof text,
                  "The launch pane's %.3g us is the standard prediction (gpulab sim, check): it times a larger "
                  "sample of SMs and waves. The times here come from the one SM drawn, scaled to the grid: they "
                  "compare the two sides, not the launch.",
                  vm.launch.predicted_seconds * 1e6);
    text_words(text);
    shown("timeline.standard_time_us", vm.launch.predicted_seconds * 1e6);
  }
  std::snprintf(text, sizeof text,
                "Rows S0-S%u: each scheduler's issue slots, one per cycle (%% = used in view). Below: every warp slot "
                "of the SM, grouped by the scheduler it issues on, coloured by what it waits for.",
                T.schedulers - 1);
  text_words(text);
  if (!one.copy_engine.empty())
    text_words("Rows TMA and wgmma0-3 (Hopper's asynchronous units): the copy engine's copies in flight, from the "
               "request to the last byte landed in shared memory, and each scheduler's tensor pipe working on wgmma.");
  ImGui::PopStyleColor();
  if (T.same_residency) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.75f, 0.3f, 1.f));
    ImGui::TextWrapped("%s", T.residency_note.c_str());
    ImGui::PopStyleColor();
  }

  // Cursor, window and playback, in cycles.
  const uint64_t maxc = cycle_span(T);  // the cursor opens and plays in advance_cycle_clock (cycle_state.cpp)
  if (ui.timeline_cycle < 0) ui.timeline_cycle = double(T.open_cycle);
  if (ImGui::Button(ui.timeline_playing ? "Pause" : "Play")) ui.timeline_playing = !ui.timeline_playing;
  ImGui::SameLine();
  if (ImGui::Button("Next idle")) {
    const uint64_t next = next_idle_stretch(one, uint64_t(std::max(0.0, ui.timeline_cycle)) + 1);
    if (next != ~0ull) ui.timeline_cycle = double(next), ui.timeline_playing = false;
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the cursor to the next stretch of 100+ cycles in which no scheduler of the 1-block SM issues");
  ImGui::SameLine();
  const float slider_w = ImGui::GetContentRegionAvail().x * 0.30f;
  ImGui::SetNextItemWidth(slider_w);
  const double zero = 0, top = double(maxc);
  ImGui::SliderScalar("cycle", ImGuiDataType_Double, &ui.timeline_cycle, &zero, &top, "%.0f");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(slider_w * 0.6f);
  ImGui::SliderFloat("cycles shown", &ui.timeline_window, 100.f, float(std::max<uint64_t>(200, maxc)), "%.0f",
                     ImGuiSliderFlags_Logarithmic);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(slider_w * 0.45f);
  ImGui::SliderFloat("cycles/s", &ui.timeline_speed, 10.f, 20000.f, "%.0f", ImGuiSliderFlags_Logarithmic);
  const double W = std::max(50.0, double(ui.timeline_window));
  Frame f;
  f.c0 = std::max(0.0, ui.timeline_cycle - W * 0.25);
  f.c1 = f.c0 + W;
  shown("timeline.cursor", ui.timeline_cycle);
  shown("timeline.window_from", f.c0);
  shown("timeline.window_to", f.c1);

  // Legend: the reasons by Nsight's names, then issue slots.
  stall_legend(T, false);
  legend_next(pal.warp_state[int(WarpState::Issuing)], "used issue slot");
  legend_next(IM_COL32(95, 38, 38, 255), "idle issue slot");
  legend_next(kNoWarp, "no warp in the slot");
  shown("timeline.legend", std::string("Nsight warp states"));
  for (size_t r = 0; r < T.reasons.size(); ++r) shown("timeline.reasons." + T.reasons[r], double(r));

  const float h = ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing();
  const float each = std::max(ImGui::GetTextLineHeightWithSpacing() * 8, (h - ImGui::GetStyle().ItemSpacing.y) / 2);
  draw_side(T, one, "one", f, each, ui);
  draw_side(T, full, "full", f, each, ui);
  ImGui::TextColored(dim, "%s", full.note.c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", full.note.c_str());
}

}  // namespace lab::visual
