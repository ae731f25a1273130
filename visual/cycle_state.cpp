// visual/cycle_state.cpp: a warp slot's state at one cycle, and the shared
// cycle cursor (see cycle_state.h).
#include "visual/cycle_state.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "visual/screen_state.h"
#include "visual/theme.h"

namespace lab::visual {

WarpAtCycle warp_at_cycle(const TimelineWarp& w, uint64_t c) {
  WarpAtCycle a;
  // The block in the slot: the last run that began by c.
  auto run = std::partition_point(w.runs.begin(), w.runs.end(), [&](const TimelineRun& r) { return r.from <= c; });
  if (run == w.runs.begin()) return a;  // not yet resident
  --run;
  a.block = run->block;
  if (c > run->to) {
    a.kind = WarpAtCycle::Done;
    return a;
  }
  auto it = std::lower_bound(w.issues.begin(), w.issues.end(), c);
  if (it != w.issues.end() && *it == c) {
    a.kind = WarpAtCycle::Issuing;
    const size_t i = size_t(it - w.issues.begin());
    a.pc = i < w.pcs.size() ? int32_t(w.pcs[i]) : -1;
    return a;
  }
  a.kind = WarpAtCycle::Waiting;
  const size_t next = size_t(it - w.issues.begin());  // the next issue: what it waits for
  if (next < w.pcs.size()) a.pc = int32_t(w.pcs[next]);
  if (next < w.waited_pcs.size() && w.waited_pcs[next] >= 0 && w.waited_issues[next] <= c) {
    a.waited_pc = w.waited_pcs[next];
    a.waited_issue = w.waited_issues[next];
  }
  auto wt = std::partition_point(w.waits.begin(), w.waits.end(), [&](const TimelineWait& x) { return x.to <= c; });
  // Every waiting cycle is in one interval (lab/sim/cycle/result.h, WarpSpan);
  // a cycle outside all of them is one the model attributed to no state: 255.
  a.reason = wt != w.waits.end() && wt->from <= c ? wt->reason : uint8_t(255);
  return a;
}

SideAtCycle side_at_cycle(const CycleTimeline& T, const TimelineSide& s, uint64_t c) {
  SideAtCycle n;
  n.by_reason.assign(T.reasons.size(), 0);
  for (const TimelineWarp& w : s.warps) {
    const WarpAtCycle a = warp_at_cycle(w, c);
    switch (a.kind) {
      case WarpAtCycle::NotResident: ++n.not_resident; break;
      case WarpAtCycle::Issuing: ++n.issuing; break;
      case WarpAtCycle::Done: ++n.done; break;
      case WarpAtCycle::Waiting:
        ++n.waiting;
        if (a.reason < n.by_reason.size()) ++n.by_reason[a.reason];
        break;
    }
  }
  return n;
}

uint64_t issues_between(const TimelineSide& s, uint32_t q, uint64_t from, uint64_t to) {
  if (q >= s.scheduler_issues.size()) return 0;
  const auto& v = s.scheduler_issues[q];
  return uint64_t(std::lower_bound(v.begin(), v.end(), to) - std::lower_bound(v.begin(), v.end(), from));
}

uint32_t warp_at_cycle_color(const CycleTimeline& T, const WarpAtCycle& a) {
  switch (a.kind) {
    case WarpAtCycle::NotResident: return kNoWarpColor;
    case WarpAtCycle::Done: return palette().warp_state[int(WarpState::Done)];
    case WarpAtCycle::Issuing: return stall_color("selected");
    case WarpAtCycle::Waiting: break;
  }
  return a.reason < T.reasons.size() ? stall_color(T.reasons[a.reason]) : IM_COL32(200, 200, 200, 255);
}

std::string warp_at_cycle_text(const CycleTimeline& T, const WarpAtCycle& a) {
  switch (a.kind) {
    case WarpAtCycle::NotResident: return "not resident yet";
    case WarpAtCycle::Done: return "done";
    case WarpAtCycle::Issuing: return "issuing";
    case WarpAtCycle::Waiting: break;
  }
  return a.reason < T.reasons.size() ? T.reasons[a.reason] : std::string("waiting");
}

uint64_t cycle_span(const CycleTimeline& T) {
  return std::max<uint64_t>(1, std::max(T.sides[0].cycles, T.sides[1].cycles));
}

void advance_cycle_clock(const ViewModel& vm, UiState& ui) {
  if (!vm.timeline || !vm.timeline->ready()) return;
  const CycleTimeline& T = *vm.timeline;
  const uint64_t maxc = cycle_span(T);
  if (ui.cycle_timeline_seen != vm.timeline.get()) {
    ui.cycle_timeline_seen = vm.timeline.get(), ui.timeline_cycle = -1;
    // A kernel with a copy-engine pipeline opens wide enough to show a few
    // of its stages (one is about a thousand cycles on the H100 model).
    if (!T.sides[0].copy_engine.empty() && ui.timeline_window < 6000) ui.timeline_window = 6000;
  }
  if (ui.timeline_cycle < 0)
    ui.timeline_cycle = ui.cycle_open_fraction > 0 ? std::min(1.0, ui.cycle_open_fraction) * double(maxc)
                                                   : double(T.open_cycle);
  if (ui.timeline_playing) {
    ui.timeline_cycle += double(ImGui::GetIO().DeltaTime) * ui.timeline_speed;
    if (ui.timeline_cycle >= double(maxc)) ui.timeline_cycle = double(maxc), ui.timeline_playing = false;
  }
}

void cycle_controls(const CycleTimeline& T, UiState& ui) {
  const uint64_t maxc = cycle_span(T);
  if (ImGui::Button(ui.timeline_playing ? "Pause##cyc" : "Play##cyc")) ui.timeline_playing = !ui.timeline_playing;
  ImGui::SameLine();
  char fmt[64];
  std::snprintf(fmt, sizeof fmt, "cycle %%.0f of %llu", (unsigned long long)maxc);
  ImGui::SetNextItemWidth(std::max(px(120.f), ImGui::GetContentRegionAvail().x * 0.5f));
  const double zero = 0, top = double(maxc);
  // The whole cycle the panes draw (they floor the cursor), so the slider's
  // number and the text's never differ by one.
  double shown_cycle = std::floor(ui.timeline_cycle);
  if (ImGui::SliderScalar("##cycle", ImGuiDataType_Double, &shown_cycle, &zero, &top, fmt)) ui.timeline_cycle = shown_cycle;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(std::max(px(80.f), ImGui::GetContentRegionAvail().x * 0.4f));
  ImGui::SliderFloat("##cyc", &ui.timeline_speed, 10.f, 20000.f, "%.0f cycles/s", ImGuiSliderFlags_Logarithmic);
  shown("cycles.cursor", std::floor(ui.timeline_cycle));
  shown("cycles.of", double(maxc));
}

void stall_legend(const CycleTimeline& T, bool states, const std::vector<bool>* present) {
  bool first = true;
  auto item = [&](ImU32 c, const std::string& label, const char* tip) {
    if (first) legend_item(c, label.c_str());
    else legend_next(c, label.c_str());
    first = false;
    if (tip && *tip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  };
  for (size_t r = 0; r < T.reasons.size(); ++r) {
    const bool sel = int(r) == T.selected_reason;
    if (present && !sel && (r >= present->size() || !(*present)[r])) continue;
    item(stall_color(T.reasons[r]), sel ? "issue (selected)" : T.reasons[r],
         r < T.explanations.size() ? T.explanations[r].c_str() : "");
  }
  if (states) {
    item(kNoWarpColor, "not resident", "no warp in the slot: its block is not placed yet, or the slot is free");
    item(palette().warp_state[int(WarpState::Done)], "done", "the warp exited; its block may still be running");
  }
}

}  // namespace lab::visual
