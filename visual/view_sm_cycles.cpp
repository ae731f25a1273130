// visual/view_sm_cycles.cpp: the SM grid and the block view drawn from the
// cycle model's cycles (issue 15, item 4), not from the interpreter's replay
// order. The playback position is a cycle (the cursor the timeline pane
// shares, cycle_state.h); each warp slot is drawn in its state at that
// cycle: issuing, waiting with its Nsight stall reason (the timeline's
// colours), not yet resident, or done. Every number is the model's
// prediction for the one SM it times (the slice's SM, session_timeline.cpp).
#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "visual/cycle_state.h"
#include "visual/screen_state.h"
#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

namespace {

constexpr ImU32 kIdleSlot = IM_COL32(95, 38, 38, 255);  // an issue slot no warp used (the timeline's dark red)
constexpr ImU32 kTitle = IM_COL32(242, 217, 115, 255);

uint64_t cursor(const UiState& ui) { return uint64_t(std::max(0.0, std::floor(ui.timeline_cycle))); }

// "12 issuing, 40 waiting (long_scoreboard 30, barrier 8), 8 not resident, 4 done", and the same as data under `key`.
std::string counts_text(const CycleTimeline& T, const SideAtCycle& n, const std::string& key) {
  std::string why;
  std::vector<std::pair<uint32_t, size_t>> order;
  for (size_t r = 0; r < n.by_reason.size(); ++r)
    if (n.by_reason[r]) order.emplace_back(n.by_reason[r], r);
  std::sort(order.rbegin(), order.rend());
  for (const auto& [count, r] : order) {
    why += (why.empty() ? "" : ", ") + T.reasons[r] + " " + std::to_string(count);
    shown(key + ".waits." + T.reasons[r], double(count));
  }
  shown(key + ".issuing", double(n.issuing));
  shown(key + ".waiting", double(n.waiting));
  shown(key + ".not_resident", double(n.not_resident));
  shown(key + ".done", double(n.done));
  return std::to_string(n.issuing) + " issuing, " + std::to_string(n.waiting) + " waiting" +
         (why.empty() ? "" : " (" + why + ")") + ", " + std::to_string(n.not_resident) + " not resident, " +
         std::to_string(n.done) + " done";
}

// Each scheduler's issue slots over the `k` cycles up to c: one cell per
// cycle, used or idle (a scheduler issues at most one instruction a cycle).
void scheduler_strips(const CycleTimeline& T, const TimelineSide& s, uint64_t c, uint32_t k, const std::string& key) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize(), lh = ImGui::GetTextLineHeight();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float label_w = ImGui::CalcTextSize("S0 000/000 ").x;
  const float w = std::max(fs, ImGui::GetContentRegionAvail().x - label_w);
  const float cell = w / float(k), row = std::max(lh * 0.8f, px(6.f));
  const uint64_t from = c + 1 >= k ? c + 1 - k : 0;
  uint64_t used_all = 0, slots_all = 0;
  for (uint32_t q = 0; q < T.schedulers; ++q) {
    const float y = o.y + q * (row + 1);
    const uint64_t used = issues_between(s, q, from, c + 1);
    used_all += used, slots_all += c + 1 - from;
    char b[32];
    std::snprintf(b, sizeof b, "S%u %llu/%llu", q, (unsigned long long)used, (unsigned long long)(c + 1 - from));
    dl->AddText(ImVec2(o.x, y + (row - fs) / 2), IM_COL32(220, 225, 235, 255), b);
    const auto& v = q < s.scheduler_issues.size() ? s.scheduler_issues[q] : std::vector<uint64_t>{};
    for (uint64_t cc = from; cc <= c; ++cc) {
      const float x = o.x + label_w + float(cc - from) * cell;
      const bool issued = std::binary_search(v.begin(), v.end(), cc);
      dl->AddRectFilled(ImVec2(x, y), ImVec2(x + std::max(1.f, cell - (cell >= 4 ? 1.f : 0.f)), y + row),
                        issued ? stall_color("selected") : kIdleSlot);
    }
  }
  shown(key + ".strip_slots", double(slots_all));
  shown(key + ".strip_issued", double(used_all));
  shown(key + ".strip_idle", double(slots_all - used_all));
  ImGui::Dummy(ImVec2(label_w + w, T.schedulers * (row + 1)));
}

