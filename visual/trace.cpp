// visual/trace.cpp: recording the event stream and folding it into snapshots.
#include "visual/trace.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include <fmt/format.h>

#include "lab/sim/line_fold.h"

namespace lab::visual {

WarpAccess warp_access(const TraceContext& ctx, const ptx::Kernel& k, const TraceEvent& e,
                       const std::array<uint64_t, 32>& lanes, const sim::SharedServe* served) {
  WarpAccess a;
  a.valid = true;
  a.space = e.space == ptx::Space::Shared ? ptx::Space::Shared : ptx::Space::Global;  // the view draws global or shared
  a.is_store = e.is_store;
  a.access_bytes = e.access_bytes;
  a.mask = e.mask;
  a.block_linear = e.block;
  a.warp = e.warp;
  a.pc = e.pc;
  a.line = line_of(k, e.pc);
  a.ptx = instruction_text(ctx, e.pc);
  a.sectors = e.sectors;
  a.ideal_sectors = e.ideal_sectors;
  a.wavefronts = e.wavefronts;
  a.ideal_wavefronts = e.ideal;
  a.conflicts = uint32_t(sim::bank_conflicts(e.wavefronts, e.ideal));
  a.lane_addr = lanes;
  a.atomic = e.pc < k.code.size() && k.code[e.pc].atom != ptx::AtomOp::None;
  if (served && served->mask) {
    // The simulator's own phases, copied into the view's plain data.
    BankService& b = a.banks;
    b.valid = true;
    b.lanes_per_phase = served->lanes_per_phase;
    b.words_per_lane = served->words_kept();
    b.phases = served->phases();
    for (uint32_t p = 0; p < b.phases && p < 32; ++p) {
      b.phase_wavefronts[p] = served->phase_wavefronts[p];
      b.phase_ideal[p] = served->phase_ideal[p];
    }
    for (int l = 0; l < 32; ++l)
      for (uint32_t w = 0; w < sim::SharedServe::kMaxWords; ++w) {
        b.bank[l][w] = served->bank[l][w];
        b.wavefront[l][w] = served->wavefront[l][w];
      }
  }
  // Which matrix the lanes touched (shared offsets are never global addresses).
  if (a.space == ptx::Space::Global)
    for (const auto& m : ctx.matrices)
      for (int l = 0; l < 32; ++l)
        if (((e.mask >> l) & 1) && a.lane_addr[l] >= m.address && a.lane_addr[l] < m.address + m.bytes) {
          a.buffer = m.name;
          a.base = m.address;
        }
  return a;
}

uint32_t line_of(const ptx::Kernel& k, uint32_t pc) {
  if (pc >= k.code.size()) return 0;
  uint32_t loc = k.code[pc].loc;
  return loc < k.locs.size() ? k.locs[loc].line : 0;
}

void TraceRecorder::on_event(const sim::WarpEvent& e) {
  TraceEvent t;
  t.kind = e.kind;
  t.block = e.block_linear;
  t.sm = e.sm;
  t.warp = e.warp;
  t.pc = e.pc;
  t.mask = e.active_mask;
  t.space = e.space;
  t.access_bytes = e.access_bytes;
  t.is_store = e.is_store;
  t.sectors = e.sectors;
  t.wavefronts = e.wavefronts;
  t.ideal = e.ideal_wavefronts;
  t.ideal_sectors = e.ideal_sectors;
  t.op_flags = e.op_flags;
  bool memory = e.kind == sim::WarpEvent::WarpInstr && e.access_bytes &&
                (e.space == ptx::Space::Global || e.space == ptx::Space::Shared);
  std::lock_guard lock(mu_);
  if (events_.size() >= max_events_) {
    truncated_ = true;
    return;
  }
  if (memory) {
    t.lanes = int32_t(lanes_.size());
    lanes_.emplace_back();
    std::copy(e.lane_addr, e.lane_addr + 32, lanes_.back().begin());
  }
  if (memory && e.shared.mask) {
    // FNV-1a over the struct's bytes (it is plain data, fully initialised).
    const auto* p = reinterpret_cast<const unsigned char*>(&e.shared);
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof e.shared; ++i) h = (h ^ p[i]) * 1099511628211ull;
    auto it = std::lower_bound(served_index_.begin(), served_index_.end(), std::pair<uint64_t, int32_t>{h, -1});
    for (; it != served_index_.end() && it->first == h; ++it)
      if (std::memcmp(&served_[it->second], &e.shared, sizeof e.shared) == 0) break;
    if (it != served_index_.end() && it->first == h) {
      t.served = it->second;
    } else {
      t.served = int32_t(served_.size());
      served_.push_back(e.shared);
      served_index_.insert(it, {h, t.served});
    }
  }
  events_.push_back(t);
}

