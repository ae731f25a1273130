// visual/view_model.cpp: small derived quantities of the snapshot.
#include "visual/view_model.h"

#include <algorithm>

namespace lab::visual {

const char* warp_state_name(WarpState s) {
  switch (s) {
    case WarpState::Empty: return "empty";
    case WarpState::Issuing: return "issuing";
    case WarpState::Barrier: return "at barrier";
    case WarpState::Memory: return "waiting on memory";
    case WarpState::Done: return "done";
  }
  return "?";
}

uint32_t SmSnapshot::warps_resident() const {
  uint32_t n = 0;
  for (const auto& b : blocks)
    for (WarpState w : b.warps) n += (w != WarpState::Done && w != WarpState::Empty);
  return n;
}

uint32_t SmGrid::waves() const {
  uint64_t per_wave = uint64_t(std::max(1u, sm_count)) * std::max(1u, blocks_per_sm);
  return uint32_t((blocks_total + per_wave - 1) / per_wave);
}

uint32_t SmGrid::wave() const {
  if (blocks_placed == 0) return 0;
  uint64_t per_wave = uint64_t(std::max(1u, sm_count)) * std::max(1u, blocks_per_sm);
  return uint32_t((blocks_placed - 1) / per_wave + 1);
}

uint32_t HeatMap::max_count() const {
  uint32_t m = 0;
  for (uint32_t c : count) m = std::max(m, c);
  return m;
}

namespace {
constexpr std::pair<const char*, Panel> kPanelNames[] = {
    {"all", Panel::All},           {"sm", Panel::SmGrid},         {"block", Panel::Block},
    {"memory", Panel::Memory},     {"coalescing", Panel::Coalescing}, {"banks", Panel::Banks},
    {"source", Panel::Source},     {"roofline", Panel::Roofline}, {"comparison", Panel::Comparison},
    {"occupancy", Panel::Occupancy}, {"lesson", Panel::Lesson}, {"timeline", Panel::Timeline},
    {"program", Panel::Program}};
}  // namespace

Panel panel_from_name(const std::string& n, bool* ok) {
  for (auto& [name, p] : kPanelNames)
    if (n == name) {
      if (ok) *ok = true;
      return p;
    }
  if (ok) *ok = false;
  return Panel::All;
}

const char* panel_name(Panel p) {
  for (auto& [name, q] : kPanelNames)
    if (q == p) return name;
  return "all";
}

}  // namespace lab::visual