// "line 42 `ld.global.f32 %f1, [%rd5];`" for instruction pc.
std::string instruction_text(const SourceText& src, int64_t pc) {
  if (pc < 0 || size_t(pc) >= src.ptx.size()) return "(no instruction)";
  const uint32_t line = size_t(pc) < src.ptx_line.size() ? src.ptx_line[size_t(pc)] : 0;
  std::string ptx = src.ptx[size_t(pc)];
  ptx.erase(0, ptx.find_first_not_of(" \t"));
  std::replace(ptx.begin(), ptx.end(), '\t', ' ');
  return (line ? "line " + std::to_string(line) + " " : std::string()) + "`" + ptx + "`";
}

// What warp `a` is doing at cycle c in words, and what it waits for: the
// instruction whose result it needs, issued N cycles earlier (the model's
// scoreboard: lab/sim/cycle/result.h IssueEvent::waited_pc).
std::string warp_story(const CycleTimeline& T, const SourceText& src, const WarpAtCycle& a, uint32_t warp,
                       uint64_t c) {
  char head[96];
  std::snprintf(head, sizeof head, "warp %u of block %u at cycle %llu: ", warp, a.block, (unsigned long long)c);
  switch (a.kind) {
    case WarpAtCycle::NotResident: return std::string("warp slot empty at cycle ") + std::to_string(c) + " (no block yet).";
    case WarpAtCycle::Done: return head + std::string("done (its warp exited).");
    case WarpAtCycle::Issuing: return head + std::string("issuing ") + instruction_text(src, a.pc) + ".";
    case WarpAtCycle::Waiting: break;
  }
  std::string s = head + std::string("waiting (") + warp_at_cycle_text(T, a) + ") to issue " + instruction_text(src, a.pc);
  if (a.waited_pc >= 0)
    s += ". It needs the result of " + instruction_text(src, a.waited_pc) + ", issued at cycle " +
         std::to_string(a.waited_issue) + ", " + std::to_string(c - a.waited_issue) + " cycles earlier.";
  else if (a.reason < T.explanations.size() && !T.explanations[a.reason].empty()) {
    std::string why = T.explanations[a.reason];  // "the global-memory (LSU) queue is full: ..."
    why[0] = char(std::toupper(static_cast<unsigned char>(why[0])));
    s += ". " + why + (why.back() == '.' ? "" : ".");
  } else {
    s += ".";
  }
  return s;
}

