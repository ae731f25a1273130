// lab/sim/cycle/corunners.cpp: co-resident blocks' share of first reads (corunners.h).
#include "lab/sim/cycle/corunners.h"

#include <algorithm>

namespace lab::sim::cycle {

std::vector<uint64_t> read_lines(const BlockTrace& trace) {
  std::vector<uint64_t> lines;
  for (const WarpTrace& w : trace.warps)
    for (const TraceMem& m : w.mems) {
      if (m.space != ptx::Space::Global || m.write) continue;
      for (uint32_t r = m.first_run; r < m.first_run + m.runs && r < w.runs.size(); ++r) {
        const SectorRun& run = w.runs[r];
        for (uint32_t i = 0; i < run.count; ++i) lines.push_back(uint64_t(int64_t(run.first) + run.stride * i) / 4);
      }
    }
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  return lines;
}

double first_read_fetch_fraction(const std::vector<uint64_t>& self, const Neighbours& n, uint64_t row_mates,
                                 uint64_t column_mates) {
  if (self.empty()) return 1;
  auto has = [](const std::vector<uint64_t>& v, uint64_t line) { return std::binary_search(v.begin(), v.end(), line); };
  auto along = [&](const std::vector<uint64_t>& one, const std::vector<uint64_t>& two, uint64_t mates, uint64_t line) {
    if (!has(one, line)) return uint64_t(1);
    return has(two, line) ? std::max<uint64_t>(2, mates) : uint64_t(2);
  };
  double sum = 0;
  for (uint64_t line : self) {
    const uint64_t dx = std::min(along(n.x1, n.x2, row_mates, line), std::max<uint64_t>(1, row_mates));
    const uint64_t dy = std::min(along(n.y1, n.y2, column_mates, line), std::max<uint64_t>(1, column_mates));
    sum += 1.0 / double(dx * dy);
  }
  return sum / double(self.size());
}

}  // namespace lab::sim::cycle