void TraceRecorder::take(std::vector<TraceEvent>& events, std::vector<std::array<uint64_t, 32>>& lanes,
                         std::vector<sim::SharedServe>& served) {
  std::lock_guard lock(mu_);
  events = std::move(events_);
  lanes = std::move(lanes_);
  served = std::move(served_);
  served_index_.clear();
}

std::string instruction_text(const TraceContext& ctx, uint32_t pc) {
  if (!ctx.kernel || pc >= ctx.kernel->code.size()) return "";
  uint32_t l = ctx.kernel->code[pc].ptx_line;
  if (l == 0 || l > ctx.ptx_lines.size()) return ptx::op_name(ctx.kernel->code[pc].op);
  std::string s = ctx.ptx_lines[l - 1];
  size_t a = s.find_first_not_of(" \t");
  size_t b = s.find_last_not_of(" \t\r;");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

TraceReplay::TraceReplay(TraceContext ctx, std::vector<TraceEvent> events, std::vector<std::array<uint64_t, 32>> lanes,
                         std::vector<sim::SharedServe> served)
    : ctx_(std::move(ctx)), events_(std::move(events)), lanes_(std::move(lanes)), served_(std::move(served)) {
  assert(ctx_.kernel);
  threads_per_block_ = ctx_.block[0] * ctx_.block[1] * ctx_.block[2];
  warps_per_block_ = (threads_per_block_ + 31) / 32;
  uint32_t nblocks = ctx_.grid[0] * ctx_.grid[1] * ctx_.grid[2];
  // Events of each block, in the order the block produced them.
  std::vector<std::vector<uint32_t>> per_block(nblocks);
  for (uint32_t i = 0; i < events_.size(); ++i)
    if (events_[i].block < nblocks) per_block[events_[i].block].push_back(i);
  // Waves: blocks in launch order, sm_count * blocks_per_sm at a time.
  uint32_t per_wave = std::max(1u, ctx_.sm_count * std::max(1u, ctx_.blocks_per_sm));
  for (uint32_t w0 = 0; w0 < nblocks; w0 += per_wave) {
    wave_start_.push_back(uint32_t(order_.size()));
    uint32_t w1 = std::min(nblocks, w0 + per_wave);
    std::vector<size_t> next(w1 - w0, 0);
    for (bool any = true; any;) {
      any = false;
      for (uint32_t b = w0; b < w1; ++b)
        if (next[b - w0] < per_block[b].size()) {
          order_.push_back(per_block[b][next[b - w0]++]);
          any = true;
        }
    }
  }
  reset();
  find_moments();
}

void fold_counts(const ptx::Module& module, const ptx::Kernel& k, const sim::KernelMetrics& metrics, size_t lines,
                 std::vector<LineHeat>& per_line, std::vector<LineHeat>& per_pc) {
  // Per line: the simulator's one fold (lab/sim/line_fold.h), lines of the
  // kernel's own file (the file of its first .loc; headers such as mma.h
  // would otherwise land on the .cu's line numbers).
  per_line.assign(lines, LineHeat{});
  per_pc.assign(k.code.size(), LineHeat{});
  uint32_t own_file = 0;
  for (const auto& in : k.code)
    if (in.loc < k.locs.size() && k.locs[in.loc].line) {
      own_file = k.locs[in.loc].file;
      break;
    }
  auto add_access = [](const sim::AccessCounts& a, LineHeat& h) {
    for (const sim::MemoryCounts* m : {&a.global_load, &a.global_store, &a.global_atomic, &a.local_load,
                                       &a.local_store, &a.local_atomic})
      h.sectors += m->sectors, h.requests += m->requests;
    for (const sim::MemoryCounts* m : {&a.shared_load, &a.shared_store, &a.shared_atomic})
      h.shared_requests += m->requests, h.conflicts += m->bank_conflicts();
  };
  for (const sim::LineCounts& L : sim::fold_lines(module, k, metrics).lines) {
    if (L.file_index != own_file || !L.line || L.line > lines) continue;
    LineHeat& h = per_line[L.line - 1];
    h.warp_insts += L.warp_insts;
    add_access(L.access, h);
  }
  // Per PTX instruction: its own counters, classified by the same rule.
  for (size_t pc = 0; pc < metrics.per_pc.size() && pc < per_pc.size(); ++pc) {
    const sim::PcCounters& c = metrics.per_pc[pc];
    LineHeat& h = per_pc[pc];
    h.warp_insts = c.warp_insts;
    if (sim::access_direction(k.code[pc]) == sim::AccessDir::None) continue;
    const ptx::Space space = sim::access_space(k.code[pc], c);
    if (space == ptx::Space::Shared) h.shared_requests = c.requests, h.conflicts = c.bank_conflicts();
    else if (space == ptx::Space::Global || space == ptx::Space::Local) h.sectors = c.sectors, h.requests = c.requests;
  }
}

void TraceReplay::set_exact_counts(const sim::KernelMetrics& metrics) {
  fold_counts(*ctx_.module, *ctx_.kernel, metrics, ctx_.source_lines.size(), line_totals_, pc_totals_);
}

void TraceReplay::find_moments() {
  // One pass over the replay order, tracking residency per SM.
  const ptx::Kernel& k = *ctx_.kernel;
  moments_.clear();
  const uint32_t nblocks = ctx_.grid[0] * ctx_.grid[1] * ctx_.grid[2];
  const uint32_t bps = std::max(1u, ctx_.blocks_per_sm);
  std::vector<uint32_t> resident(ctx_.sm_count, 0);
  bool uncoalesced = false, conflict = false, full = false;
  uint64_t most_pos = 0;
  uint32_t most = 0, placed = 0;
  for (uint64_t pos = 0; pos < order_.size(); ++pos) {
    const TraceEvent& e = events_[order_[pos]];
    if (e.kind == sim::WarpEvent::BlockPlaced && e.sm < resident.size()) {
      ++placed;
      if (++resident[e.sm] >= bps && !full) {
        full = true;
        moments_.push_back({"a full SM",
                            fmt::format("SM {} holds {} block{} ({} warps of {}): as many as its limits allow", e.sm,
                                        bps, bps > 1 ? "s" : "", bps * warps_per_block_, ctx_.max_warps_per_sm),
                            "sm", pos + 1, nblocks < ctx_.sm_count});  // one full SM of a mostly idle GPU
      }
      if (placed > most) most = placed, most_pos = pos + 1;
    } else if (e.kind == sim::WarpEvent::BlockRetired && e.sm < resident.size()) {
      if (resident[e.sm]) --resident[e.sm];
      if (placed) --placed;
    } else if (e.lanes >= 0 && e.space == ptx::Space::Global && !e.is_store && !uncoalesced &&
               e.sectors > e.ideal_sectors && e.ideal_sectors) {
      uncoalesced = true;
      moments_.push_back({"first uncoalesced load",
                          fmt::format("line {}: one warp's load touches {} sectors where {} would carry its bytes",
                                      line_of(k, e.pc), e.sectors, e.ideal_sectors),
                          "coalescing", pos + 1});
    } else if (e.lanes >= 0 && e.space == ptx::Space::Shared && !conflict && e.wavefronts > e.ideal) {
      conflict = true;
      moments_.push_back({"first bank conflict",
                          fmt::format("line {}: {} wavefronts where {} would do: {} extra from bank conflicts",
                                      line_of(k, e.pc), e.wavefronts, e.ideal, sim::bank_conflicts(e.wavefronts, e.ideal)),
                          "banks", pos + 1});
    }
  }
  if (!full && most)
    moments_.push_back({"the GPU at its fullest",
                        fmt::format("{} blocks resident at once on {} SMs: no SM reaches its limit of {} block{}", most,
                                    ctx_.sm_count, bps, bps > 1 ? "s" : ""),
                        "sm", most_pos, true});
  const uint32_t per_wave = std::max(1u, ctx_.sm_count * bps);
  if (wave_start_.size() > 1) {
    uint32_t tail = nblocks - uint32_t(wave_start_.size() - 1) * per_wave;
    moments_.push_back({"the tail wave",
                        fmt::format("wave {} of {}: {} blocks for {} SMs; the rest of the GPU waits", wave_start_.size(),
                                    wave_start_.size(), tail, ctx_.sm_count),
                        "sm", uint64_t(wave_start_.back()) + std::min<uint64_t>(order_.size() - wave_start_.back(), 2 * tail)});
  } else if (nblocks < ctx_.sm_count) {
    moments_.push_back({"one partial wave",
                        fmt::format("{} blocks for {} SMs: {} SMs have nothing to do at this size", nblocks,
                                    ctx_.sm_count, ctx_.sm_count - nblocks),
                        "sm", most_pos, true});
  }
  std::stable_sort(moments_.begin(), moments_.end(),
                   [](const Moment& a, const Moment& b) { return a.position < b.position; });
}

void TraceReplay::reset() {
  cursor_ = 0;
  uint32_t nblocks = ctx_.grid[0] * ctx_.grid[1] * ctx_.grid[2];
  blocks_.assign(nblocks, BlockSlot{});
  placed_ = retired_ = warp_insts_ = 0;
  last_global_ = last_shared_ = last_instr_ = -1;
  line_heat_.assign(ctx_.source_lines.size(), LineHeat{});
  pc_count_.assign(ctx_.kernel->code.size(), 0);
  pc_heat_.assign(ctx_.kernel->code.size(), LineHeat{});
  heat_.clear();
  heat_dims_.clear();
  for (const auto& m : ctx_.matrices) {
    uint32_t r = std::min(m.rows, kMaxHeatCells), c = std::min(m.cols, kMaxHeatCells);
    heat_dims_.push_back({r, c});
    heat_.emplace_back(size_t(r) * c, 0);
  }
}

void TraceReplay::apply(const TraceEvent& e) {
  BlockSlot& b = blocks_[e.block];
  switch (e.kind) {
    case sim::WarpEvent::BlockPlaced:
      b.placed = true;
      b.sm = e.sm;
      b.warps.assign(warps_per_block_, WarpSlot{});
      ++placed_;
      return;
    case sim::WarpEvent::BlockRetired:
      b.retired = true;
      for (auto& w : b.warps) w.state = WarpState::Done;
      ++retired_;
      return;
    case sim::WarpEvent::Barrier:  // a bar.sync: a warp instruction like any other
    case sim::WarpEvent::WarpInstr: break;
  }
  if (e.warp >= b.warps.size()) return;
  WarpSlot& w = b.warps[e.warp];
  w.pc = int32_t(e.pc);
  w.mask = e.mask;
  const ptx::Kernel& k = *ctx_.kernel;
  bool global_load = e.space == ptx::Space::Global && e.access_bytes && !e.is_store;
  w.state = is_barrier(e) ? WarpState::Barrier
            : is_exit(e) && e.mask == w.mask ? WarpState::Done
            : global_load ? WarpState::Memory
                          : WarpState::Issuing;
  // A barrier releases once every warp of the block has reached it.
  if (w.state == WarpState::Barrier) {
    bool all = true;
    for (auto& o : b.warps) all &= o.state == WarpState::Barrier || o.state == WarpState::Done;
    if (all)
      for (auto& o : b.warps)
        if (o.state == WarpState::Barrier) o.state = WarpState::Issuing;
  }
  ++warp_insts_;
  ++pc_count_[e.pc];
  uint32_t line = line_of(k, e.pc);
  LineHeat* lh = line && line <= line_heat_.size() ? &line_heat_[line - 1] : nullptr;
  LineHeat& ph = pc_heat_[e.pc];
  ++ph.warp_insts;
  if (lh) ++lh->warp_insts;
  int64_t idx = &e - events_.data();
  last_instr_ = idx;
  if (e.lanes < 0) return;
  if (e.space == ptx::Space::Shared) {
    last_shared_ = idx;
    const uint64_t c = sim::bank_conflicts(e.wavefronts, e.ideal);
    ph.conflicts += c, ++ph.shared_requests;
    if (lh) lh->conflicts += c, ++lh->shared_requests;
    return;
  }
  last_global_ = idx;
  ph.sectors += e.sectors, ++ph.requests;
  if (lh) lh->sectors += e.sectors, ++lh->requests;
  const auto& la = lanes_[e.lanes];
  for (size_t mi = 0; mi < ctx_.matrices.size(); ++mi) {
    const MatrixBuffer& m = ctx_.matrices[mi];
    for (int l = 0; l < 32; ++l) {
      if (!((e.mask >> l) & 1) || la[l] < m.address || la[l] >= m.address + m.bytes) continue;
      uint64_t el = (la[l] - m.address) / m.elem_bytes;
      uint32_t r = uint32_t(el / m.cols), c = uint32_t(el % m.cols);
      auto [hr, hc] = heat_dims_[mi];
      heat_[mi][size_t(r * hr / m.rows) * hc + c * hc / m.cols] += std::max<uint32_t>(1, e.access_bytes / m.elem_bytes);
    }
  }
}

void TraceReplay::seek(uint64_t pos) {
  pos = std::min<uint64_t>(pos, order_.size());
  if (pos < cursor_) reset();
  while (cursor_ < pos) apply(events_[order_[cursor_++]]);
}

void TraceReplay::step_instr() {
  while (cursor_ < order_.size()) {
    const TraceEvent& e = events_[order_[cursor_++]];
    apply(e);
    if (e.kind == sim::WarpEvent::WarpInstr || e.kind == sim::WarpEvent::Barrier) return;
  }
}

void TraceReplay::step_barrier() {
  // Run until some warp executes a barrier and then its whole block has passed it.
  while (cursor_ < order_.size()) {
    const TraceEvent& e = events_[order_[cursor_++]];
    apply(e);
    if (e.kind == sim::WarpEvent::Barrier || (e.kind == sim::WarpEvent::WarpInstr && is_barrier(e))) {
      const BlockSlot& b = blocks_[e.block];
      bool released = true;
      for (auto& w : b.warps) released &= w.state != WarpState::Barrier;
      if (released) return;
    }
  }
}

void TraceReplay::step_wave() {
  for (uint32_t s : wave_start_)
    if (s > cursor_) return seek(s);
  seek(order_.size());
}

void TraceReplay::fill(ViewModel& vm) const {
  const ptx::Kernel& k = *ctx_.kernel;
  vm.playback.cursor = cursor_;
  vm.playback.total = order_.size();
  vm.playback.warp_insts = warp_insts_;
  vm.playback.finished = cursor_ >= order_.size();
  vm.moments = moments_;
  // SM grid.
  SmGrid& g = vm.sm;
  g.sm_count = ctx_.sm_count;
  g.max_warps_per_sm = ctx_.max_warps_per_sm;
  g.blocks_per_sm = ctx_.blocks_per_sm;
  g.warps_per_block = warps_per_block_;
  g.blocks_total = blocks_.size();
  g.blocks_placed = placed_;
  g.blocks_retired = retired_;
  g.sms.assign(ctx_.sm_count, SmSnapshot{});
  uint32_t per_wave = std::max(1u, ctx_.sm_count * std::max(1u, ctx_.blocks_per_sm));
  uint32_t wave_now = placed_ ? uint32_t((placed_ - 1) / per_wave) : 0;
  for (uint32_t i = 0; i < blocks_.size(); ++i) {
    const BlockSlot& b = blocks_[i];
    if (!b.placed || b.sm >= g.sms.size()) continue;
    if (b.retired) {
      ++g.sms[b.sm].blocks_retired;
      // Retired blocks of the current wave stay drawn as done until the next wave.
      if (i / per_wave != wave_now) continue;
    }
    ResidentBlock rb;
    rb.block_linear = i;
    for (const auto& w : b.warps) rb.warps.push_back(w.state);
    g.sms[b.sm].blocks.push_back(std::move(rb));
  }
  // Block view: the block of the latest instruction.
  vm.block = BlockView{};
  if (last_instr_ >= 0) {
    const TraceEvent& e = events_[last_instr_];
    const BlockSlot& b = blocks_[e.block];
    BlockView& bv = vm.block;
    bv.valid = true;
    bv.block_linear = e.block;
    bv.bx = e.block % ctx_.grid[0];
    bv.by = (e.block / ctx_.grid[0]) % ctx_.grid[1];
    bv.bz = e.block / (ctx_.grid[0] * ctx_.grid[1]);
    bv.threads = threads_per_block_;
    bv.sm = b.sm;
    for (uint32_t wi = 0; wi < b.warps.size(); ++wi) {
      const WarpSlot& w = b.warps[wi];
      WarpRow r;
      r.warp = wi;
      uint32_t live = std::min(32u, threads_per_block_ - wi * 32);
      r.live_mask = live >= 32 ? 0xffffffffu : ((1u << live) - 1);
      r.active_mask = w.pc >= 0 ? w.mask : r.live_mask;
      r.state = w.state;
      r.pc = w.pc;
      if (w.pc >= 0) {
        r.ptx = instruction_text(ctx_, uint32_t(w.pc));
        r.line = line_of(k, uint32_t(w.pc));
      }
      bv.warps.push_back(std::move(r));
    }
  }
  auto access = [&](int64_t idx, WarpAccess& a) {
    a = idx < 0 ? WarpAccess{} : warp_access(ctx_, k, events_[idx], lanes_[events_[idx].lanes],
                                                  events_[idx].served >= 0 ? &served_[events_[idx].served] : nullptr);
  };
  access(last_global_, vm.global_access);
  access(last_shared_, vm.shared_access);
  // Heat maps with the current global access's footprint.
  vm.heat.clear();
  for (size_t mi = 0; mi < ctx_.matrices.size(); ++mi) {
    const MatrixBuffer& m = ctx_.matrices[mi];
    HeatMap h;
    h.name = m.name;
    h.rows = heat_dims_[mi][0];
    h.cols = heat_dims_[mi][1];
    h.elem_rows = m.rows;
    h.elem_cols = m.cols;
    h.count = heat_[mi];
    h.footprint.assign(h.count.size(), 0);
    if (vm.global_access.valid)
      for (int l = 0; l < 32; ++l) {
        uint64_t ad = vm.global_access.lane_addr[l];
        if (!((vm.global_access.mask >> l) & 1) || ad < m.address || ad >= m.address + m.bytes) continue;
        uint64_t el = (ad - m.address) / m.elem_bytes;
        h.footprint[size_t(uint32_t(el / m.cols) * h.rows / m.rows) * h.cols + uint32_t(el % m.cols) * h.cols / m.cols] = 1;
      }
    vm.heat.push_back(std::move(h));
  }
  // Source view.
  SourceText& s = vm.source;
  s.file = ctx_.source_name;
  s.lines = ctx_.source_lines;
  s.heat = line_heat_;
  s.ptx.resize(k.code.size());
  s.ptx_line.resize(k.code.size());
  for (uint32_t pc = 0; pc < k.code.size(); ++pc) {
    s.ptx[pc] = instruction_text(ctx_, pc);
    s.ptx_line[pc] = line_of(k, pc);
  }
  s.ptx_count = pc_count_;
  s.ptx_heat = pc_heat_;
  s.line_totals = line_totals_;
  s.ptx_totals = pc_totals_;
  s.current_pc = last_instr_ >= 0 ? int32_t(events_[last_instr_].pc) : -1;
  s.current_line = last_instr_ >= 0 ? line_of(k, events_[last_instr_].pc) : 0;
}

}  // namespace lab::visual
