// lab/sim/cycle/corunners.cpp: co-resident blocks' share of first reads (corunners.h).
#include "lab/sim/cycle/corunners.h"

#include <algorithm>

namespace lab::sim::cycle {

std::vector<uint64_t> read_lines(const BlockTrace& trace) {
  std::vector<uint64_t> lines;
  // Most reads are of a line read a moment before (a loop walks a row a
  // sector at a time; a block's warps read the same rows): the naive GEMM's
  // block read 4 M sectors of 8 K lines, and sorting them was 7% of a 4096^3
  // prediction. A direct-mapped table of the lines read last keeps repeats
  // out of the sort; it only ever drops a repeat, so the result is the same.
  constexpr size_t kRecent = 8192;
  std::vector<uint64_t> recent(kRecent, ~uint64_t(0));
  for (const WarpTrace& w : trace.warps)
    for (const TraceMem& m : w.mems) {
      if (m.space != ptx::Space::Global || m.write) continue;
      for (uint32_t r = m.first_run; r < m.first_run + m.runs && r < w.runs.size(); ++r) {
        const SectorRun& run = w.runs[r];
        for (uint32_t i = 0; i < run.count; ++i) {
          const uint64_t line = uint64_t(int64_t(run.first) + run.stride * i) / 4;
          uint64_t& seen = recent[line & (kRecent - 1)];
          if (seen == line) continue;
          seen = line;
          lines.push_back(line);
        }
      }
    }
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  return lines;
}

GridNeighbours grid_neighbours(uint64_t gx, uint64_t gy, uint64_t block, uint64_t wave) {
  gx = std::max<uint64_t>(gx, 1), gy = std::max<uint64_t>(gy, 1);
  const uint64_t x0 = block % gx, y0 = (block / gx) % gy, plane = block / (gx * gy) * gx * gy;
  // `d` steps along one axis, back at the grid's edge.
  auto step = [](uint64_t at, uint64_t extent, uint64_t d) -> int64_t {
    if (at + d < extent) return int64_t(at + d);
    return at >= d ? int64_t(at - d) : -1;
  };
  auto at = [&](int64_t x, int64_t y) { return x < 0 || y < 0 ? -1 : int64_t(plane + uint64_t(y) * gx + uint64_t(x)); };
  GridNeighbours g;
  g.self = int64_t(block);
  g.x1 = at(step(x0, gx, 1), int64_t(y0));
  g.x2 = at(step(x0, gx, 2), int64_t(y0));
  g.y1 = at(int64_t(x0), step(y0, gy, 1));
  g.y2 = at(int64_t(x0), step(y0, gy, 2));
  g.row_mates = std::min(gx, wave);
  g.column_mates = gx >= wave ? 1 : std::min(gy, (wave + gx - 1) / gx);
  return g;
}

namespace {

// 1 / (blocks of one wave reading `line`), from the neighbours' lines.
double share_of(uint64_t line, const Neighbours& n, uint64_t row_mates, uint64_t column_mates) {
  auto has = [](const std::vector<uint64_t>& v, uint64_t l) { return std::binary_search(v.begin(), v.end(), l); };
  auto along = [&](const std::vector<uint64_t>& one, const std::vector<uint64_t>& two, uint64_t mates) {
    if (!has(one, line)) return uint64_t(1);
    return has(two, line) ? std::max<uint64_t>(2, mates) : uint64_t(2);
  };
  const uint64_t dx = std::min(along(n.x1, n.x2, row_mates), std::max<uint64_t>(1, row_mates));
  const uint64_t dy = std::min(along(n.y1, n.y2, column_mates), std::max<uint64_t>(1, column_mates));
  return 1.0 / double(dx * dy);
}

}  // namespace

double first_read_fetch_fraction(const std::vector<uint64_t>& self, const Neighbours& n, uint64_t row_mates,
                                 uint64_t column_mates) {
  if (self.empty()) return 1;
  double sum = 0;
  for (uint64_t line : self) sum += share_of(line, n, row_mates, column_mates);
  return sum / double(self.size());
}

std::vector<FetchRange> fetch_fractions_by_buffer(const std::vector<uint64_t>& self, const Neighbours& n,
                                                  uint64_t row_mates, uint64_t column_mates,
                                                  const std::vector<std::pair<uint64_t, uint64_t>>& buffers) {
  std::vector<FetchRange> out;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const auto [first, end] = buffers[i];
    const auto lo = std::lower_bound(self.begin(), self.end(), first);
    const auto hi = std::lower_bound(lo, self.end(), end);
    if (lo == hi) continue;
    double sum = 0;
    for (auto it = lo; it != hi; ++it) sum += share_of(*it, n, row_mates, column_mates);
    out.push_back({first, end, sum / double(hi - lo), i});
  }
  return out;
}

}  // namespace lab::sim::cycle
