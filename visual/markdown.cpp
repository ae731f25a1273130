// visual/markdown.cpp: CommonMark (through md4c) drawn with ImGui widgets.
// md4c calls back per block and span; text is gathered per block and drawn
// when the block closes, so wrapping works on whole paragraphs.
#include <imgui.h>
#include <md4c.h>

#include <algorithm>
#include <string>
#include <vector>

#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

namespace {
struct MdState {
  std::string text;           // the current block's text
  int heading = 0;            // 1..6 inside a heading
  bool code_block = false;
  int list_depth = 0;
  std::vector<bool> ordered;  // per list level
  std::vector<unsigned> next_number;
  bool in_item = false;
  bool item_started = false;
  // A table is gathered whole (cells' text, which rows are the header) and
  // drawn when it closes, as an ImGui table: one cell per column, not one
  // paragraph per cell (issue 28: lessons 10 and 11's tables read as lists).
  bool in_table = false, in_head = false;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  size_t header_rows = 0;
  int tables = 0;  // tables drawn so far: each its own ImGui id
};

void draw_table(MdState& s) {
  size_t cols = 0;
  for (const auto& r : s.rows) cols = std::max(cols, r.size());
  if (cols == 0) return;
  const std::string id = "##md_table" + std::to_string(s.tables++);
  cols = std::min<size_t>(cols, 64);
  // Each column's longest word: when they do not all fit side by side (a
  // wide table in a narrow lesson column) the table keeps every column at
  // its whole width and scrolls sideways instead of cutting the cells.
  float words_w = 0;
  for (size_t c = 0; c < cols; ++c) {
    float word = 0;
    for (const auto& r : s.rows)
      if (c < r.size())
        for (size_t at = 0; at < r[c].size();) {
          size_t end = r[c].find(' ', at);
          if (end == std::string::npos) end = r[c].size();
          word = std::max(word, ImGui::CalcTextSize(r[c].data() + at, r[c].data() + end).x);
          at = end + 1;
        }
    words_w += word + 2 * ImGui::GetStyle().CellPadding.x + 2;
  }
  const bool scroll = words_w > ImGui::GetContentRegionAvail().x;
  const float rows_h = float(s.rows.size()) * (ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y + 1) +
                       ImGui::GetStyle().ScrollbarSize + 4;
  if (ImGui::BeginTable(id.c_str(), int(cols),
                        ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | (scroll ? ImGuiTableFlags_ScrollX : 0),
                        scroll ? ImVec2(0, rows_h) : ImVec2(0, 0))) {
    // Each column's share of the width: its widest cell, but never below
    // its longest word, so a narrow column ("GPUs") is not broken letter by
    // letter while a long one wraps.
    for (size_t c = 0; c < cols; ++c) {
      float word = 0, whole = 0;
      for (const auto& r : s.rows) {
        if (c >= r.size()) continue;
        whole = std::max(whole, ImGui::CalcTextSize(r[c].c_str()).x);
        size_t at = 0;
        while (at < r[c].size()) {
          size_t end = r[c].find(' ', at);
          if (end == std::string::npos) end = r[c].size();
          word = std::max(word, ImGui::CalcTextSize(r[c].data() + at, r[c].data() + end).x);
          at = end + 1;
        }
      }
      if (scroll) ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, whole + 2);
      else ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, std::max(word, whole / 2) + 1);
    }
    for (size_t r = 0; r < s.rows.size(); ++r) {
      const bool header = r < s.header_rows;
      ImGui::TableNextRow(header ? ImGuiTableRowFlags_Headers : ImGuiTableRowFlags_None);
      for (size_t c = 0; c < s.rows[r].size() && c < 64; ++c) {
        ImGui::TableSetColumnIndex(int(c));
        if (header) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.55f, 0.80f, 1.f, 1.f));
        text_words(s.rows[r][c]);
        if (header) ImGui::PopStyleColor();
      }
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  s.rows.clear();
  s.header_rows = 0;
}

