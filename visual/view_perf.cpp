// visual/view_perf.cpp: the roofline of the chosen GPU with every version of
// the progression on it, and the CPU-vs-GPU comparison chart (log scale).
// Predicted points are hollow and say "predicted"; measured ones are filled.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "visual/screen_state.h"
#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

namespace {
struct LogAxes {
  ImVec2 p0, p1;  // plot rectangle
  double x0, x1, y0, y1;  // log10 ranges
  ImVec2 at(double x, double y) const {
    float fx = float((std::log10(std::max(x, 1e-30)) - x0) / (x1 - x0));
    float fy = float((std::log10(std::max(y, 1e-30)) - y0) / (y1 - y0));
    return ImVec2(p0.x + fx * (p1.x - p0.x), p1.y - fy * (p1.y - p0.y));
  }
};

void draw_log_grid(ImDrawList* dl, const LogAxes& ax, const char* xlabel, const char* ylabel) {
  const Palette& pal = palette();
  const float fs = ImGui::GetFontSize();
  dl->AddRectFilled(ax.p0, ax.p1, IM_COL32(20, 22, 28, 255));
  char t[32];
  float last_right = -1e9f;  // x ticks skip a label that would touch the previous one
  for (int e = int(std::ceil(ax.x0)); e <= int(std::floor(ax.x1)); ++e) {
    ImVec2 a = ax.at(std::pow(10.0, e), std::pow(10.0, ax.y0));
    dl->AddLine(ImVec2(a.x, ax.p0.y), ImVec2(a.x, ax.p1.y), IM_COL32(60, 64, 76, 255));
    std::snprintf(t, sizeof t, e >= 0 ? "%.0f" : "%g", std::pow(10.0, e));
    float w = ImGui::CalcTextSize(t).x;
    // Centred on its line, but inside the plot's width (the last label
    // would run past the pane's edge, the first into the y labels).
    const float x = std::clamp(a.x - w / 2, ax.p0.x, ax.p1.x + fs * 0.4f - w);
    if (x > last_right + fs / 2) {
      dl->AddText(ImVec2(x, ax.p1.y + 2), pal.panel_text_dim, t);
      last_right = x + w;
    }
  }
  float last_top = 1e9f;
  for (int e = int(std::ceil(ax.y0)); e <= int(std::floor(ax.y1)); ++e) {
    ImVec2 a = ax.at(std::pow(10.0, ax.x0), std::pow(10.0, e));
    dl->AddLine(ImVec2(ax.p0.x, a.y), ImVec2(ax.p1.x, a.y), IM_COL32(60, 64, 76, 255));
    double v = std::pow(10.0, e);
    if (v >= 1000) std::snprintf(t, sizeof t, "%gT", v / 1000); else std::snprintf(t, sizeof t, "%gG", v);
    const float y = std::min(a.y - fs / 2, ax.p1.y - fs);  // the lowest stays above the x labels
    if (y + fs < last_top) {
      dl->AddText(ImVec2(ax.p0.x - ImGui::CalcTextSize(t).x - 4, y), pal.panel_text_dim, t);
      last_top = y;
    }
  }
  dl->AddRect(ax.p0, ax.p1, pal.line_frame);
  dl->AddText(ImVec2((ax.p0.x + ax.p1.x) / 2 - ImGui::CalcTextSize(xlabel).x / 2, ax.p1.y + fs + 4), pal.panel_text_dim,
              xlabel);
  dl->AddText(ImVec2(ax.p0.x + fs * 0.5f, ax.p0.y - fs - 2), pal.panel_text_dim, ylabel);  // clear of the top tick's label
}
}  // namespace