// One side: the timed SM's warp slots at cycle c, a row per resident block slot.
void side_sm(const CycleTimeline& T, const TimelineSide& s, const SourceText& src, const std::string& key, int side,
             uint64_t c, bool short_pane, UiState& ui) {
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kTitle), "%s", s.title.c_str());
  shown(key + ".title", s.title);
  const SideAtCycle n = side_at_cycle(T, s, c);
  const std::string counts = counts_text(T, n, key);
  if (!short_pane) {  // a short pane keeps its lines for the warps (the counts are in the tooltip)
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().panel_text_dim));
    text_words(counts);
    ImGui::PopStyleColor();
    scheduler_strips(T, s, c, uint32_t(ui.cycle_strip), key);
  } else if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s", counts.c_str());
  }
  // The picked warp (a click, or --warp): what it does now and what it waits for.
  if (ui.pinned_side == side)
    for (const TimelineWarp& w : s.warps) {
      if (int(w.slot) != ui.pinned_slot) continue;
      const WarpAtCycle a = warp_at_cycle(w, c);
      const std::string story = warp_story(T, src, a, w.warp, c);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(kTitle));
      text_words(story);
      ImGui::PopStyleColor();
      shown(key + ".picked.slot", double(w.slot));
      shown(key + ".picked.text", story);
      shown(key + ".picked.waited_pc", double(a.waited_pc));
      if (a.waited_pc >= 0) shown(key + ".picked.cycles_earlier", double(c - a.waited_issue));
    }

  // Warp slots: a row per block slot, warps in columns (wrapped to fit).
  std::map<uint32_t, const TimelineWarp*> by_slot;
  for (const TimelineWarp& w : s.warps) by_slot[w.slot] = &w;
  const uint32_t wpb = std::max(1u, s.warps_per_block), bps = std::max(1u, s.blocks_per_sm);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float label_w = ImGui::CalcTextSize("block 00000 ").x;
  const float gw = std::max(fs, avail.x - label_w), gh = std::max(fs, avail.y - ImGui::GetStyle().ItemSpacing.y);
  // Columns per block row: the count that gives the largest cells (square at most).
  uint32_t cols = wpb, lines = 1;
  float best = 0;
  for (uint32_t k = 1; k <= wpb; ++k) {
    const uint32_t l = (wpb + k - 1) / k;
    const float size = std::min(gw / float(k), gh / float(bps * l));
    if (size > best) best = size, cols = k, lines = l;
  }
  const float cw = std::min(gw / float(cols), std::max(best, fs * 1.5f)), ch = best;
  uint32_t distinct_blocks = 0;
  for (uint32_t bs = 0; bs < bps; ++bs) {
    const float by0 = o.y + float(bs * lines) * ch;
    int64_t block = -1;
    for (uint32_t wi = 0; wi < wpb; ++wi) {
      auto it = by_slot.find(bs * wpb + wi);
      if (it == by_slot.end()) continue;
      const WarpAtCycle a = warp_at_cycle(*it->second, c);
      if (a.kind != WarpAtCycle::NotResident) block = a.block;
      const float x = o.x + label_w + float(wi % cols) * cw, y = by0 + float(wi / cols) * ch;
      dl->AddRectFilled(ImVec2(x + 0.5f, y + 0.5f), ImVec2(x + cw - 0.5f, y + ch - 0.5f), warp_at_cycle_color(T, a));
      const bool picked = ui.pinned_side == side && ui.pinned_slot == int(bs * wpb + wi);
      if (picked) dl->AddRect(ImVec2(x + 0.5f, y + 0.5f), ImVec2(x + cw - 0.5f, y + ch - 0.5f), kTitle, 0.f, 0, px(3.f));
      const ImVec2 m = ImGui::GetIO().MousePos;
      if (m.x >= x && m.x < x + cw && m.y >= y && m.y < y + ch && ImGui::IsWindowHovered()) {
        // The warp under the mouse: what it does and waits for; a click keeps it picked.
        ImGui::SetTooltip("%s\n(click to keep it picked)", warp_story(T, src, a, wi, c).c_str());
        if (ImGui::IsMouseClicked(0)) {
          const bool again = picked;
          ui.pinned_side = again ? -1 : side;
          ui.pinned_slot = again ? -1 : int(bs * wpb + wi);
        }
      }
      char t[8];
      std::snprintf(t, sizeof t, "%u", wi);
      if (ch >= fs && ImGui::CalcTextSize(t).x + 2 < cw)
        dl->AddText(ImVec2(x + 2, y + (ch - fs) / 2), a.kind == WarpAtCycle::NotResident ? IM_COL32(120, 125, 135, 255)
                                                                                           : IM_COL32(10, 10, 20, 255), t);
    }
    for (uint32_t wi = 0; wi < wpb; ++wi)
      if (!by_slot.count(bs * wpb + wi)) {
        const float x = o.x + label_w + float(wi % cols) * cw, y = by0 + float(wi / cols) * ch;
        dl->AddRectFilled(ImVec2(x + 0.5f, y + 0.5f), ImVec2(x + cw - 0.5f, y + ch - 0.5f), kNoWarpColor);
      }
    char t[32];
    if (block >= 0) std::snprintf(t, sizeof t, "block %lld", (long long)block), ++distinct_blocks;
    else std::snprintf(t, sizeof t, "(empty)");
    if (float(lines) * ch >= fs) dl->AddText(ImVec2(o.x, by0 + (float(lines) * ch - fs) / 2), IM_COL32(220, 225, 235, 255), t);
  }
  shown(key + ".blocks_resident", double(distinct_blocks));
  ImGui::Dummy(ImVec2(avail.x, float(bps * lines) * ch));
}