void flush(MdState& s) {
  if (s.text.empty() || s.in_table) return;  // a table cell's text is taken when the cell closes
  if (s.code_block) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.75f, 0.88f, 1.f, 1.f));
    ImGui::Indent(12);
    while (!s.text.empty() && s.text.back() == '\n') s.text.pop_back();
    ImGui::TextUnformatted(s.text.c_str());
    ImGui::Unindent(12);
    ImGui::PopStyleColor();
  } else if (s.heading) {
    float scale = s.heading == 1 ? 1.45f : s.heading == 2 ? 1.25f : 1.1f;
    ImGui::SetWindowFontScale(scale);
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.55f, 0.80f, 1.f, 1.f));
    text_words(s.text);
    ImGui::PopStyleColor();
    ImGui::SetWindowFontScale(1.f);
    if (s.heading <= 2) ImGui::Separator();
  } else if (s.in_item) {
    if (!s.item_started) {
      if (!s.ordered.empty() && s.ordered.back()) {
        ImGui::Text("%u.", s.next_number.back()++);
        ImGui::SameLine();
      } else {
        ImGui::Bullet();
      }
      s.item_started = true;
    }
    // Lines break at spaces only (ImGui's own wrap breaks "9,232" and
    // "exercise.cu" at the punctuation); an item's lines stay beside its bullet.
    ImGui::BeginGroup();
    text_words(s.text);
    ImGui::EndGroup();
  } else {
    text_words(s.text);
  }
  s.text.clear();
}

int enter_block(MD_BLOCKTYPE type, void* detail, void* user) {
  auto& s = *static_cast<MdState*>(user);
  flush(s);
  switch (type) {
    case MD_BLOCK_H: s.heading = int(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level); break;
    case MD_BLOCK_CODE: s.code_block = true; break;
    case MD_BLOCK_UL:
      s.ordered.push_back(false), s.next_number.push_back(1), ImGui::Indent(8);
      break;
    case MD_BLOCK_OL:
      s.ordered.push_back(true), s.next_number.push_back(static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start),
          ImGui::Indent(8);
      break;
    case MD_BLOCK_LI: s.in_item = true, s.item_started = false; break;
    case MD_BLOCK_HR: ImGui::Separator(); break;
    case MD_BLOCK_TABLE: s.in_table = true, s.rows.clear(), s.header_rows = 0; break;
    case MD_BLOCK_THEAD: s.in_head = true; break;
    case MD_BLOCK_TR: s.row.clear(); break;
    default: break;
  }
  return 0;
}

int leave_block(MD_BLOCKTYPE type, void*, void* user) {
  auto& s = *static_cast<MdState*>(user);
  flush(s);
  switch (type) {
    case MD_BLOCK_H: s.heading = 0; ImGui::Spacing(); break;
    case MD_BLOCK_CODE: s.code_block = false; ImGui::Spacing(); break;
    case MD_BLOCK_UL: case MD_BLOCK_OL:
      if (!s.ordered.empty()) s.ordered.pop_back(), s.next_number.pop_back();
      ImGui::Unindent(8);
      ImGui::Spacing();
      break;
    case MD_BLOCK_LI: s.in_item = false; break;
    case MD_BLOCK_P: if (!s.in_item) ImGui::Spacing(); break;
    case MD_BLOCK_TH: case MD_BLOCK_TD: s.row.push_back(s.text), s.text.clear(); break;
    case MD_BLOCK_TR:
      s.rows.push_back(std::move(s.row));
      s.row.clear();
      if (s.in_head) ++s.header_rows;
      break;
    case MD_BLOCK_THEAD: s.in_head = false; break;
    case MD_BLOCK_TABLE:
      s.in_table = false;
      draw_table(s);
      break;
    default: break;
  }
  return 0;
}

// Spans (emphasis, inline code) are drawn as their plain text: one font,
// and a backtick on screen reads as noise.
int enter_span(MD_SPANTYPE, void*, void*) { return 0; }
int leave_span(MD_SPANTYPE, void*, void*) { return 0; }

int on_text(MD_TEXTTYPE type, const MD_CHAR* text, MD_SIZE size, void* user) {
  auto& s = *static_cast<MdState*>(user);
  switch (type) {
    case MD_TEXT_BR: s.text += '\n'; break;
    case MD_TEXT_SOFTBR: s.text += ' '; break;
    case MD_TEXT_ENTITY:
      s.text += (std::string(text, size) == "&amp;") ? "&" : (std::string(text, size) == "&lt;") ? "<"
                : (std::string(text, size) == "&gt;") ? ">" : std::string(text, size);
      break;
    default: s.text.append(text, size);
  }
  return 0;
}
}  // namespace

bool draw_markdown(const std::string& markdown) {
  MD_PARSER parser{};
  parser.abi_version = 0;
  parser.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_PERMISSIVEAUTOLINKS;
  parser.enter_block = enter_block;
  parser.leave_block = leave_block;
  parser.enter_span = enter_span;
  parser.leave_span = leave_span;
  parser.text = on_text;
  MdState s;
  int rc = md_parse(markdown.data(), MD_SIZE(markdown.size()), &parser, &s);
  flush(s);
  while (!s.ordered.empty()) s.ordered.pop_back(), ImGui::Unindent(8);
  return rc == 0;
}

}  // namespace lab::visual
