// visual/view_memory.cpp: what one warp memory instruction costs, drawn.
//   draw_memory_heat : accesses per element of A, B, C so far + the current footprint
//   draw_coalescing  : 32 lane addresses over 128-byte lines and 32-byte sectors
//   draw_banks       : 32 shared-memory banks, the lanes that hit each, conflicts
// Sectors and wavefronts shown as totals are the simulator's counts; the
// drawing only places lanes on lines and banks.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "visual/screen_state.h"
#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

namespace {
constexpr uint32_t kLine = 128, kSector = 32, kBankBytes = 4, kBanks = 32;

void access_header(const WarpAccess& a) {
  ImGui::Text("%s %s, %u-byte lanes, block %u warp %u, line %u", a.atomic ? "atomic" : a.is_store ? "store" : "load",
              a.space == ptx::Space::Global ? (a.buffer.empty() ? "global" : ("global " + a.buffer).c_str()) : "shared",
              a.access_bytes, a.block_linear, a.warp, a.line);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().panel_text_dim), "%s", a.ptx.c_str());
}
}  // namespace

void draw_memory_heat(const ViewModel& vm, UiState& ui) {
  const Palette& pal = palette();
  if (vm.heat.empty()) {
    ImGui::TextUnformatted("No matrices to show: the kernel's buffers are not A, B, C of a GEMM.");
    return;
  }
  // A cell may hold several elements (a matrix over 64 a side is drawn at 64
  // cells a side); values are accesses per element, averaged over the cell.
  const HeatMap& h0 = vm.heat[0];
  uint32_t er = h0.rows ? std::max(1u, h0.elem_rows / h0.rows) : 1, ec = h0.cols ? std::max(1u, h0.elem_cols / h0.cols) : 1;
  double mx_all = 0;
  for (const HeatMap& h : vm.heat) {
    double epc = double(std::max(1u, h.rows ? h.elem_rows / h.rows : 1)) * std::max(1u, h.cols ? h.elem_cols / h.cols : 1);
    mx_all = std::max(mx_all, h.max_count() / epc);
  }
  if (er * ec > 1) ImGui::Text("Global loads and stores per element so far (a cell is %u x %u elements: their mean)", er, ec);
  else ImGui::TextUnformatted("Global loads and stores per element so far (one cell per element)");
  heat_key(mx_all, "accesses per element");
  shown("heat.unit", "accesses per element");
  shown("heat.elements_per_cell", double(er * ec));
  shown("heat.max_per_element", mx_all);
  ImGui::SameLine(0, 14);
  if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize("current warp instruction").x + 30) ImGui::NewLine();
  legend_item(pal.footprint, "current warp instruction");
  ImVec2 avail = ImGui::GetContentRegionAvail();
  size_t n = vm.heat.size();
  float w = (avail.x - 10.f * (n - 1)) / n;
  float label_h = ImGui::GetTextLineHeightWithSpacing();
  float side = std::max(16.f, std::min(w, avail.y - label_h * 2));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (size_t i = 0; i < n; ++i) {
    const HeatMap& h = vm.heat[i];
    if (i) ImGui::SameLine(0, 10);
    ImGui::BeginGroup();
    const double epc =
        double(std::max(1u, h.rows ? h.elem_rows / h.rows : 1)) * std::max(1u, h.cols ? h.elem_cols / h.cols : 1);
    uint32_t mx = h.max_count();
    ImGui::Text("%s  max %.3g", h.name.c_str(), mx / epc);
    ImVec2 p = ImGui::GetCursorScreenPos();
    float aspect = h.rows && h.cols ? float(h.elem_rows) / float(h.elem_cols) : 1.f;
    float pw = side, ph = side;
    if (aspect > 1) pw = side / aspect; else ph = side * aspect;
    dl->AddRectFilled(p, ImVec2(p.x + pw, p.y + ph), pal.heat_low);
    if (h.rows && h.cols) {
      float cw = pw / h.cols, chh = ph / h.rows;
      // Log scale over the same range as the key, shared by A, B and C.
      float lmax = std::log1p(float(std::max(1e-9, mx_all)));
      for (uint32_t r = 0; r < h.rows; ++r)
        for (uint32_t c = 0; c < h.cols; ++c) {
          uint32_t v = h.count[r * h.cols + c];
          if (!v) continue;
          dl->AddRectFilled(ImVec2(p.x + c * cw, p.y + r * chh), ImVec2(p.x + (c + 1) * cw, p.y + (r + 1) * chh),
                            heat_color(std::min(1.f, std::log1p(float(v / epc)) / lmax)));
        }
      if (!h.footprint.empty())
        for (uint32_t r = 0; r < h.rows; ++r)
          for (uint32_t c = 0; c < h.cols; ++c)
            if (h.footprint[r * h.cols + c])
              dl->AddRectFilled(ImVec2(p.x + c * cw, p.y + r * chh),
                                ImVec2(p.x + (c + 1) * cw, p.y + (r + 1) * chh), pal.footprint);
    }
    dl->AddRect(p, ImVec2(p.x + pw, p.y + ph), pal.line_frame);
    ImGui::Dummy(ImVec2(pw, ph));
    if (ImGui::IsItemHovered() && h.rows && h.cols) {
      ImVec2 m = ImGui::GetMousePos();
      uint32_t c = std::min(h.cols - 1, uint32_t((m.x - p.x) / pw * h.cols));
      uint32_t r = std::min(h.rows - 1, uint32_t((m.y - p.y) / ph * h.rows));
      uint32_t hr = h.elem_rows / h.rows, hc = h.elem_cols / h.cols;
      ImGui::SetTooltip("%s rows %u..%u, cols %u..%u: %u accesses (%.3g per element)", h.name.c_str(), r * hr,
                        (r + 1) * hr - 1, c * hc, (c + 1) * hc - 1, h.count[r * h.cols + c],
                        h.count[r * h.cols + c] / epc);
    }
    ImGui::EndGroup();
  }
}