// The block view's block: the block in block slot `bs` of side s at cycle c, -1 when none.
int64_t block_in_slot(const TimelineSide& s, uint32_t bs, uint64_t c) {
  for (const TimelineWarp& w : s.warps)
    if (w.block_slot == bs) {
      const WarpAtCycle a = warp_at_cycle(w, c);
      if (a.kind != WarpAtCycle::NotResident) return a.block;
    }
  return -1;
}

}  // namespace

void draw_sm_cycles(const ViewModel& vm, UiState& ui) {
  const CycleTimeline& T = *vm.timeline;
  const uint64_t c = cursor(ui);
  shown("sm.time_base", std::string("cycle model"));
  shown("sm.cycle", double(c));
  shown("sm.cycles_total", double(cycle_span(T)));
  // A short pane (a projector layout's half) keeps its lines for the grid:
  // the caption shrinks to one sentence, and one side is drawn when both
  // hold the same single block (T.same_residency: the sides would be twins).
  const bool short_pane = ImGui::GetContentRegionAvail().y < ImGui::GetTextLineHeightWithSpacing() * 14;
  const bool one_side = T.same_residency;
  shown("sm.sides_drawn", one_side ? 1.0 : 2.0);
  char text[640];
  if (short_pane)
    std::snprintf(text, sizeof text, "%s: one %s SM at cycle %llu of %llu (the cycle model's prediction, %s).",
                  T.kernel.c_str(), T.gpu.c_str(), (unsigned long long)c, (unsigned long long)cycle_span(T),
                  T.problem.c_str());
  else
    std::snprintf(text, sizeof text,
                  "%s: one %s SM at cycle %llu of %llu, predicted by the lab's cycle model (%s). 1 block per SM "
                  "beside %u per SM (the occupancy limit). The model times this SM and scales it to the %u SMs.",
                  T.kernel.c_str(), T.gpu.c_str(), (unsigned long long)c, (unsigned long long)cycle_span(T),
                  T.problem.c_str(), T.sides[1].blocks_per_sm, vm.sm.sm_count);
  text_words(text);
  cycle_controls(T, ui);
  // A short pane's legend names only the states on screen at the cursor.
  std::vector<bool> present(T.reasons.size(), false);
  for (int side = 0; short_pane && side < 2; ++side) {
    const SideAtCycle n = side_at_cycle(T, T.sides[side], c);
    for (size_t r = 0; r < n.by_reason.size() && r < present.size(); ++r) present[r] = present[r] || n.by_reason[r] > 0;
  }
  stall_legend(T, !short_pane, short_pane ? &present : nullptr);
  char strip[96];
  std::snprintf(strip, sizeof strip, "used issue slot (rows S0-S%u: the last %u cycles)", T.schedulers - 1,
                unsigned(ui.cycle_strip));
  if (!short_pane) {  // a short pane draws no issue-slot rows (side_sm)
    legend_next(stall_color("selected"), strip);
    legend_next(kIdleSlot, "idle issue slot");
  }
  if (T.same_residency) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.75f, 0.3f, 1.f));
    text_words(T.residency_note);
    ImGui::PopStyleColor();
  }
  // The two sides, side by side where each gets a 4:5 area, else stacked,
  // above a short strip of the whole GPU's SMs (block placement by wave).
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // The strip: two lines of text and at least three text lines of SM cells,
  // where the pane has room for it (not in the full layout's tab).
  const float lines = avail.y / ImGui::GetTextLineHeightWithSpacing();
  const bool overview = lines >= 30;
  const float overview_h = overview ? std::max(ImGui::GetTextLineHeightWithSpacing() * 5.5f, avail.y * 0.28f) : 0.f;
  const float h = std::max(ImGui::GetTextLineHeightWithSpacing() * (short_pane ? 5 : 8), avail.y - overview_h);
  const bool side_by_side = avail.x / 2 > h * 0.8f;
  const ImVec2 each = one_side       ? ImVec2(avail.x, h)
                      : side_by_side ? ImVec2(avail.x / 2 - ImGui::GetStyle().ItemSpacing.x, h)
                                     : ImVec2(avail.x, h / 2);
  const char* keys[2] = {"sm.one", "sm.full"};
  for (int side = 0; side < (one_side ? 1 : 2); ++side) {
    if (side && side_by_side) ImGui::SameLine();
    ImGui::BeginChild(keys[side], each, true, ImGuiWindowFlags_NoScrollbar);
    side_sm(T, T.sides[side], vm.source, keys[side], side, c, short_pane, ui);
    ImGui::EndChild();
  }
  shown("sm.overview", overview);
  if (!overview) return;
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().panel_text_dim));
  text_words("Every SM: blocks placed by wave at the replay's position (placement only; time is the cycle "
             "model's, above).");
  ImGui::PopStyleColor();
  draw_sm_overview(vm, ui, false);
}

