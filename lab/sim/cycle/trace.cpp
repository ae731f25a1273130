// lab/sim/cycle/trace.cpp: run-length encoding of a request's sectors.
#include "lab/sim/cycle/trace.h"

namespace lab::sim::cycle {

void WarpTrace::add_global(const uint64_t* sectors, uint32_t n, uint32_t dram, bool write, bool local) {
  TraceMem m;
  m.inst = insts.empty() ? 0 : uint32_t(insts.size() - 1);
  m.first_run = uint32_t(runs.size());
  m.count = uint16_t(n);
  m.dram = uint16_t(dram);
  m.space = local ? ptx::Space::Local : ptx::Space::Global;
  m.write = write;
  uint32_t lines = 0;
  uint64_t last_line = ~0ull;
  for (uint32_t i = 0; i < n;) {
    SectorRun r;
    r.first = sectors[i];
    r.count = 1;
    if (i + 1 < n) {
      r.stride = int64_t(sectors[i + 1] - sectors[i]);
      r.count = 2;
      while (i + r.count < n && int64_t(sectors[i + r.count] - sectors[i + r.count - 1]) == r.stride) ++r.count;
    }
    for (uint32_t k = 0; k < r.count; ++k) {
      uint64_t line = (sectors[i + k]) >> 2;  // 4 sectors per 128-byte line
      if (line != last_line) ++lines, last_line = line;
    }
    runs.push_back(r);
    i += r.count;
  }
  m.runs = uint16_t(runs.size() - m.first_run);
  m.lines = uint16_t(lines);
  mems.push_back(m);
}

void WarpTrace::add_shared(uint32_t wavefronts, bool write, uint16_t wide4, uint16_t wide8, uint16_t wide16) {
  TraceMem m;
  m.inst = insts.empty() ? 0 : uint32_t(insts.size() - 1);
  m.first_run = uint32_t(runs.size());
  m.count = uint16_t(wavefronts);
  m.space = ptx::Space::Shared;
  m.write = write;
  m.serial = wide4;
  m.dram = wide8;
  m.lines = wide16;
  mems.push_back(m);
}

}  // namespace lab::sim::cycle
