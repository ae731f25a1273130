// visual/live.cpp: per-worker shards of counters, summed into snapshots.
#include "visual/live.h"

#include <algorithm>
#include <bit>

namespace lab::visual {

namespace {
constexpr uint32_t kNoBlock = 0xffffffffu;
std::atomic<uint64_t> next_id{1};
std::atomic<uint64_t> sample_seq{0};

// One writer per counter: a plain load and store, no locked instruction.
template <class T>
void bump(std::atomic<T>& a, T n) {
  a.store(a.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}
template <class T>
T get(const std::atomic<T>& a) {
  return a.load(std::memory_order_relaxed);
}
}  // namespace

struct LiveAggregator::Access {
  bool valid = false;
  uint64_t seq = 0;
  TraceEvent e;
  std::array<uint64_t, 32> lanes{};
  sim::SharedServe served;
};

struct LiveAggregator::Shard {
  Shard(size_t pcs, size_t cells, uint32_t warps)
      : pc_count(pcs), pc_sectors(pcs), pc_conflicts(pcs), heat(cells), warp_pc(warps), warp_mask(warps),
        warp_state(warps) {}
  std::vector<std::atomic<uint64_t>> pc_count, pc_sectors, pc_conflicts;
  std::vector<std::atomic<uint32_t>> heat;  // every matrix's cells, one after the other
  std::atomic<uint32_t> block{kNoBlock};    // the block this worker runs now
  std::vector<std::atomic<int32_t>> warp_pc;
  std::vector<std::atomic<uint32_t>> warp_mask;
  std::vector<std::atomic<uint8_t>> warp_state;
  std::atomic<uint64_t> warp_insts{0};
  // Sampling the current access: fill() raises a flag, the next matching event fills the slot.
  std::atomic<bool> want_global{true}, want_shared{true};
  std::mutex mu;
  Access global, shared;
};

LiveAggregator::LiveAggregator(TraceContext ctx, uint32_t event_every)
    : ctx_(std::move(ctx)), event_every_(std::max(1u, event_every)), id_(next_id++) {
  threads_per_block_ = ctx_.block[0] * ctx_.block[1] * ctx_.block[2];
  warps_per_block_ = (threads_per_block_ + 31) / 32;
  auto shift_of = [](uint32_t v) { return v && (v & (v - 1)) == 0 ? std::countr_zero(v) : -1; };
  for (const auto& m : ctx_.matrices) {
    uint32_t r = std::min(m.rows, kMaxHeatCells), c = std::min(m.cols, kMaxHeatCells);
    heat_dims_.push_back({r, c});
    heat_cells_ += size_t(r) * c;
    CellMap cm;
    cm.col_shift = shift_of(m.cols);
    cm.elem_shift = shift_of(m.elem_bytes);
    if (m.rows % r == 0 && m.cols % c == 0) {
      cm.rpc = m.rows / r, cm.cpc = m.cols / c;
      cm.rpc_shift = shift_of(cm.rpc), cm.cpc_shift = shift_of(cm.cpc);
    }
    cell_map_.push_back(cm);
  }
  for (uint32_t pc = 0; pc < ctx_.kernel->code.size(); ++pc) {
    ptx_text_.push_back(instruction_text(ctx_, pc));
    ptx_line_.push_back(line_of(*ctx_.kernel, pc));
  }
  size_t nblocks = size_t(ctx_.grid[0]) * ctx_.grid[1] * ctx_.grid[2];
  block_state_ = std::vector<std::atomic<uint8_t>>(nblocks);
  block_sm_ = std::vector<std::atomic<uint32_t>>(nblocks);
  last_global_ = std::make_unique<Access>();
  last_shared_ = std::make_unique<Access>();
}

LiveAggregator::~LiveAggregator() = default;

LiveAggregator::Shard& LiveAggregator::shard() {
  // One cache entry per thread: a simulator worker keeps its shard for the launch.
  thread_local uint64_t owner = 0;
  thread_local Shard* cached = nullptr;
  if (owner == id_) return *cached;
  std::lock_guard lock(shards_mu_);
  shards_.push_back(std::make_unique<Shard>(ctx_.kernel->code.size(), heat_cells_, warps_per_block_));
  owner = id_;
  cached = shards_.back().get();
  return *cached;
}

void LiveAggregator::on_event(const sim::WarpEvent& e) {
  Shard& s = shard();
  const uint32_t b = e.block_linear;
  if (b >= block_state_.size()) return;
  switch (e.kind) {
    case sim::WarpEvent::BlockPlaced:
      block_sm_[b].store(e.sm, std::memory_order_relaxed);
      block_state_[b].store(1, std::memory_order_release);
      for (uint32_t w = 0; w < warps_per_block_; ++w) {
        s.warp_pc[w].store(-1, std::memory_order_relaxed);
        s.warp_state[w].store(uint8_t(WarpState::Issuing), std::memory_order_relaxed);
      }
      s.block.store(b, std::memory_order_release);
      return;
    case sim::WarpEvent::BlockRetired:
      block_state_[b].store(2, std::memory_order_release);
      s.block.store(kNoBlock, std::memory_order_release);
      return;
    case sim::WarpEvent::Barrier:  // a bar.sync: a warp instruction like any other
    case sim::WarpEvent::WarpInstr: break;
  }
  if (e.warp >= warps_per_block_ || e.pc >= s.pc_count.size()) return;
  bump(s.warp_insts, uint64_t(1));
  bump(s.pc_count[e.pc], uint64_t(1));
  // Warp state, as the trace replay derives it (visual/trace.cpp).
  bool global_load = e.space == ptx::Space::Global && e.access_bytes && !e.is_store;
  WarpState st = (e.op_flags & ptx::kOpBarrier) ? WarpState::Barrier
                 : (e.op_flags & ptx::kOpExit)  ? WarpState::Done
                 : global_load       ? WarpState::Memory
                                     : WarpState::Issuing;
  s.warp_pc[e.warp].store(int32_t(e.pc), std::memory_order_relaxed);
  s.warp_mask[e.warp].store(e.active_mask, std::memory_order_relaxed);
  s.warp_state[e.warp].store(uint8_t(st), std::memory_order_relaxed);
  if (st == WarpState::Barrier) {
    bool all = true;
    for (uint32_t w = 0; w < warps_per_block_; ++w) {
      auto o = WarpState(get(s.warp_state[w]));
      all &= o == WarpState::Barrier || o == WarpState::Done;
    }
    if (all)
      for (uint32_t w = 0; w < warps_per_block_; ++w)
        if (WarpState(get(s.warp_state[w])) == WarpState::Barrier)
          s.warp_state[w].store(uint8_t(WarpState::Issuing), std::memory_order_relaxed);
  }
  bool memory = e.access_bytes && (e.space == ptx::Space::Global || e.space == ptx::Space::Shared);
  if (!memory) return;
  const bool shared = e.space == ptx::Space::Shared;
  if (shared) {
    if (uint32_t c = e.bank_conflicts()) bump(s.pc_conflicts[e.pc], uint64_t(c));
  } else {
    bump(s.pc_sectors[e.pc], uint64_t(e.sectors));
    // Heat: every active lane's element of A, B or C.
    size_t cell0 = 0;
    for (size_t mi = 0; mi < ctx_.matrices.size(); ++mi) {
      const MatrixBuffer& m = ctx_.matrices[mi];
      auto [hr, hc] = heat_dims_[mi];
      const CellMap& cm = cell_map_[mi];
      const bool shifts = cm.col_shift >= 0 && cm.elem_shift >= 0 && cm.rpc_shift >= 0 && cm.cpc_shift >= 0;
      const uint32_t per_lane = std::max<uint32_t>(1, e.access_bytes / m.elem_bytes);
      int32_t last_cell = -1;  // neighbouring lanes usually share a cell: add once per run of them
      uint32_t run = 0;
      for (int l = 0; l < 32; ++l) {
        uint64_t a = e.lane_addr[l];
        if (!((e.active_mask >> l) & 1) || a < m.address || a >= m.address + m.bytes) continue;
        uint64_t off = a - m.address;
        uint32_t cell;
        if (shifts) {
          uint64_t el = off >> cm.elem_shift;
          uint32_t r = uint32_t(el >> cm.col_shift), c = uint32_t(el & (m.cols - 1));
          cell = (r >> cm.rpc_shift) * hc + (c >> cm.cpc_shift);
        } else {
          uint64_t el = off / m.elem_bytes;
          uint32_t r = uint32_t(el / m.cols), c = uint32_t(el % m.cols);
          cell = uint32_t(uint64_t(r) * hr / m.rows) * hc + uint32_t(uint64_t(c) * hc / m.cols);
        }
        if (int32_t(cell) != last_cell) {
          if (last_cell >= 0) bump(s.heat[cell0 + uint32_t(last_cell)], run * per_lane);
          last_cell = int32_t(cell), run = 0;
        }
        ++run;
      }
      if (last_cell >= 0) bump(s.heat[cell0 + uint32_t(last_cell)], run * per_lane);
      cell0 += size_t(hr) * hc;
    }
  }
  std::atomic<bool>& want = shared ? s.want_shared : s.want_global;
  if (!want.load(std::memory_order_relaxed)) return;
  std::lock_guard lock(s.mu);
  Access& a = shared ? s.shared : s.global;
  a.valid = true;
  a.seq = ++sample_seq;
  a.e.kind = e.kind;
  a.e.space = e.space;
  a.e.access_bytes = e.access_bytes;
  a.e.is_store = e.is_store;
  a.e.block = b, a.e.sm = e.sm, a.e.warp = e.warp, a.e.pc = e.pc, a.e.mask = e.active_mask;
  a.e.sectors = e.sectors, a.e.ideal_sectors = e.ideal_sectors, a.e.wavefronts = e.wavefronts, a.e.ideal = e.ideal_wavefronts;
  std::copy(e.lane_addr, e.lane_addr + 32, a.lanes.begin());
  a.served = e.shared;
  want.store(false, std::memory_order_relaxed);
}

uint64_t LiveAggregator::blocks_retired() const {
  uint64_t n = 0;
  for (const auto& b : block_state_) n += get(b) == 2;
  return n;
}

void LiveAggregator::finish(const sim::KernelMetrics& metrics) {
  // The simulator's own per-pc counts are exact where the events were sampled.
  exact_ = true;
  exact_count_.assign(ctx_.kernel->code.size(), 0);
  for (size_t pc = 0; pc < metrics.per_pc.size() && pc < exact_count_.size(); ++pc)
    exact_count_[pc] = metrics.per_pc[pc].warp_insts;
  fold_counts(*ctx_.module, *ctx_.kernel, metrics, ctx_.source_lines.size(), exact_line_heat_, exact_pc_heat_);
}

void LiveAggregator::fill(ViewModel& vm) {
  const ptx::Kernel& k = *ctx_.kernel;
  std::vector<Shard*> shards;
  {
    std::lock_guard lock(shards_mu_);
    for (auto& s : shards_) shards.push_back(s.get());
  }
  // Newest sampled accesses; then ask every shard for fresh ones.
  for (Shard* s : shards) {
    std::lock_guard lock(s->mu);
    if (s->global.valid && s->global.seq > last_global_->seq) *last_global_ = s->global;
    if (s->shared.valid && s->shared.seq > last_shared_->seq) *last_shared_ = s->shared;
    s->want_global.store(true, std::memory_order_relaxed);
    s->want_shared.store(true, std::memory_order_relaxed);
  }
  uint64_t insts = 0;
  for (Shard* s : shards) insts += get(s->warp_insts);
  const uint64_t scale = exact_ ? 1 : event_every_;

  // SM grid: running blocks with their warps; finished blocks of the wave as done.
  SmGrid& g = vm.sm;
  g.sm_count = ctx_.sm_count;
  g.max_warps_per_sm = ctx_.max_warps_per_sm;
  g.blocks_per_sm = ctx_.blocks_per_sm;
  g.warps_per_block = warps_per_block_;
  g.blocks_total = block_state_.size();
  g.sms.assign(ctx_.sm_count, SmSnapshot{});
  uint64_t placed = 0, retired = 0;
  for (const auto& b : block_state_) placed += get(b) >= 1, retired += get(b) == 2;
  g.blocks_placed = placed;
  g.blocks_retired = retired;
  uint32_t per_wave = std::max(1u, ctx_.sm_count * std::max(1u, ctx_.blocks_per_sm));
  // Blocks start in launch order, so the highest placed one gives the wave.
  uint32_t highest = 0;
  for (uint32_t i = 0; i < block_state_.size(); ++i)
    if (get(block_state_[i]) >= 1) highest = i;
  uint32_t wave_now = highest / per_wave;
  std::vector<const Shard*> running(block_state_.size(), nullptr);
  for (Shard* s : shards) {
    uint32_t b = s->block.load(std::memory_order_acquire);
    if (b < running.size()) running[b] = s;
  }
  for (uint32_t i = 0; i < block_state_.size(); ++i) {
    uint8_t st = get(block_state_[i]);
    uint32_t sm = get(block_sm_[i]);
    if (st == 0 || sm >= g.sms.size()) continue;
    if (st == 2) {
      ++g.sms[sm].blocks_retired;
      if (i / per_wave != wave_now) continue;
    }
    ResidentBlock rb;
    rb.block_linear = i;
    for (uint32_t w = 0; w < warps_per_block_; ++w)
      rb.warps.push_back(st == 2 ? WarpState::Done
                         : running[i] ? WarpState(get(running[i]->warp_state[w]))
                                      : WarpState::Issuing);
    g.sms[sm].blocks.push_back(std::move(rb));
  }

  // Block view: the block of the newest sampled access, else any running block.
  vm.block = BlockView{};
  const Shard* bs = nullptr;
  uint32_t bl = kNoBlock;
  for (Shard* s : shards) {
    uint32_t b = s->block.load(std::memory_order_acquire);
    if (b == kNoBlock) continue;
    if (!bs || (last_global_->valid && b == last_global_->e.block)) bs = s, bl = b;
  }
  if (bs) {
    BlockView& bv = vm.block;
    bv.valid = true;
    bv.block_linear = bl;
    bv.bx = bl % ctx_.grid[0];
    bv.by = (bl / ctx_.grid[0]) % ctx_.grid[1];
    bv.bz = bl / (ctx_.grid[0] * ctx_.grid[1]);
    bv.threads = threads_per_block_;
    bv.sm = get(block_sm_[bl]);
    for (uint32_t wi = 0; wi < warps_per_block_; ++wi) {
      WarpRow r;
      r.warp = wi;
      uint32_t live = std::min(32u, threads_per_block_ - wi * 32);
      r.live_mask = live >= 32 ? 0xffffffffu : ((1u << live) - 1);
      r.pc = get(bs->warp_pc[wi]);
      r.active_mask = r.pc >= 0 ? get(bs->warp_mask[wi]) : r.live_mask;
      r.state = WarpState(get(bs->warp_state[wi]));
      if (r.pc >= 0) {
        r.ptx = instruction_text(ctx_, uint32_t(r.pc));
        r.line = line_of(k, uint32_t(r.pc));
      }
      bv.warps.push_back(std::move(r));
    }
  }

  auto access = [&](const Access& s, WarpAccess& a) {
    a = s.valid ? warp_access(ctx_, k, s.e, s.lanes, s.served.mask ? &s.served : nullptr) : WarpAccess{};
  };
  access(*last_global_, vm.global_access);
  access(*last_shared_, vm.shared_access);

  // Heat maps (exact: global accesses are never sampled) with the sampled access's footprint.
  vm.heat.clear();
  size_t cell0 = 0;
  for (size_t mi = 0; mi < ctx_.matrices.size(); ++mi) {
    const MatrixBuffer& m = ctx_.matrices[mi];
    HeatMap h;
    h.name = m.name;
    h.rows = heat_dims_[mi][0];
    h.cols = heat_dims_[mi][1];
    h.elem_rows = m.rows;
    h.elem_cols = m.cols;
    h.count.assign(size_t(h.rows) * h.cols, 0);
    for (Shard* s : shards)
      for (size_t i = 0; i < h.count.size(); ++i) h.count[i] += get(s->heat[cell0 + i]);
    cell0 += h.count.size();
    h.footprint.assign(h.count.size(), 0);
    const WarpAccess& ga = vm.global_access;
    if (ga.valid)
      for (int l = 0; l < 32; ++l) {
        uint64_t ad = ga.lane_addr[l];
        if (!((ga.mask >> l) & 1) || ad < m.address || ad >= m.address + m.bytes) continue;
        uint64_t el = (ad - m.address) / m.elem_bytes;
        h.footprint[size_t(uint64_t(el / m.cols) * h.rows / m.rows) * h.cols + uint64_t(el % m.cols) * h.cols / m.cols] = 1;
      }
    vm.heat.push_back(std::move(h));
  }

  // Source view: per-pc counts (sampled counts scaled until the exact ones arrive).
  SourceText& src = vm.source;
  src.file = ctx_.source_name;
  src.lines = ctx_.source_lines;
  src.ptx_count.assign(k.code.size(), 0);
  src.heat.assign(ctx_.source_lines.size(), LineHeat{});
  src.ptx = ptx_text_;
  src.ptx_line = ptx_line_;
  if (exact_) {
    src.ptx_count = exact_count_;
    src.heat = exact_line_heat_;
    src.ptx_heat = exact_pc_heat_;
    src.line_totals = exact_line_heat_;
    src.ptx_totals = exact_pc_heat_;
  } else {
    src.ptx_heat.assign(k.code.size(), LineHeat{});
    for (uint32_t pc = 0; pc < k.code.size(); ++pc) {
      uint64_t n = 0, sec = 0, conf = 0;
      for (Shard* s : shards) n += get(s->pc_count[pc]), sec += get(s->pc_sectors[pc]), conf += get(s->pc_conflicts[pc]);
      bool global = sec > 0;  // global-memory instructions are never sampled
      src.ptx_count[pc] = global ? n : n * scale;
      LineHeat& ph = src.ptx_heat[pc];
      ph.warp_insts = src.ptx_count[pc];
      ph.sectors = sec;
      ph.requests = global ? n : 0;
      ph.conflicts = conf * scale;
      uint32_t line = src.ptx_line[pc];
      if (!line || line > src.heat.size()) continue;
      LineHeat& lh = src.heat[line - 1];
      lh.warp_insts += ph.warp_insts, lh.sectors += ph.sectors, lh.requests += ph.requests, lh.conflicts += ph.conflicts;
    }
  }
  const Access& cur = last_global_->seq > last_shared_->seq ? *last_global_ : *last_shared_;
  src.current_pc = cur.valid ? int32_t(cur.e.pc) : -1;
  src.current_line = cur.valid ? line_of(k, cur.e.pc) : 0;

  Playback& pb = vm.playback;
  pb.live = true;
  pb.cursor = retired;
  pb.total = block_state_.size();
  uint64_t counted = 0;
  for (uint64_t n : src.ptx_count) counted += n;
  pb.warp_insts = exact_ ? counted : std::max(insts, counted);
  pb.finished = retired == block_state_.size();
}

}  // namespace lab::visual