void draw_roofline(const ViewModel& vm, UiState& ui) {
  const Roofline& r = vm.roofline;
  const Palette& pal = palette();
  if (r.peak_gflops <= 0 || r.bandwidth_gbs <= 0) {
    ImGui::TextWrapped("No roofline yet: %s", vm.launch.gpu.empty() ? "no GPU model chosen"
                                                                    : "the kernel's prediction has not arrived");
    return;
  }
  const float fs = ImGui::GetFontSize();
  ImGui::TextWrapped("Roofline: %s. Peak %.1f TFLOP/s fp32, %.0f GB/s DRAM, ridge at %.1f FLOP/byte", r.device.c_str(),
                     r.peak_gflops / 1000, r.bandwidth_gbs, r.peak_gflops / r.bandwidth_gbs);
  shown("roofline.device", r.device);
  if (!r.note.empty()) {
    ImGui::TextWrapped("%s", r.note.c_str());
    shown("roofline.note", r.note);
  }
  bool any_measured_gpu = false, any_cpu = false, any_pred = false, any_bound = false;
  for (const auto& pt : r.points) {
    any_measured_gpu |= !pt.cpu && pt.measured && pt.gflops > 0;
    any_cpu |= pt.cpu && pt.gflops > 0;
    any_bound |= pt.bound && pt.gflops > 0;
    any_pred |= !pt.cpu && !pt.measured && !pt.bound && pt.gflops > 0;
  }
  // The legend lists only the kinds of point on the chart.
  bool first = true;
  auto item = [&](ImU32 c, const char* label) {
    if (first) legend_item(c, label);
    else legend_next(c, label);
    first = false;
  };
  if (any_pred) item(pal.gpu_predicted, "GPU, predicted (hollow)");
  if (any_bound) item(pal.gpu_predicted, "the roofline's bound (hollow): not a run");
  if (any_measured_gpu) item(pal.gpu_measured, "GPU, measured");
  if (any_cpu) item(pal.cpu_point, "CPU, measured here");
  shown("roofline.legend.gpu_measured", any_measured_gpu);
  // Why fast kernels can rank slow at small sizes: a launch with fewer
  // blocks than SMs leaves most of the GPU idle, so the model predicts it
  // latency-bound whatever the kernel does per block.
  std::string idle;
  int n_idle = 0, n_gpu = 0;
  uint64_t fewest = ~0ull, most = 0;
  for (const auto& pt : r.points) {
    if (pt.cpu || pt.gflops <= 0) continue;
    ++n_gpu;
    if (pt.blocks && r.sm_count && pt.blocks < r.sm_count) {
      ++n_idle;
      fewest = std::min(fewest, pt.blocks), most = std::max(most, pt.blocks);
      idle += (idle.empty() ? "" : ", ") + pt.label;
    }
  }
  if (n_idle) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.78f, 0.35f, 1.f));
    if (n_gpu == 1)
      ImGui::TextWrapped("%s launches %llu block%s for %u SMs: most SMs idle, so the model predicts it slower than a "
                         "launch that fills the GPU would run.",
                         idle.c_str(), (unsigned long long)most, most == 1 ? "" : "s", r.sm_count);
    else
      ImGui::TextWrapped("At %s %s launch%s %llu to %llu blocks for %u SMs: most SMs idle, so the model ranks "
                         "big-tile kernels below their design. Bigger problems fill the GPU.",
                         r.problem.empty() ? "this size" : r.problem.c_str(),
                         n_idle == n_gpu ? "all versions" : idle.c_str(), n_idle == 1 ? "es" : "",
                         (unsigned long long)fewest, (unsigned long long)most, r.sm_count);
    ImGui::PopStyleColor();
    shown("roofline.underfilled", idle);
  }
  ImVec2 avail = ImGui::GetContentRegionAvail();
  ImVec2 p = ImGui::GetCursorScreenPos();
  LogAxes ax;
  ax.p0 = ImVec2(p.x + ImGui::CalcTextSize("10000T").x + 8, p.y + fs + 6);  // room for the widest tick label
  ax.p1 = ImVec2(p.x + avail.x - fs * 0.5f, p.y + avail.y - 2 * fs - 10);
  if (ax.p1.y - ax.p0.y < 4 * fs || ax.p1.x - ax.p0.x < 10 * fs) {
    ImGui::TextDisabled("(too small to draw: enlarge the pane)");
    return;
  }
  double top = std::max(r.peak_gflops, r.peak_tensor_gflops) * 3;
  ax.x0 = -2;
  ax.x1 = 3;
  // Room for a point's label right of it: a decade more where a point sits in the last half decade.
  for (const auto& pt : r.points)
    if (pt.intensity > 0) ax.x1 = std::max(ax.x1, std::ceil(std::log10(pt.intensity) + 0.5));
  double lo = r.bandwidth_gbs * std::pow(10.0, ax.x0);  // the roof at the left edge stays in view
  for (const auto& pt : r.points)
    if (pt.gflops > 0) lo = std::min(lo, pt.gflops);
  ax.y0 = std::floor(std::log10(std::max(1e-3, std::min(lo / 3, r.cpu_peak_gflops > 0 ? r.cpu_peak_gflops / 10 : lo / 3))));
  ax.y1 = std::ceil(std::log10(top));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p, ImVec2(p.x + avail.x, p.y + avail.y), true);
  draw_log_grid(dl, ax, "arithmetic intensity (FLOP / DRAM byte)", "FLOP/s");
  std::vector<ImVec4> labels;  // placed label boxes: a new label avoids them
  auto slide = [&](float lx, float ly, ImVec2 ts, float dir) {
    // Slide the label along y (dir: +1 down, -1 up) until it overlaps none placed.
    for (int guard = 0; guard < 200; ++guard) {
      bool hit = false;
      for (const ImVec4& b : labels)
        if (lx < b.z && lx + ts.x > b.x && ly < b.w && ly + ts.y > b.y) {
          ly = dir > 0 ? b.w + 1 : b.y - ts.y - 1;
          hit = true;
        }
      if (!hit) break;
    }
    return ly;
  };
  auto place = [&](float lx, float ly, ImVec2 ts, float dir) {
    // The nearer free spot, down or up, that stays inside the plot (dir 0: either).
    float down = slide(lx, ly, ts, +1), up = slide(lx, ly, ts, -1);
    bool down_ok = down + ts.y <= ax.p1.y, up_ok = up >= ax.p0.y;
    float y = dir > 0 ? down : dir < 0 ? up
              : (down_ok && (!up_ok || down - ly <= ly - up)) ? down : up_ok ? up : down;
    labels.push_back(ImVec4(lx, y, lx + ts.x, y + ts.y));
    return y;
  };
  auto roof = [&](double peak, double bw, ImU32 col, float thick, const char* label) {
    double ridge = peak / bw;
    ImVec2 a = ax.at(std::pow(10.0, ax.x0), bw * std::pow(10.0, ax.x0));
    ImVec2 b = ax.at(ridge, peak), c = ax.at(std::pow(10.0, ax.x1), peak);
    dl->AddLine(a, b, col, thick);
    dl->AddLine(b, c, col, thick);
    ImVec2 ts = ImGui::CalcTextSize(label);
    float ly = place(c.x - ts.x - 4, c.y - ts.y - 2, ts, -1);
    dl->AddText(ImVec2(c.x - ts.x - 4, ly), col, label);
  };
  if (r.peak_tensor_gflops > 0) roof(r.peak_tensor_gflops, r.bandwidth_gbs, IM_COL32(150, 150, 165, 255), 1.f, "tensor-core peak");
  roof(r.peak_gflops, r.bandwidth_gbs, pal.roof, 2.f, "fp32 peak");
  if (r.cpu_peak_gflops > 0 && r.cpu_bandwidth_gbs > 0) roof(r.cpu_peak_gflops, r.cpu_bandwidth_gbs, pal.cpu_point, 1.f, "CPU roof");
  const float dot = std::max(4.f, fs * 0.33f);
  // Labels avoid the points too, not only each other: at one problem size
  // the GEMM versions sit close, and a label over a neighbour's dot hid it.
  for (const auto& pt : r.points)
    if (pt.gflops > 0 && pt.intensity > 0) {
      ImVec2 c = ax.at(pt.intensity, pt.gflops);
      labels.push_back(ImVec4(c.x - dot - 1, c.y - dot - 1, c.x + dot + 1, c.y + dot + 1));
    }
  int n_points = 0;
  for (const auto& pt : r.points) {
    if (pt.gflops <= 0 || pt.intensity <= 0) continue;  // not predicted (yet)
    ImVec2 c = ax.at(pt.intensity, pt.gflops);
    ImVec2 ts = ImGui::CalcTextSize(pt.label.c_str());
    // CPU labels to the left of their point, GPU labels to the right; a
    // label that would slide more than two lines away tries the other side.
    const float ly0 = c.y - ts.y / 2;
    auto spot = [&](float x) {
      float down = slide(x, ly0, ts, +1), up = slide(x, ly0, ts, -1);
      bool down_ok = down + ts.y <= ax.p1.y, up_ok = up >= ax.p0.y;
      float y = (down_ok && (!up_ok || down - ly0 <= ly0 - up)) ? down : up_ok ? up : down;
      return y;
    };
    float lx = pt.cpu ? c.x - 2 * dot - ts.x : c.x + 2 * dot;
    float ly = spot(lx);
    if (std::fabs(ly - ly0) > 2 * ts.y) {
      const float other_x = pt.cpu ? c.x + 2 * dot : c.x - 2 * dot - ts.x;
      const bool fits = other_x >= ax.p0.x && other_x + ts.x <= ax.p1.x;
      const float other_y = spot(other_x);
      if (fits && std::fabs(other_y - ly0) < std::fabs(ly - ly0)) lx = other_x, ly = other_y;
    }
    labels.push_back(ImVec4(lx, ly, lx + ts.x, ly + ts.y));
    ImU32 col = pt.cpu ? pal.cpu_point : pt.measured ? pal.gpu_measured : pal.gpu_predicted;
    if (pt.measured || pt.cpu) dl->AddCircleFilled(c, dot, col);
    else dl->AddCircle(c, dot, col, 0, 2.f);
    if (pt.current) dl->AddCircle(c, dot * 1.9f, pal.current, 0, 2.f);
    if (std::fabs(ly - ly0) > 1) dl->AddLine(ImVec2(lx + ts.x < c.x ? lx + ts.x : lx, ly + ts.y / 2), c, col);  // leader
    dl->AddText(ImVec2(lx, ly), col, pt.label.c_str());
    char key[96];
    std::snprintf(key, sizeof key, "roofline.points.%s", pt.label.c_str());
    shown(std::string(key) + ".gflops", pt.gflops);
    shown(std::string(key) + ".intensity", pt.intensity);
    shown(std::string(key) + ".predicted", !pt.measured && !pt.cpu);
    ++n_points;
  }
  shown("roofline.point_count", double(n_points));
  dl->PopClipRect();
  ImGui::Dummy(avail);
}