void draw_coalescing(const ViewModel& vm, UiState& ui) {
  const WarpAccess& a = vm.global_access;
  const Palette& pal = palette();
  if (!a.valid) {
    ImGui::TextUnformatted("No global memory access yet.");
    return;
  }
  access_header(a);
  // Lines touched, in address order.
  std::set<uint64_t> lines;
  std::set<uint64_t> sectors;
  uint32_t lanes = 0;
  for (int l = 0; l < 32; ++l)
    if ((a.mask >> l) & 1) {
      ++lanes;
      for (uint64_t b = a.lane_addr[l]; b < a.lane_addr[l] + a.access_bytes; b += kSector) sectors.insert(b / kSector);
      sectors.insert((a.lane_addr[l] + a.access_bytes - 1) / kSector);
      lines.insert(a.lane_addr[l] / kLine);
      lines.insert((a.lane_addr[l] + a.access_bytes - 1) / kLine);
    }
  // Distinct bytes the lanes use (a broadcast uses one element's bytes).
  std::set<uint64_t> used_bytes;
  for (int l = 0; l < 32; ++l)
    if ((a.mask >> l) & 1)
      for (uint64_t b = a.lane_addr[l]; b < a.lane_addr[l] + a.access_bytes; ++b) used_bytes.insert(b);
  const uint32_t used = uint32_t(used_bytes.size());
  const uint32_t fetched = a.sectors ? a.sectors : uint32_t(sectors.size());
  const uint32_t ideal = a.ideal_sectors ? a.ideal_sectors : (used + kSector - 1) / kSector;
  const bool waste = fetched > ideal;
  shown("coalescing.line", double(a.line));
  shown("coalescing.lanes", double(lanes));
  shown("coalescing.sectors", double(fetched));
  shown("coalescing.ideal_sectors", double(ideal));
  shown("coalescing.used_bytes", double(used));
  shown("coalescing.moved_bytes", double(fetched * kSector));
  shown("coalescing.waste_sectors", double(waste ? fetched - ideal : 0));
  shown("coalescing.ptx", a.ptx);
  ImGui::TextWrapped("%u lanes -> %zu line%s, %u sector%s (ideal %u)%s: %u distinct bytes used of %u moved. %s", lanes,
                     lines.size(), lines.size() == 1 ? "" : "s", fetched, fetched == 1 ? "" : "s", ideal,
                     used < lanes * a.access_bytes ? (" - lanes share addresses (broadcast: each byte read by " +
                                                      std::to_string(lanes * a.access_bytes / std::max(1u, used)) +
                                                      " lanes)").c_str()
                                                   : "",
                     used, fetched * kSector,
                     waste ? ("Waste: " + std::to_string(fetched - ideal) + " sectors (" +
                              std::to_string(100 * (fetched - ideal) / fetched) + "% of the traffic) beyond the ideal.")
                                 .c_str()
                           : "No waste: no layout could move fewer sectors.");
  legend_item(pal.lane, "lane");
  ImGui::SameLine(0, 14);
  legend_item(pal.sector_used, "bytes used");
  ImGui::SameLine(0, 14);
  if (waste) {
    legend_item(pal.sector_wasted, "fetched, unused (waste)");
  } else {
    legend_item(pal.line_frame, "rest of a needed sector");
  }
  ImGui::SameLine(0, 14);
  if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize("not fetched").x + 30) ImGui::NewLine();
  legend_item(pal.bank_idle, "not fetched");

  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  ImVec2 p = ImGui::GetCursorScreenPos();
  float lane_w = avail.x / 32.f, lane_h = std::max(14.f, ImGui::GetTextLineHeight() + 2);
  // Row of lanes.
  for (int l = 0; l < 32; ++l) {
    bool on = (a.mask >> l) & 1;
    ImVec2 q(p.x + l * lane_w, p.y);
    dl->AddRectFilled(ImVec2(q.x + 1, q.y), ImVec2(q.x + lane_w - 1, q.y + lane_h), on ? pal.lane : pal.bank_idle, 2.f);
    char t[4];
    std::snprintf(t, sizeof t, "%d", l);
    // A lane number only where it fits (a projector's large font: every other lane).
    float tw = ImGui::CalcTextSize("00").x + 4;
    int every = lane_w >= tw ? 1 : lane_w * 2 >= tw ? 2 : lane_w * 4 >= tw ? 4 : 8;
    if (l % every == 0) dl->AddText(ImVec2(q.x + 2, q.y + 1), IM_COL32(10, 10, 20, 255), t);
  }
  // Lines, one row each (at most what fits), each 4 sectors of 32 bytes, byte-exact.
  float top = p.y + lane_h + std::max(px(24.f), avail.y * 0.12f);
  const float label_w = ImGui::CalcTextSize("+0x0000 ").x;
  float left = p.x + label_w, width = avail.x - label_w - 2;
  float room = p.y + avail.y - top;
  size_t max_rows = std::max<size_t>(1, size_t(room / px(14.f)));
  size_t nrows = std::min(lines.size(), max_rows);
  float row_h = std::min(px(28.f), room / std::max<size_t>(1, nrows));
  float byte_w = width / kLine;
  std::map<uint64_t, int> line_row;
  int r = 0;
  for (uint64_t ln : lines) {
    if (size_t(r) >= nrows) break;
    line_row[ln] = r;
    float y = top + r * row_h;
    char t[48];
    std::snprintf(t, sizeof t, "+0x%llx", (unsigned long long)(ln * kLine - (a.base & ~uint64_t(kLine - 1))));
    if (row_h >= ImGui::GetFontSize()) dl->AddText(ImVec2(p.x, y + (row_h - ImGui::GetFontSize()) / 2), pal.panel_text_dim, t);
    for (uint32_t s = 0; s < kLine / kSector; ++s) {
      uint64_t sec = ln * (kLine / kSector) + s;
      bool fetched_sec = sectors.count(sec);
      float x0 = left + s * kSector * byte_w;
      dl->AddRectFilled(ImVec2(x0 + 1, y + 1), ImVec2(x0 + kSector * byte_w - 1, y + row_h - 1),
                        fetched_sec ? (waste ? pal.sector_wasted : pal.line_frame) : pal.bank_idle);
    }
    ++r;
  }
  // Bytes each lane uses, green over the red of a fetched sector; a thin wire from the lane.
  for (int l = 0; l < 32; ++l) {
    if (!((a.mask >> l) & 1)) continue;
    uint64_t ad = a.lane_addr[l];
    auto it = line_row.find(ad / kLine);
    if (it == line_row.end()) continue;
    float y = top + it->second * row_h;
    float x0 = left + (ad % kLine) * byte_w, x1 = x0 + a.access_bytes * byte_w;
    dl->AddRectFilled(ImVec2(x0, y + 2), ImVec2(std::min(x1, left + width), y + row_h - 2), pal.sector_used);
    dl->AddLine(ImVec2(p.x + (l + 0.5f) * lane_w, p.y + lane_h), ImVec2((x0 + x1) / 2, y + 1),
                IM_COL32(90, 170, 255, 110));
  }
  for (size_t i = 0; i < nrows; ++i) {
    float y = top + i * row_h;
    dl->AddRect(ImVec2(left, y), ImVec2(left + width, y + row_h), pal.line_frame);
  }
  if (lines.size() > nrows) {
    char t[64];
    std::snprintf(t, sizeof t, "... %zu more lines", lines.size() - nrows);
    dl->AddText(ImVec2(left, top + nrows * row_h), pal.panel_text_dim, t);
  }
  ImGui::Dummy(avail);
}

