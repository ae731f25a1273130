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

#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

namespace {
constexpr uint32_t kLine = 128, kSector = 32, kBankBytes = 4, kBanks = 32;

void access_header(const WarpAccess& a) {
  ImGui::Text("%s %s, %u-byte lanes, block %u warp %u, line %u", a.is_store ? "store" : "load",
              a.space == AccessSpace::Global ? (a.buffer.empty() ? "global" : ("global " + a.buffer).c_str()) : "shared",
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
  ImGui::TextUnformatted("Accesses per element so far (global loads and stores)");
  ImGui::SameLine(0, 14);
  legend_item(heat_color(0.f), "few");
  ImGui::SameLine();
  legend_item(heat_color(1.f), "many");
  ImGui::SameLine(0, 14);
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
    uint32_t mx = h.max_count();
    ImGui::Text("%s  max %u", h.name.c_str(), mx);
    ImVec2 p = ImGui::GetCursorScreenPos();
    float aspect = h.rows && h.cols ? float(h.elem_rows) / float(h.elem_cols) : 1.f;
    float pw = side, ph = side;
    if (aspect > 1) pw = side / aspect; else ph = side * aspect;
    dl->AddRectFilled(p, ImVec2(p.x + pw, p.y + ph), pal.heat_low);
    if (h.rows && h.cols) {
      float cw = pw / h.cols, chh = ph / h.rows;
      // Log scale: counts span orders of magnitude (A's rows are read N times).
      float lmax = std::log1p(float(std::max(1u, mx)));
      for (uint32_t r = 0; r < h.rows; ++r)
        for (uint32_t c = 0; c < h.cols; ++c) {
          uint32_t v = h.count[r * h.cols + c];
          if (!v) continue;
          dl->AddRectFilled(ImVec2(p.x + c * cw, p.y + r * chh), ImVec2(p.x + (c + 1) * cw, p.y + (r + 1) * chh),
                            heat_color(std::log1p(float(v)) / lmax));
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
      uint32_t er = h.elem_rows / h.rows, ec = h.elem_cols / h.cols;
      ImGui::SetTooltip("%s rows %u..%u, cols %u..%u: %u accesses", h.name.c_str(), r * er, (r + 1) * er - 1, c * ec,
                        (c + 1) * ec - 1, h.count[r * h.cols + c]);
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
  uint32_t useful = lanes * a.access_bytes;
  uint32_t ideal = (useful + kSector - 1) / kSector;
  ImGui::Text("%u lanes -> %zu lines, %u sectors (ideal %u): %u of %u bytes moved are used (%.0f%%)", lanes, lines.size(),
              a.sectors ? a.sectors : uint32_t(sectors.size()), ideal, useful, uint32_t(sectors.size() * kSector),
              sectors.empty() ? 0.0 : 100.0 * useful / (sectors.size() * kSector));
  legend_item(pal.lane, "lane");
  ImGui::SameLine(0, 14);
  legend_item(pal.sector_used, "sector fetched, bytes used");
  ImGui::SameLine(0, 14);
  legend_item(pal.sector_wasted, "sector fetched, bytes unused");
  ImGui::SameLine(0, 14);
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
    if (lane_w > 16) {
      char t[4];
      std::snprintf(t, sizeof t, "%d", l);
      dl->AddText(ImVec2(q.x + 3, q.y + 1), IM_COL32(10, 10, 20, 255), t);
    }
  }
  // Lines, one row each (at most what fits), each 4 sectors of 32 bytes, byte-exact.
  float top = p.y + lane_h + std::max(24.f, avail.y * 0.12f);
  float left = p.x + 90.f, width = avail.x - 92.f;
  float room = p.y + avail.y - top;
  size_t max_rows = std::max<size_t>(1, size_t(room / 14.f));
  size_t nrows = std::min(lines.size(), max_rows);
  float row_h = std::min(28.f, room / std::max<size_t>(1, nrows));
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
      bool fetched = sectors.count(sec);
      float x0 = left + s * kSector * byte_w;
      dl->AddRectFilled(ImVec2(x0 + 1, y + 1), ImVec2(x0 + kSector * byte_w - 1, y + row_h - 1),
                        fetched ? pal.sector_wasted : pal.bank_idle);
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
  // Per bank: the lanes that hit it and the distinct 4-byte words among them.
  // A bank serves one word per wavefront; same-word lanes share it (broadcast).
  std::vector<int> bank_lanes[kBanks];
  std::set<uint64_t> bank_words[kBanks];
  for (int l = 0; l < 32; ++l) {
    if (!((a.mask >> l) & 1)) continue;
    for (uint32_t b = 0; b < std::max<uint32_t>(1, a.access_bytes / kBankBytes); ++b) {
      uint64_t word = a.lane_addr[l] / kBankBytes + b;
      uint32_t bank = uint32_t(word % kBanks);
      bank_lanes[bank].push_back(l);
      bank_words[bank].insert(word);
    }
  }
  size_t worst = 0;
  int conflicted = 0;
  for (uint32_t b = 0; b < kBanks; ++b) {
    worst = std::max(worst, bank_words[b].size());
    conflicted += bank_words[b].size() > 1;
  }
  uint32_t conflicts = a.wavefronts > a.ideal_wavefronts ? a.wavefronts - a.ideal_wavefronts : 0;
  ImGui::Text("%u wavefronts (ideal %u): %u extra from bank conflicts; worst bank serves %zu distinct words%s",
              a.wavefronts, a.ideal_wavefronts, conflicts, worst,
              worst > 1 ? (" (" + std::to_string(worst) + "-way conflict)").c_str() : "");
  legend_item(pal.bank_ok, "bank hit, one word (or broadcast)");
  ImGui::SameLine(0, 14);
  legend_item(pal.bank_conflict, "bank conflict: several words");
  ImGui::SameLine(0, 14);
  legend_item(pal.bank_idle, "bank idle");

  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  ImVec2 p = ImGui::GetCursorScreenPos();
  float bw = avail.x / kBanks;
  float head = std::max(18.f, ImGui::GetTextLineHeight() + 4);
  float cell = std::min(bw - 2, std::max(6.f, (avail.y - head * 2) / std::max<size_t>(1, std::min<size_t>(32, worst + 1))));
  for (uint32_t b = 0; b < kBanks; ++b) {
    float x0 = p.x + b * bw;
    size_t words = bank_words[b].size();
    ImU32 c = words == 0 ? pal.bank_idle : words == 1 ? pal.bank_ok : pal.bank_conflict;
    dl->AddRectFilled(ImVec2(x0 + 1, p.y), ImVec2(x0 + bw - 1, p.y + head), c);
    char t[8];
    std::snprintf(t, sizeof t, "%u", b);
    if (bw > 14) dl->AddText(ImVec2(x0 + 2, p.y + 2), IM_COL32(10, 10, 20, 255), t);
    // The lanes stacked under their bank, one row per distinct word.
    std::map<uint64_t, int> word_row;
    int row = 0;
    for (uint64_t w : bank_words[b]) word_row[w] = row++;
    std::map<int, int> used;  // row -> lanes drawn in it
    for (int l : bank_lanes[b]) {
      uint64_t word = 0;
      for (uint32_t k = 0; k < std::max<uint32_t>(1, a.access_bytes / kBankBytes); ++k)
        if ((a.lane_addr[l] / kBankBytes + k) % kBanks == b) word = a.lane_addr[l] / kBankBytes + k;
      int rr = word_row[word];
      int col = used[rr]++;
      if (col > 0) continue;  // a broadcast: one box per word, the count in the tooltip
      float y = p.y + head + 2 + rr * cell;
      if (y + cell > p.y + avail.y) break;
      dl->AddRectFilled(ImVec2(x0 + 2, y), ImVec2(x0 + bw - 2, y + cell - 1), pal.lane, 1.f);
      if (cell >= ImGui::GetFontSize() && bw > 18) {
        std::snprintf(t, sizeof t, "%d", l);
        dl->AddText(ImVec2(x0 + 3, y), IM_COL32(10, 10, 20, 255), t);
      }
    }
  }
  ImGui::Dummy(avail);
  ImGui::SetCursorScreenPos(p);
  ImGui::InvisibleButton("banks", ImVec2(avail.x, std::max(1.f, avail.y)));
  if (ImGui::IsItemHovered()) {
    uint32_t b = std::min<uint32_t>(kBanks - 1, uint32_t((ImGui::GetMousePos().x - p.x) / bw));
    std::string lanes_s;
    for (int l : bank_lanes[b]) lanes_s += std::to_string(l) + " ";
    ImGui::SetTooltip("bank %u: %zu lanes, %zu distinct words -> %zu wavefronts\nlanes: %s", b, bank_lanes[b].size(),
                      bank_words[b].size(), bank_words[b].size(), lanes_s.c_str());
  }
  (void)conflicted;
}

}  // namespace lab::visual