namespace {
std::string time_text(double s) {
  char t[32];
  if (s >= 1e-3) std::snprintf(t, sizeof t, "%.3g ms", s * 1e3);
  else std::snprintf(t, sizeof t, "%.3g us", s * 1e6);
  return t;
}

// A lesson's before/after: time bars on a linear scale (the before is the
// full width, so the after's length is the fraction of the time left), the
// speed-up, and whether it falls in the range the lesson states.
void draw_before_after(const Comparison& cmp) {
  const Palette& pal = palette();
  ImGui::TextWrapped("%s", cmp.problem.c_str());
  shown("comparison.problem", cmp.problem);
  shown("comparison.bar_count", double(cmp.versions.size()));
  legend_item(pal.gpu_predicted, "GPU, predicted");
  const PerfPoint& before = cmp.versions.front();
  const PerfPoint& after = cmp.versions.back();
  if (before.seconds <= 0 || after.seconds <= 0) return;
  const double speedup = before.seconds / after.seconds;
  const bool agrees = speedup >= cmp.expect_min && speedup <= cmp.expect_max;
  shown("comparison.speedup", speedup);
  shown("comparison.agrees", agrees);
  ImVec2 avail = ImGui::GetContentRegionAvail();
  ImVec2 p = ImGui::GetCursorScreenPos();
  float label_w = 0;
  for (const auto& v : cmp.versions) label_w = std::max(label_w, ImGui::CalcTextSize(v.label.c_str()).x);
  label_w += 10;
  const float right = ImGui::CalcTextSize("0000 us  0000x faster (pred.)").x;
  // A line of text per bar at least (the pane scrolls when it is shorter), at most 2.4.
  const float row = std::max(ImGui::GetTextLineHeight() + 6,
                             std::min(ImGui::GetFontSize() * 2.4f, (avail.y - ImGui::GetFontSize() * 3.5f) / 2));
  const float x0 = p.x + label_w, x1 = p.x + std::max(label_w + 40, avail.x - right);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (size_t i = 0; i < cmp.versions.size(); ++i) {
    const PerfPoint& v = cmp.versions[i];
    const float y = p.y + i * row;
    dl->AddText(ImVec2(p.x, y + (row - ImGui::GetFontSize()) / 2), ImGui::GetColorU32(ImGuiCol_Text), v.label.c_str());
    const float w = float(v.seconds / before.seconds) * (x1 - x0);
    const ImU32 col = v.measured ? pal.gpu_measured : pal.gpu_predicted;
    dl->AddRectFilled(ImVec2(x0, y + 3), ImVec2(x0 + std::max(2.f, w), y + row - 3), col, 2.f);
    std::string t = time_text(v.seconds);
    if (i > 0) t += fmt::format("  {:.2f}x faster", before.seconds / v.seconds);
    if (!v.measured) t += " (pred.)";
    dl->AddText(ImVec2(x0 + w + 6, y + (row - ImGui::GetFontSize()) / 2), ImGui::GetColorU32(ImGuiCol_Text), t.c_str());
    const std::string key = "comparison.bars." + v.label;
    shown(key + ".seconds", v.seconds);
    shown(key + ".predicted", !v.measured);
  }
  ImGui::Dummy(ImVec2(avail.x, row * cmp.versions.size() + 4));
  // The counters that explain the time, before -> after.
  auto count = [](double v) {
    return v >= 1e9 ? fmt::format("{:.3g}G", v / 1e9) : v >= 1e6 ? fmt::format("{:.3g}M", v / 1e6)
         : v >= 1e4 ? fmt::format("{:.3g}k", v / 1e3) : fmt::format("{:.0f}", v);
  };
  for (const auto& c : cmp.counters) {
    const std::string ratio = c.before > 0 && c.after > 0 ? fmt::format("  ({:.2f}x)", c.before / c.after) : "";
    text_words(fmt::format("{}: {} -> {}{}", c.name, count(c.before), count(c.after), ratio));
    shown("comparison.counters." + c.name + ".before", c.before);
    shown("comparison.counters." + c.name + ".after", c.after);
  }
  ImGui::PushStyleColor(ImGuiCol_Text, agrees ? pal.bank_ok : pal.bank_conflict);
  text_words(fmt::format("{:.2f}x faster; the lesson expects {:.3g}x to {:.3g}x: {}", speedup, cmp.expect_min,
                         cmp.expect_max, agrees ? "the lab agrees" : "the lab DISAGREES with the lesson"));
  ImGui::PopStyleColor();
}
}  // namespace