void draw_banks(const ViewModel& vm, UiState& ui) {
  const WarpAccess& a = vm.shared_access;
  const Palette& pal = palette();
  if (!a.valid) {
    ImGui::TextUnformatted("No shared-memory access yet.");
    return;
  }
  access_header(a);
  const BankService& s = a.banks;
  if (!s.valid) {
    ImGui::Text("%u wavefront%s (ideal %u): %u extra from bank conflicts", a.wavefronts, a.wavefronts == 1 ? "" : "s",
                a.ideal_wavefronts, a.conflicts);
    return;
  }
  // Everything below is the simulator's service (lab/sim/memory_cost.h),
  // drawn: per phase, each bank's words in the wavefront that serves them.
  // A box is one word; lanes reading the same word share it (broadcast).
  struct Box { std::vector<int> lanes; };
  const uint32_t phases = std::max<uint32_t>(1, std::min<uint32_t>(s.phases, 32));
  uint32_t worst = 1;
  for (uint32_t p = 0; p < phases; ++p) worst = std::max<uint32_t>(worst, s.phase_wavefronts[p]);
  // boxes[p][bank][wavefront]
  std::vector<std::vector<std::map<uint32_t, Box>>> boxes(phases, std::vector<std::map<uint32_t, Box>>(kBanks));
  // An atomic's lanes never share a wavefront: a bank applies one lane's
  // update per wavefront, in lane order (sim::shared_atomic_wavefronts, whose
  // count is a.wavefronts); a load's lanes reading one word share it.
  uint32_t per_bank[kBanks] = {};
  for (int l = 0; l < 32; ++l) {
    if (!((a.mask >> l) & 1)) continue;
    uint32_t p = std::min<uint32_t>(phases - 1, uint32_t(l) / std::max<uint32_t>(1, s.lanes_per_phase));
    for (uint32_t k = 0; k < std::min<uint32_t>(4, s.words_per_lane); ++k) {
      const uint32_t bank = s.bank[l][k] % kBanks;
      const uint32_t wf = a.atomic ? per_bank[bank]++ : s.wavefront[l][k];
      auto& lanes = boxes[p][bank][wf].lanes;
      if (lanes.empty() || lanes.back() != l) lanes.push_back(l);
    }
  }
  if (a.atomic)
    for (uint32_t b = 0; b < kBanks; ++b) worst = std::max(worst, per_bank[b]);
  shown("banks.line", double(a.line));
  shown("banks.ptx", a.ptx);
  shown("banks.wavefronts", double(a.wavefronts));
  shown("banks.ideal", double(a.ideal_wavefronts));
  shown("banks.conflicts", double(a.conflicts));
  shown("banks.phases", double(phases));
  shown("banks.atomic", a.atomic);
  shown("banks.lanes_per_phase", double(s.lanes_per_phase));
  {
    int red = 0, broadcast = 0;
    for (uint32_t p = 0; p < phases; ++p)
      for (uint32_t b = 0; b < kBanks; ++b) {
        red += boxes[p][b].size() > 1;
        for (const auto& [wf, box] : boxes[p][b]) broadcast = std::max<int>(broadcast, int(box.lanes.size()));
      }
    shown("banks.conflicted_banks", double(red));
    shown("banks.most_lanes_per_word", double(broadcast));
  }
  ImGui::TextWrapped("%u wavefront%s (ideal %u): %u extra from bank conflicts. %u-byte lanes: %s", a.wavefronts,
                     a.wavefronts == 1 ? "" : "s",
                     a.ideal_wavefronts, a.conflicts, a.access_bytes,
                     phases > 1 ? (std::to_string(phases) + " phases of " + std::to_string(s.lanes_per_phase) +
                                   " lanes, 128 bytes each; each phase is served on its own")
                                      .c_str()
                                : "all 32 lanes in one phase");
  if (a.atomic) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.75f, 0.3f, 1.f));
    text_words("An atomic: lanes updating one word serialise, one lane per wavefront in each bank (no "
               "broadcast); the simulator counts " + std::to_string(a.wavefronts) + " wavefronts.");
    ImGui::PopStyleColor();
  }
  legend_item(pal.bank_ok, a.atomic ? "bank applies one lane's update per wavefront"
                                    : "bank serves one word (lanes sharing it: broadcast)");
  legend_next(pal.bank_conflict, a.atomic ? "bank conflict: several updates, one after another" : "bank conflict: several words");
  legend_next(pal.bank_idle, "bank idle");

  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float fs = ImGui::GetFontSize();
  const float margin = phases > 1 ? ImGui::CalcTextSize("phase 3 ").x : 0.f;
  const float bw = (avail.x - margin) / kBanks;
  const float head = fs + 4;
  // Each phase gets at least its bank numbers and one wavefront's row: a
  // short pane scrolls rather than drawing them over each other.
  const float row_h = std::max(avail.y / phases, head + fs + 8);
  avail.y = std::max(avail.y, row_h * phases);
  const ImU32 ink = IM_COL32(10, 10, 20, 255);
  for (uint32_t p = 0; p < phases; ++p) {
    float y0 = p0.y + p * row_h;
    if (phases > 1) {
      char t[48];
      std::snprintf(t, sizeof t, "phase %u", p);
      dl->AddText(ImVec2(p0.x, y0 + 1), pal.panel_text_dim, t);
      std::snprintf(t, sizeof t, "%u wf", unsigned(s.phase_wavefronts[p]));
      if (row_h > 2 * fs + 4) dl->AddText(ImVec2(p0.x, y0 + fs + 2), pal.panel_text_dim, t);
    }
    float cell = std::max(4.f, std::min(2.f * fs, (row_h - head - 4) / float(worst)));
    for (uint32_t b = 0; b < kBanks; ++b) {
      float x0 = p0.x + margin + b * bw;
      size_t words = boxes[p][b].size();
      ImU32 c = words == 0 ? pal.bank_idle : words == 1 ? pal.bank_ok : pal.bank_conflict;
      dl->AddRectFilled(ImVec2(x0 + 1, y0), ImVec2(x0 + bw - 1, y0 + head), c);
      char t[24];
      std::snprintf(t, sizeof t, "%u", b);
      if (ImGui::CalcTextSize(t).x + 2 < bw) dl->AddText(ImVec2(x0 + 2, y0 + 2), ink, t);
      for (const auto& [wf, box] : boxes[p][b]) {
        float y = y0 + head + 2 + wf * cell;
        if (y + cell > y0 + row_h) break;
        dl->AddRectFilled(ImVec2(x0 + 2, y), ImVec2(x0 + bw - 2, y + cell - 1), pal.lane, 1.f);
        // One lane: its number; a broadcast: how many lanes share the word.
        if (box.lanes.size() == 1) std::snprintf(t, sizeof t, "%d", box.lanes[0]);
        else std::snprintf(t, sizeof t, "x%zu", box.lanes.size());
        if (cell >= fs && ImGui::CalcTextSize(t).x + 6 < bw) dl->AddText(ImVec2(x0 + 3, y), ink, t);  // clear of the next bank's
      }
    }
  }
  ImGui::Dummy(avail);
  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton("banks", ImVec2(std::max(1.f, avail.x), std::max(1.f, avail.y)));
  if (ImGui::IsItemHovered()) {
    ImVec2 m = ImGui::GetMousePos();
    uint32_t b = std::min<uint32_t>(kBanks - 1, uint32_t(std::max(0.f, m.x - p0.x - margin) / bw));
    uint32_t p = std::min<uint32_t>(phases - 1, uint32_t(std::max(0.f, m.y - p0.y) / row_h));
    std::string text = "phase " + std::to_string(p) + ", bank " + std::to_string(b) + ": " +
                       std::to_string(boxes[p][b].size()) + " distinct words";
    for (const auto& [wf, box] : boxes[p][b]) {
      text += "\n  wavefront " + std::to_string(wf) + ": lanes";
      for (int l : box.lanes) text += " " + std::to_string(l);
    }
    ImGui::SetTooltip("%s", text.c_str());
  }
}

}  // namespace lab::visual
