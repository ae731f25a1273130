// visual/view_program.cpp: a CUDA program on N simulated GPUs (ProgramRun,
// filled by session_program.cpp from the runtime's device summary). A header
// with the GPU, N, the link and the predicted step time; per device a row of
// its predicted timeline (kernels coloured by name, peer copies orange and
// hatched, host copies grey) on one time axis in microseconds; per device a
// memory bar (live bytes filled, peak outlined). Every time is a prediction
// of the machine model (lab/runtime/devices.h), and the pane says so.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

#include <fmt/format.h>

#include "visual/screen_state.h"
#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

namespace {

constexpr ImU32 kPeer = IM_COL32(240, 140, 40, 255);
constexpr ImU32 kHost = IM_COL32(150, 150, 160, 255);
constexpr ImU32 kLocal = IM_COL32(110, 110, 130, 255);  // memset, copy within a device
constexpr ImU32 kKernels[] = {IM_COL32(70, 130, 220, 255), IM_COL32(80, 190, 120, 255), IM_COL32(170, 110, 220, 255),
                              IM_COL32(60, 180, 190, 255), IM_COL32(220, 90, 120, 255), IM_COL32(190, 180, 70, 255),
                              IM_COL32(120, 160, 90, 255), IM_COL32(200, 120, 170, 255)};

std::string bytes_text(uint64_t b) {
  char buf[48];
  if (b >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", double(b) / double(1ull << 30));
  else if (b >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.2f MiB", double(b) / double(1ull << 20));
  else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024.0);
  else std::snprintf(buf, sizeof buf, "%llu B", (unsigned long long)b);
  return buf;
}

// A tick step of 1, 2 or 5 times a power of ten giving about `want` ticks.
double tick_step(double span, int want) {
  const double raw = span / std::max(1, want), p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * p) return m * p;
  return 10 * p;
}

}  // namespace