void draw_comparison(const ViewModel& vm, UiState& ui) {
  const Comparison& cmp = vm.comparison;
  const Palette& pal = palette();
  if (cmp.versions.empty()) {
    ImGui::TextUnformatted("No timings yet: run `gpulab bench` or press Run.");
    return;
  }
  if (cmp.before_after && cmp.versions.size() >= 2) {
    draw_before_after(cmp);
    return;
  }
  ImGui::TextWrapped("%s: achieved GFLOP/s, log scale; speedup over the first version", cmp.problem.c_str());
  shown("comparison.problem", cmp.problem);
  shown("comparison.bar_count", double(cmp.versions.size()));
  bool any_measured_gpu = false;
  for (const auto& v : cmp.versions) any_measured_gpu |= !v.cpu && v.measured;
  legend_item(pal.cpu_point, "CPU, measured here");
  ImGui::SameLine(0, 14);
  legend_item(pal.gpu_predicted, "GPU, predicted");
  if (any_measured_gpu) {
    ImGui::SameLine(0, 14);
    legend_item(pal.gpu_measured, "GPU, measured");
  }
  double lo = 1e30, hi = 0;
  for (const auto& v : cmp.versions)
    if (v.gflops > 0) lo = std::min(lo, v.gflops), hi = std::max(hi, v.gflops);
  if (hi <= 0) return;
  double l0 = std::floor(std::log10(lo)) - 0.3, l1 = std::ceil(std::log10(hi)) + 0.1;
  double base = cmp.versions.front().gflops;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  ImVec2 p = ImGui::GetCursorScreenPos();
  float label_w = 0;
  for (const auto& v : cmp.versions) label_w = std::max(label_w, ImGui::CalcTextSize(v.label.c_str()).x);
  label_w += 10;
  float right = ImGui::CalcTextSize("0.00 GFLOP/s  x000k (pred.)").x;
  float row = std::max(ImGui::GetTextLineHeight() + 6,
                       std::min(ImGui::GetFontSize() * 2.2f, (avail.y - ImGui::GetFontSize() * 1.6f) / cmp.versions.size()));
  float x0 = p.x + label_w, x1 = p.x + avail.x - right;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // A label every k decades, k as small as keeps the labels apart.
  const float decade_px = float((x1 - x0) / (l1 - l0));
  const int label_every = std::max(1, int(std::ceil((ImGui::CalcTextSize("100G").x + 8) / std::max(1.f, decade_px))));
  for (int e = int(std::ceil(l0)); e <= int(std::floor(l1)); ++e) {
    float x = x0 + float((e - l0) / (l1 - l0)) * (x1 - x0);
    dl->AddLine(ImVec2(x, p.y), ImVec2(x, p.y + row * cmp.versions.size()), IM_COL32(60, 64, 76, 255));
    if (((e % label_every) + label_every) % label_every != 0) continue;
    char t[24];
    double v = std::pow(10.0, e);
    std::snprintf(t, sizeof t, v >= 1000 ? "%.0fT" : "%gG", v >= 1000 ? v / 1000 : v);
    dl->AddText(ImVec2(x - ImGui::CalcTextSize(t).x / 2, p.y + row * cmp.versions.size() + 2), pal.panel_text_dim, t);  // centred on its line
  }
  for (size_t i = 0; i < cmp.versions.size(); ++i) {
    const PerfPoint& v = cmp.versions[i];
    float y = p.y + i * row;
    ImU32 col = v.cpu ? pal.cpu_point : v.measured ? pal.gpu_measured : pal.gpu_predicted;
    dl->AddText(ImVec2(p.x, y + (row - ImGui::GetFontSize()) / 2), v.current ? pal.current : ImGui::GetColorU32(ImGuiCol_Text), v.label.c_str());
    float w = v.gflops > 0 ? float((std::log10(v.gflops) - l0) / (l1 - l0)) * (x1 - x0) : 0;
    dl->AddRectFilled(ImVec2(x0, y + 3), ImVec2(x0 + std::max(2.f, w), y + row - 3), col, 2.f);
    if (!v.measured && !v.cpu)
      dl->AddRect(ImVec2(x0, y + 3), ImVec2(x0 + std::max(2.f, w), y + row - 3), IM_COL32(255, 255, 255, 120), 2.f);
    // "65.8 TFLOP/s  x119k (pred.)": three digits, no exponents.
    auto times = [](double x) {
      return x >= 1e6 ? fmt::format("{:.3g}M", x / 1e6) : x >= 1e3 ? fmt::format("{:.3g}k", x / 1e3) : fmt::format("{:.3g}", x);
    };
    const std::string text = fmt::format("{}  x{}{}", flops_text(v.gflops), times(base > 0 ? v.gflops / base : 0.0),
                                         (!v.measured && !v.cpu) ? " (pred.)" : "");
    const char* t = text.c_str();
    // What the bar says, for --state (issue 28: the comparison pane wrote nothing).
    const std::string key = "comparison.bars." + v.label;
    shown(key + ".gflops", v.gflops);
    shown(key + ".predicted", !v.measured && !v.cpu);
    dl->AddText(ImVec2(x0 + w + 6, y + (row - ImGui::GetFontSize()) / 2), ImGui::GetColorU32(ImGuiCol_Text), t);
  }
  ImGui::Dummy(ImVec2(avail.x, row * cmp.versions.size() + 20));
}

}  // namespace lab::visual