void draw_block_cycles(const ViewModel& vm, UiState& ui) {
  const CycleTimeline& T = *vm.timeline;
  const uint64_t c = cursor(ui);
  ui.cycle_side = std::clamp(ui.cycle_side, 0, 1);
  const TimelineSide& s = T.sides[ui.cycle_side];
  ui.cycle_block_slot = std::clamp(ui.cycle_block_slot, 0, int(std::max(1u, s.blocks_per_sm)) - 1);
  const uint32_t bs = uint32_t(ui.cycle_block_slot);
  const int64_t block = block_in_slot(s, bs, c);
  shown("block.time_base", std::string("cycle model"));
  shown("block.cycle", double(c));
  shown("block.side", s.title);
  shown("block.block", double(block));
  cycle_controls(T, ui);
  ImGui::RadioButton(T.sides[0].title.c_str(), &ui.cycle_side, 0);
  ImGui::SameLine();
  ImGui::RadioButton(T.sides[1].title.c_str(), &ui.cycle_side, 1);
  if (s.blocks_per_sm > 1) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(px(120.f));
    ImGui::SliderInt("block slot", &ui.cycle_block_slot, 0, int(s.blocks_per_sm) - 1);
  }
  // This block's warps, in warp order.
  std::vector<const TimelineWarp*> warps;
  for (const TimelineWarp& w : s.warps)
    if (w.block_slot == bs) warps.push_back(&w);
  std::sort(warps.begin(), warps.end(), [](const TimelineWarp* a, const TimelineWarp* b) { return a->warp < b->warp; });
  SideAtCycle n;
  n.by_reason.assign(T.reasons.size(), 0);
  std::vector<WarpAtCycle> at;
  std::map<std::pair<int, int>, int> kinds;  // distinct (state, reason) among the block's warps
  for (const TimelineWarp* w : warps) {
    WarpAtCycle a = warp_at_cycle(*w, c);
    if (block >= 0 && a.kind != WarpAtCycle::NotResident && int64_t(a.block) != block) a = WarpAtCycle{};  // another block's warp
    at.push_back(a);
    ++kinds[{int(a.kind), a.kind == WarpAtCycle::Waiting ? int(a.reason) : -1}];
    switch (a.kind) {
      case WarpAtCycle::Issuing: ++n.issuing; break;
      case WarpAtCycle::Done: ++n.done; break;
      case WarpAtCycle::NotResident: ++n.not_resident; break;
      case WarpAtCycle::Waiting:
        ++n.waiting;
        if (a.reason < n.by_reason.size()) ++n.by_reason[a.reason];
        break;
    }
  }
  shown("block.distinct_states", double(kinds.size()));
  char text[512];
  if (block >= 0)
    std::snprintf(text, sizeof text, "block #%lld in block slot %u of the timed %s SM: %zu warps at cycle %llu of %llu "
                  "(the cycle model's prediction):", (long long)block, bs, T.gpu.c_str(), warps.size(),
                  (unsigned long long)c, (unsigned long long)cycle_span(T));
  else
    std::snprintf(text, sizeof text, "block slot %u of the timed %s SM holds no block at cycle %llu.", bs,
                  T.gpu.c_str(), (unsigned long long)c);
  text_words(text);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().panel_text_dim));
  text_words(counts_text(T, n, "block.states"));
  ImGui::PopStyleColor();
  stall_legend(T, true);

  // A row per warp: its state now, the last cycles as a strip (the warps
  // visibly take turns), and the instruction it issues or waits to issue.
  const uint32_t k = uint32_t(ui.cycle_strip);
  const uint64_t from = c + 1 >= k ? c + 1 - k : 0;
  const float row_h = ImGui::GetTextLineHeightWithSpacing();
  const float strip_w = std::clamp(ImGui::GetContentRegionAvail().x * 0.3f, px(64.f), px(320.f));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  uint64_t strip_issues = 0;
  if (ImGui::BeginTable("warps_cycles", 6,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("warp");
    ImGui::TableSetupColumn("sched");
    ImGui::TableSetupColumn("state at the cursor");
    char head[48];
    std::snprintf(head, sizeof head, "last %u cycles", k);
    ImGui::TableSetupColumn(head, ImGuiTableColumnFlags_WidthFixed, strip_w);
    ImGui::TableSetupColumn("line");
    ImGui::TableSetupColumn("PTX (issued, or waiting to issue)", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < warps.size(); ++i) {
      const TimelineWarp& w = *warps[i];
      const WarpAtCycle& a = at[i];
      ImGui::TableNextRow(0, row_h);
      ImGui::TableNextColumn();
      ImGui::Text("%2u", w.warp);
      ImGui::TableNextColumn();
      ImGui::Text("S%u", w.scheduler);
      ImGui::TableNextColumn();
      const ImU32 col = warp_at_cycle_color(T, a);
      legend_item(col, warp_at_cycle_text(T, a).c_str());
      if (a.kind == WarpAtCycle::Waiting && a.reason < T.explanations.size() && ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", T.explanations[a.reason].c_str());
      ImGui::TableNextColumn();
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float cell = strip_w / float(k);
      for (uint64_t cc = from; cc <= c; ++cc) {
        WarpAtCycle b = warp_at_cycle(w, cc);
        if (block >= 0 && b.kind != WarpAtCycle::NotResident && int64_t(b.block) != block) b = WarpAtCycle{};
        strip_issues += b.kind == WarpAtCycle::Issuing;
        const float x = p.x + float(cc - from) * cell;
        dl->AddRectFilled(ImVec2(x, p.y + 2), ImVec2(x + std::max(1.f, cell), p.y + row_h - 3), warp_at_cycle_color(T, b));
      }
      ImGui::Dummy(ImVec2(strip_w, row_h - 4));
      ImGui::TableNextColumn();
      const bool pc_ok = a.pc >= 0 && size_t(a.pc) < vm.source.ptx.size();
      const uint32_t line = pc_ok && size_t(a.pc) < vm.source.ptx_line.size() ? vm.source.ptx_line[size_t(a.pc)] : 0;
      if (line) ImGui::Text("%u", line); else ImGui::TextUnformatted("-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(pc_ok ? vm.source.ptx[size_t(a.pc)].c_str()
                                   : a.kind == WarpAtCycle::Done ? "(exited)" : "-");
    }
    ImGui::EndTable();
  }
  shown("block.strip_issues", double(strip_issues));
}

}  // namespace lab::visual
