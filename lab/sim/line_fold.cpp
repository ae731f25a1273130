// lab/sim/line_fold.cpp: per-pc counters -> per-line and whole-kernel counts.
#include "lab/sim/line_fold.h"

#include <algorithm>
#include <map>

#include "lab/ptx/opcodes.h"
#include "lab/sim/timing.h"

namespace lab::sim {

using ptx::Op;
using ptx::Space;

// The opcode table's memory direction (lab/ptx/opcodes.def). cp.async
// counts as a load: the interpreter counts its global read (the shared
// write is not a request).
AccessDir access_direction(const ptx::Instr& in) {
  switch (ptx::op_info(in.op).mem) {
    case ptx::MemDir::Load: return AccessDir::Load;
    case ptx::MemDir::Store: return AccessDir::Store;
    case ptx::MemDir::Atomic: return AccessDir::Atomic;
    case ptx::MemDir::None: break;
  }
  return AccessDir::None;
}

// Explicit spaces are what they say; ldmatrix/stmatrix are shared by
// definition; a generic access is classified by what the interpreter counted
// for it (sectors: global or local; wavefronts: shared).
Space access_space(const ptx::Instr& in, const PcCounters& c) {
  if (in.op == Op::Ldmatrix || in.op == Op::Stmatrix) return Space::Shared;
  if (in.op == Op::CpAsync) return Space::Global;
  switch (in.space) {
    case Space::Global: return Space::Global;
    case Space::Local: return Space::Local;
    case Space::Shared: case Space::SharedCluster: return Space::Shared;
    case Space::Param: case Space::Const: return in.space;  // constant cache: not L1TEX requests
    case Space::Generic:
      if (c.wavefronts && !c.sectors) return Space::Shared;
      return Space::Global;
  }
  return Space::Param;
}

void MemoryCounts::add(const MemoryCounts& o) {
  requests += o.requests;
  sectors += o.sectors;
  wavefronts += o.wavefronts;
  ideal_wavefronts += o.ideal_wavefronts;
  serial_updates += o.serial_updates;
  bytes += o.bytes;
}

MemoryCounts* AccessCounts::slot(Space space, AccessDir dir) {
  if (dir == AccessDir::None) return nullptr;
  const int d = dir == AccessDir::Load ? 0 : dir == AccessDir::Store ? 1 : 2;
  switch (space) {
    case Space::Global: return d == 0 ? &global_load : d == 1 ? &global_store : &global_atomic;
    case Space::Local: return d == 0 ? &local_load : d == 1 ? &local_store : &local_atomic;
    case Space::Shared: return d == 0 ? &shared_load : d == 1 ? &shared_store : &shared_atomic;
    default: return nullptr;
  }
}

void AccessCounts::add(const AccessCounts& o) {
  global_load.add(o.global_load), global_store.add(o.global_store), global_atomic.add(o.global_atomic);
  local_load.add(o.local_load), local_store.add(o.local_store), local_atomic.add(o.local_atomic);
  shared_load.add(o.shared_load), shared_store.add(o.shared_store), shared_atomic.add(o.shared_atomic);
}

void LineCounts::add(const LineCounts& o) {
  warp_insts += o.warp_insts;
  thread_insts += o.thread_insts;
  active_lanes += o.active_lanes;
  divergent_branches += o.divergent_branches;
  dram_read_bytes += o.dram_read_bytes;
  dram_write_bytes += o.dram_write_bytes;
  fma_warp_insts += o.fma_warp_insts;
  mma_warp_insts += o.mma_warp_insts;
  flops += o.flops;
  access.add(o.access);
}

LineFold fold_lines(const ptx::Module& module, const ptx::Kernel& kernel, const KernelMetrics& metrics) {
  std::map<std::pair<uint32_t, uint32_t>, LineCounts> by_line;
  const size_t n = std::min(kernel.code.size(), metrics.per_pc.size());
  for (size_t pc = 0; pc < n; ++pc) {
    const ptx::Instr& in = kernel.code[pc];
    const PcCounters& c = metrics.per_pc[pc];
    if (!c.warp_insts && !c.requests) continue;
    const ptx::SourceLoc loc = in.loc < kernel.locs.size() ? kernel.locs[in.loc] : ptx::SourceLoc{};
    LineCounts& l = by_line[{loc.file, loc.line}];
    if (l.warp_insts == 0 && l.file.empty() && loc.file < module.files.size()) l.file = module.files[loc.file];
    l.file_index = loc.file;
    l.line = loc.line;
    l.warp_insts += c.warp_insts;
    l.thread_insts += c.thread_insts;
    l.active_lanes += c.active_lanes;
    l.divergent_branches += c.divergent;
    l.dram_read_bytes += c.dram_read_bytes;
    l.dram_write_bytes += c.dram_write_bytes;
    l.flops += flops_per_lane(in) * double(c.thread_insts);
    if ((in.op == Op::Fma || in.op == Op::Mad) && ptx::type_is_float(in.type)) l.fma_warp_insts += c.warp_insts;
    if (in.op == Op::WmmaMma || in.op == Op::Mma) l.mma_warp_insts += c.warp_insts;

    const AccessDir dir = access_direction(in);
    if (dir == AccessDir::None) continue;
    const Space space = access_space(in, c);
    MemoryCounts* mc = l.access.slot(space, dir);
    if (!mc) continue;
    uint64_t shared_part_requests = 0;
    if (space == Space::Global && in.space == Space::Generic && c.wavefronts) {
      // A generic pc whose lanes touched both windows: half its requests
      // (and all its wavefronts) go to shared memory.
      shared_part_requests = c.requests / 2;
      MemoryCounts& sm = *l.access.slot(Space::Shared, dir);
      sm.requests += shared_part_requests;
      sm.wavefronts += c.wavefronts;
      sm.ideal_wavefronts += c.ideal_wavefronts;
    }
    mc->requests += c.requests - shared_part_requests;
    mc->sectors += c.sectors;
    mc->bytes += c.bytes;
    mc->serial_updates += c.atomic_serial;
    if (space == Space::Shared) {
      mc->wavefronts += c.wavefronts;
      mc->ideal_wavefronts += c.ideal_wavefronts;
    }
  }
  LineFold f;
  for (auto& [key, l] : by_line) {
    f.total.add(l);
    f.lines.push_back(std::move(l));
  }
  return f;
}

}  // namespace lab::sim