void draw_program(const ViewModel& vm, UiState& ui) {
  const ProgramRun& P = vm.program;
  size_t events = 0, peers = 0;
  for (const auto& d : P.devices) {
    events += d.events.size();
    for (const auto& e : d.events) peers += e.kind == "peer";
  }
  shown("program.command", P.command);
  shown("program.status", P.status);
  shown("program.gpu", P.gpu);
  shown("program.link", P.link);
  shown("program.devices", double(P.devices.size()));
  shown("program.events", double(events));
  shown("program.peer_copies", double(peers));
  shown("program.timeline_us", P.timeline_s * 1e6);
  if (P.command.empty()) {
    ImGui::TextDisabled("This step runs no program. Steps of lessons 10 and 11 that do show each GPU's timeline here.");
    return;
  }
  if (!P.devices.empty()) {
    const std::string link = P.devices.size() < 2 ? std::string()
                             : "   link: " + (P.link == "nvlink" ? std::string("NVLink (through an NVSwitch)")
                                              : P.link == "pcie" ? std::string("PCIe x16") : P.link);
    text_words(fmt::format("{}  x {}{}   the run's GPU timeline: {:.1f} us (PREDICTED by the machine model, not "
                           "measured)", P.gpu, P.devices.size(), link, P.timeline_s * 1e6));
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_words(P.command);
  ImGui::PopStyleColor();
  if (!P.status.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, P.status.rfind("error", 0) == 0 ? ImVec4(1.f, 0.45f, 0.4f, 1.f)
                                                                          : ImVec4(1.f, 0.85f, 0.4f, 1.f));
    text_words(P.status);
    ImGui::PopStyleColor();
  }
  if (P.devices.empty()) return;

  // Kernel colours by name, in order of first appearance.
  std::map<std::string, ImU32> colour;
  std::vector<std::string> names;
  for (const auto& d : P.devices)
    for (const auto& e : d.events)
      if (e.kind == "kernel" && !colour.count(e.name)) {
        colour[e.name] = kKernels[names.size() % (sizeof kKernels / sizeof kKernels[0])];
        names.push_back(e.name);
      }
  auto event_colour = [&](const ProgramRun::Event& e) {
    if (e.kind == "kernel") return colour[e.name];
    if (e.kind == "peer") return kPeer;
    if (e.kind == "h2d" || e.kind == "d2h") return kHost;
    return kLocal;
  };
  // Legend items on one line while they fit, then the next.
  const float right = ImGui::GetWindowContentRegionMax().x;
  bool first = true;
  auto item = [&](ImU32 c, const char* label) {
    const float need = ImGui::GetFrameHeight() + ImGui::CalcTextSize(label).x + px(16);
    if (!first) {
      ImGui::SameLine();
      if (ImGui::GetCursorPosX() + need > right) ImGui::NewLine();
    }
    first = false;
    legend_item(c, label);
  };
  for (const auto& n : names) item(colour[n], n.c_str());
  std::map<std::string, int> kinds;
  for (const auto& d : P.devices)
    for (const auto& e : d.events) kinds[e.kind] += 1;
  if (kinds.count("peer")) item(kPeer, "peer copy (GPU link)");
  if (kinds.count("h2d") || kinds.count("d2h")) item(kHost, "host copy (PCIe)");
  if (kinds.count("memset") || kinds.count("d2d")) item(kLocal, "memset / copy in DRAM");

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float label_w = px(64), axis_h = ImGui::GetTextLineHeightWithSpacing() + px(4);
  const size_t n = P.devices.size();
  const float mem_row = std::clamp(avail.y * 0.3f / float(n), ImGui::GetTextLineHeight() + px(4), px(30));
  const float row = std::clamp((avail.y - axis_h - mem_row * float(n) - px(40)) / float(n), px(18), px(90));
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float x0 = o.x + label_w, w = std::max(px(50), avail.x - label_w - px(8));
  const double span = std::max(P.timeline_s, 1e-12);
  auto X = [&](double s) { return x0 + float(s / span) * w; };
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = palette().panel_text_dim;

  // The time axis, in microseconds.
  const double step = tick_step(span * 1e6, std::max(2, int(w / px(90))));
  for (double t = 0; t <= span * 1e6 + 1e-9; t += step) {
    const float x = X(t * 1e-6);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g us", t);
    dl->AddLine(ImVec2(x, o.y + axis_h - px(4)), ImVec2(x, o.y + axis_h + row * float(n)), IM_COL32(255, 255, 255, 28));
    // Right of its tick, or left of it where it would run past the pane's edge.
    const float tw = ImGui::CalcTextSize(buf).x;
    dl->AddText(ImVec2(x + px(2) + tw > x0 + w ? x - px(2) - tw : x + px(2), o.y), dim, buf);
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const ProgramRun::Event* hovered = nullptr;
  int hovered_dev = -1;
  for (size_t i = 0; i < n; ++i) {
    const auto& d = P.devices[i];
    const float y = o.y + axis_h + row * float(i), h = row - px(4);
    char label[32];
    std::snprintf(label, sizeof label, "GPU %zu", i);
    dl->AddText(ImVec2(o.x, y + (h - ImGui::GetTextLineHeight()) / 2), text, label);
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + w, y + h), IM_COL32(255, 255, 255, 12));
    for (const auto& e : d.events) {
      const float a = X(e.start_s), b = std::max(X(e.end_s), a + 1.f);
      const ImU32 c = event_colour(e);
      dl->AddRectFilled(ImVec2(a, y), ImVec2(b, y + h), c);
      if (e.kind == "peer") {  // hatched: a copy on the link, not compute
        dl->PushClipRect(ImVec2(a, y), ImVec2(b, y + h), true);
        for (float hx = a - h; hx < b; hx += px(7))
          dl->AddLine(ImVec2(hx, y + h), ImVec2(hx + h, y), IM_COL32(0, 0, 0, 110), 1.5f);
        dl->PopClipRect();
      }
      if (b - a > 4.f)  // an edge, so back-to-back copies read as separate copies
        dl->AddRect(ImVec2(a, y), ImVec2(b, y + h), IM_COL32(20, 20, 25, 255), 0, 0, 1.f);
      const ImVec2 ts = ImGui::CalcTextSize(e.name.c_str());
      if (b - a > ts.x + px(6) && h > ts.y)
        dl->AddText(ImVec2(a + px(3), y + (h - ts.y) / 2), IM_COL32(0, 0, 0, 255), e.name.c_str());
      if (mouse.y >= y && mouse.y < y + h && mouse.x >= a && mouse.x < b) hovered = &e, hovered_dev = int(i);
    }
  }
  if (hovered && ImGui::IsWindowHovered()) {
    ImGui::BeginTooltip();
    ImGui::Text("GPU %d: %s", hovered_dev, hovered->name.c_str());
    ImGui::Text("predicted %.2f .. %.2f us (%.2f us)", hovered->start_s * 1e6, hovered->end_s * 1e6,
                (hovered->end_s - hovered->start_s) * 1e6);
    if (hovered->kind != "kernel") ImGui::Text("%s", bytes_text(hovered->bytes).c_str());
    ImGui::EndTooltip();
  }

  // Memory per device: live bytes filled, peak outlined, on one scale for
  // every run this view has shown (ui.program_bytes_scale).
  float y = o.y + axis_h + row * float(n) + px(10);
  for (const auto& d : P.devices) ui.program_bytes_scale = std::max({ui.program_bytes_scale, d.peak_bytes, d.live_bytes});
  const uint64_t top = std::max<uint64_t>(1, ui.program_bytes_scale);
  std::string title = "cudaMalloc bytes per GPU (filled: live at the end; outline: peak); full width: " +
                      bytes_text(top) + ", the most any GPU held in the runs shown so far";
  if (ImGui::CalcTextSize(title.c_str()).x > w)  // a narrow pane: the short form (never cut at the edge)
    title = "memory per GPU (full width: " + bytes_text(top) + ")";
  dl->AddText(ImVec2(o.x, y), text, title.c_str());
  shown("program.bytes_scale", double(top));
  y += ImGui::GetTextLineHeightWithSpacing();
  const float bar_w = w * 0.6f;
  for (size_t i = 0; i < n; ++i) {
    const auto& d = P.devices[i];
    const float yy = y + mem_row * float(i), h = mem_row - px(4);
    char label[32];
    std::snprintf(label, sizeof label, "GPU %zu", i);
    dl->AddText(ImVec2(o.x, yy + (h - ImGui::GetTextLineHeight()) / 2), text, label);
    const float live = bar_w * float(double(d.live_bytes) / double(top)),
                peak = bar_w * float(double(d.peak_bytes) / double(top));
    dl->AddRectFilled(ImVec2(x0, yy), ImVec2(x0 + live, yy + h), IM_COL32(90, 150, 210, 255));
    dl->AddRect(ImVec2(x0, yy), ImVec2(x0 + std::max(peak, 1.f), yy + h), IM_COL32(255, 210, 90, 255), 0, 0, 1.5f);
    const std::string t = "live " + bytes_text(d.live_bytes) + ", peak " + bytes_text(d.peak_bytes);
    dl->AddText(ImVec2(x0 + bar_w + px(10), yy + (h - ImGui::GetTextLineHeight()) / 2), text, t.c_str());
  }
  ImGui::Dummy(ImVec2(avail.x, y + mem_row * float(n) - o.y));
}

}  // namespace lab::visual
