// lab/sim/sanitize.cpp: the kernel checks (see sanitize.h for what each finds).
//
// Index
//   [NAMES]    source lines and shared-variable names for messages
//   [GLOBAL]   launch-wide "written" bits of buffers created uninitialised
//   [SHADOW]   per-byte shadow state of the block's shared memory
//   [CHECKER]  the BlockChecker: accesses, barriers, warp syncs, block end
//   [LOOPS]    describe_loop for hang reports
//
// Happens-before model. Accesses of different warps are ordered by the
// vector clocks of happens_before.h: barriers (block-wide, or named with a
// thread count and scoped to the warps that use them), mbarrier handoffs,
// and release/acquire through fences and atomics (locks, flags). Two
// accesses of different warps that no chain of these orders race, unless
// both are strong (atomics, volatile, .relaxed/.acquire/.release: morally
// strong in the PTX memory model, which no data race involves). Lanes of one
// warp are ordered by __syncwarp() (and by the barriers); the intra-warp
// check compares lanes between those.
#include "lab/sim/sanitize.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "lab/ptx/provenance.h"
#include "lab/sim/happens_before.h"
#include "lab/sim/warp.h"

namespace lab::sim {
namespace {

// [NAMES] -------------------------------------------------------------------------
uint32_t source_line(const ptx::Kernel& k, uint32_t pc) {
  if (pc >= k.code.size()) return 0;
  uint32_t loc = k.code[pc].loc;
  return loc && loc < k.locs.size() ? k.locs[loc].line : 0;
}

// "line 12" (the .cu line) or "PTX line 40" when the PTX has no .loc; in a
// function inlined there, "line 5 (in a function called at line 12)": the
// statement at fault and the student's line that reached it.
std::string where(const ptx::Kernel& k, uint32_t pc) {
  if (uint32_t line = source_line(k, pc)) {
    const ptx::SourceLoc& loc = k.locs[k.code[pc].loc];
    if (loc.inner_line && loc.inner_file == loc.file && loc.inner_line != line)
      return fmt::format("line {} (in a function called at line {})", loc.inner_line, line);
    if (loc.inner_line && loc.inner_file != loc.file)
      return fmt::format("line {} (in a function from another file, line {} there)", line, loc.inner_line);
    return fmt::format("line {}", line);
  }
  return fmt::format("PTX line {}", pc < k.code.size() ? k.code[pc].ptx_line : 0);
}

// A function-local `__shared__ float tile[64]` is named _ZZ<len><func>E<len>tile in PTX.
std::string plain_name(const std::string& mangled) {
  if (mangled.rfind("_ZZ", 0) != 0) return mangled;
  size_t e = mangled.rfind('E');
  if (e == std::string::npos) return mangled;
  size_t i = e + 1;
  size_t len = 0;
  while (i < mangled.size() && mangled[i] >= '0' && mangled[i] <= '9') len = len * 10 + size_t(mangled[i++] - '0');
  if (len == 0 || i + len > mangled.size()) return mangled;
  return mangled.substr(i, len);
}

// "tile + 12 bytes" for a shared offset, or "offset 48" when no variable holds it.
std::string shared_name(const ptx::Kernel& k, uint64_t off) {
  for (const ptx::VarDecl& v : k.shared_vars) {
    uint64_t end = v.is_extern || v.size == 0 ? UINT64_MAX : v.offset + v.size;
    if (off >= v.offset && off < end)
      return off == v.offset ? fmt::format("'{}'", plain_name(v.name))
                             : fmt::format("'{}' + {} bytes", plain_name(v.name), off - v.offset);
  }
  return fmt::format("shared offset {}", off);
}

std::string lane_list(uint32_t mask) {
  std::string s;
  for (uint32_t lane = 0; lane < 32;) {
    if (!((mask >> lane) & 1)) { ++lane; continue; }
    uint32_t run = lane;
    while (run + 1 < 32 && ((mask >> (run + 1)) & 1)) ++run;
    s += s.empty() ? "" : ",";
    s += run > lane ? fmt::format("{}-{}", lane, run) : fmt::format("{}", lane);
    lane = run + 1;
  }
  return s;
}

// [GLOBAL] ------------------------------------------------------------------------
// One entry per buffer created uninitialised: a byte per buffer byte, set when
// any thread writes it. Shared by every block of a launch (and by later
// launches on the same GlobalMemory, whose writes count as initialisation),
// updated with relaxed atomics because blocks run on several workers.
struct UninitBuffer {
  uint64_t address = 0, bytes = 0;
  std::string name;
  std::unique_ptr<uint8_t[]> written;
};

struct GlobalShadow {
  std::vector<UninitBuffer> buffers;  // sorted by address
  const UninitBuffer* find(uint64_t addr) const {
    auto it = std::upper_bound(buffers.begin(), buffers.end(), addr,
                               [](uint64_t a, const UninitBuffer& b) { return a < b.address; });
    if (it == buffers.begin()) return nullptr;
    --it;
    return addr - it->address < it->bytes ? &*it : nullptr;
  }
};

// The shadow for `mem`, made on first use and rebuilt when its set of
// uninitialised buffers changed. Keyed by address: a GlobalMemory destroyed
// and another one made at the same place with identical buffers would
// inherit stale "written" bits, which can only hide a report, never invent one.
std::shared_ptr<GlobalShadow> global_shadow_for(const GlobalMemory& mem) {
  static std::mutex mutex;
  static std::vector<std::pair<const GlobalMemory*, std::shared_ptr<GlobalShadow>>> cache;
  std::vector<const Buffer*> uninit;
  for (const Buffer& b : mem.buffers())
    if (!b.initialized && b.bytes) uninit.push_back(&b);
  if (uninit.empty()) return nullptr;
  std::lock_guard lock(mutex);
  for (auto& [key, shadow] : cache) {
    if (key != &mem) continue;
    bool same = shadow->buffers.size() == uninit.size();
    for (size_t i = 0; same && i < uninit.size(); ++i)
      same = shadow->buffers[i].address == uninit[i]->address && shadow->buffers[i].bytes == uninit[i]->bytes;
    if (same) return shadow;
    key = nullptr;  // stale: rebuilt below
  }
  auto shadow = std::make_shared<GlobalShadow>();
  for (const Buffer* b : uninit) {
    UninitBuffer u;
    u.address = b->address;
    u.bytes = b->bytes;
    u.name = b->name;
    u.written = std::make_unique<uint8_t[]>(b->bytes);  // value-initialised: nothing written
    shadow->buffers.push_back(std::move(u));
  }
  std::erase_if(cache, [](const auto& e) { return e.first == nullptr; });
  if (cache.size() >= 8) cache.erase(cache.begin());
  cache.emplace_back(&mem, shadow);
  return shadow;
}

// [LAUNCH] ------------------------------------------------------------------------
// What the blocks of one launch share: the global-memory race shadow and, per
// shared-memory instruction, the shared array its address is computed from.
//
// Global races. Per 4-byte word of the buffer arena, the last plain writer and
// the last plain reader, each packed in one 64-bit atomic:
//   bits 0-14 pc, 15 strong, 16-20 lane, 21-25 warp, 26-41 warp time
//   (happens_before.h, saturating), 42 synchronising, 43-63 block+1.
// Two accesses conflict when they come from different blocks (nothing orders
// the blocks of one launch but atomics and fences), or from different warps of
// one block that nothing orders, and are not a strong pair (sync_pair). Atomics are neither
// checked nor recorded (they never race with each other, and are how blocks
// communicate).
// Kernels with a fence (__threadfence: membar/fence) get no cross-block check:
// fence + atomic flag protocols (the "last block" reduction) order blocks in
// ways this model does not follow, and no report beats a wrong one. Nor do
// cooperative launches, whose blocks grid.sync() orders (an acquire poll of
// a counter every block releases into: not followed either). A block
// index that aliases in the 22 bits can only hide a report, never invent one.
struct RaceSlot {
  std::atomic<uint64_t> w{0}, r{0};
};
constexpr uint64_t kPageWords = 4096;

struct LaunchShadow {
  uint64_t id = 0;
  bool cross_block = true;
  uint64_t lo = 0, words = 0;  // arena words from lo
  size_t page_count = 0;
  std::unique_ptr<std::atomic<RaceSlot*>[]> pages;
  std::vector<int32_t> shared_var;  // per pc: index into Kernel::shared_vars, or -1
  std::vector<int32_t> global_var;  // per pc: index into Module::globals, or -1
  // Per block-wide barrier pc: the pcs after it that its successor reaches
  // without passing through it again (after_barrier below).
  std::vector<std::vector<bool>> after_barrier;  // per pc; empty where no such barrier
  bool has_block_barriers = false;

  ~LaunchShadow() {
    for (size_t i = 0; i < page_count; ++i) delete[] pages[i].load();
  }
  RaceSlot* slot(uint64_t addr) {
    if (addr < lo) return nullptr;
    uint64_t w = (addr - lo) / 4;
    if (w >= words) return nullptr;
    std::atomic<RaceSlot*>& p = pages[w / kPageWords];
    RaceSlot* page = p.load(std::memory_order_acquire);
    if (!page) {
      RaceSlot* fresh = new RaceSlot[kPageWords];
      if (p.compare_exchange_strong(page, fresh, std::memory_order_acq_rel)) page = fresh;
      else delete[] fresh;
    }
    return &page[w % kPageWords];
  }
};

uint64_t pack_access(uint32_t block, uint32_t warp, uint32_t lane, uint32_t time, uint32_t pc, bool strong = false,
                     bool sync = false) {
  // A saturated time reads as later than it was: ordered sooner, so it can
  // hide a race, never invent one.
  return uint64_t(std::min<uint32_t>(pc, 0x7fff)) | uint64_t(strong) << 15 | uint64_t(lane & 31) << 16 |
         uint64_t(warp & 31) << 21 | uint64_t(std::min<uint32_t>(time, 0xffff)) << 26 | uint64_t(sync) << 42 |
         uint64_t((block % 0x1fffffu) + 1) << 43;
}
uint32_t packed_pc(uint64_t v) { return uint32_t(v & 0x7fff); }
bool packed_strong(uint64_t v) { return (v >> 15) & 1; }
bool packed_sync(uint64_t v) { return (v >> 42) & 1; }
uint32_t packed_lane(uint64_t v) { return uint32_t(v >> 16) & 31; }
uint32_t packed_warp(uint64_t v) { return uint32_t(v >> 21) & 31; }
uint32_t packed_time(uint64_t v) { return uint32_t(v >> 26) & 0xffff; }
uint32_t packed_block(uint64_t v) { return uint32_t(v >> 43); }  // block + 1 (modulo)

// Two strong accesses are morally strong and form no data race (PTX ISA 8.x
// memory consistency model), but two volatile ones still leave their order
// open: the pre-Volta warp-synchronous reduction is volatile throughout and
// wrong since Volta. So a strong pair is exempt from the race checks only
// where one side synchronises (an atomic, an .acquire or a .release): a spin
// on a flag that an atomic or a release sets, a lock word, a cuda::atomic_ref.
bool sync_pair(bool strong, bool sync, bool other_strong, bool other_sync) {
  return strong && other_strong && (sync || other_sync);
}

// Which array each memory instruction indexes (ptx/provenance.h): `space`
// Shared, the kernel's __shared__ arrays (index into Kernel::shared_vars);
// Global, the module's __device__ variables (index into Module::globals).
// -1 where the address is not known to index one array: not checked.
std::vector<int32_t> array_provenance(const ptx::Module& mod, const ptx::Kernel& k, ptx::Space space) {
  const std::vector<ptx::VarDecl>& vars = space == ptx::Space::Shared ? k.shared_vars : mod.globals;
  const uint64_t base = space == ptx::Space::Shared ? 0 : ptx::kGlobalBase;
  ptx::RootSeeds seeds;
  seeds.operand = [&](const ptx::Operand& o) -> int32_t {
    if (o.space != space) return ptx::kNoRoot;
    for (size_t i = 0; i < vars.size(); ++i) {
      const ptx::VarDecl& v = vars[i];
      if (space == ptx::Space::Global && v.space != ptx::Space::Global) continue;
      if (!v.is_extern && v.size && uint64_t(o.imm) >= base + v.offset && uint64_t(o.imm) < base + v.offset + v.size)
        return int32_t(i);
    }
    return ptx::kManyRoots;
  };
  std::vector<int32_t> at = ptx::address_roots(k, seeds, space);
  for (int32_t& r : at) r = r >= 0 ? r : -1;
  return at;
}

// A block-wide barrier: bar.sync / barrier.sync / bar.red with no thread count.
bool block_wide_barrier(const ptx::Instr& in) {
  return (in.op == ptx::Op::BarSync && (in.num_ops < 2 || in.ops[1].kind == ptx::OperandKind::None)) ||
         (in.op == ptx::Op::BarRed && (in.num_ops < 3 || in.ops[2].kind == ptx::OperandKind::None));
}

// The code a thread can run after leaving the barrier at `bar` (its
// successor onward along the control flow, the barrier itself excluded), and
// later in the PTX than the barrier: "past the barrier". A thread that runs
// there without having arrived skipped it. The "later in the PTX" half keeps
// a loop's body before its barrier out (a thread that returns from there
// returned before the barrier), and cold blocks the compiler moved to the
// end out (not reached from the barrier).
std::vector<bool> after_barrier(const ptx::Kernel& k, uint32_t bar) {
  std::vector<bool> seen(k.code.size(), false);
  std::vector<uint32_t> work;
  auto push = [&](uint32_t pc) {
    if (pc < k.code.size() && pc != bar && !seen[pc]) seen[pc] = true, work.push_back(pc);
  };
  push(bar + 1);
  while (!work.empty()) {
    const uint32_t pc = work.back();
    work.pop_back();
    const ptx::Instr& in = k.code[pc];
    const bool guarded = in.guard != ptx::kNoReg;
    if (in.op == ptx::Op::Bra) {
      if (in.target >= 0) push(uint32_t(in.target));
      if (guarded) push(pc + 1);
    } else if (in.op == ptx::Op::Ret || in.op == ptx::Op::Exit) {
      if (guarded) push(pc + 1);
    } else {
      push(pc + 1);
    }
  }
  for (uint32_t pc = 0; pc <= bar && pc < seen.size(); ++pc) seen[pc] = false;
  return seen;
}

std::shared_ptr<LaunchShadow> launch_shadow_for(const CheckContext& ctx) {
  static std::mutex mutex;
  static std::vector<std::shared_ptr<LaunchShadow>> cache;  // the few most recent launches
  std::lock_guard lock(mutex);
  for (auto& s : cache)
    if (s->id == ctx.launch_id) return s;
  auto s = std::make_shared<LaunchShadow>();
  s->id = ctx.launch_id;
  s->cross_block = !ctx.cooperative;
  for (const ptx::Instr& in : ctx.kernel->code)
    if (in.op == ptx::Op::Membar || in.op == ptx::Op::Fence) s->cross_block = false;
  if (ctx.memory) {
    s->lo = GlobalMemory::arena_base();
    s->words = (ctx.memory->arena_bytes() + 3) / 4;
    s->page_count = size_t((s->words + kPageWords - 1) / kPageWords);
    s->pages = std::make_unique<std::atomic<RaceSlot*>[]>(s->page_count);
    for (size_t i = 0; i < s->page_count; ++i) s->pages[i].store(nullptr);
  }
  s->shared_var = array_provenance(*ctx.module, *ctx.kernel, ptx::Space::Shared);
  s->global_var = array_provenance(*ctx.module, *ctx.kernel, ptx::Space::Global);
  for (uint32_t pc = 0; pc < ctx.kernel->code.size(); ++pc)
    if (block_wide_barrier(ctx.kernel->code[pc])) {
      s->after_barrier.resize(ctx.kernel->code.size());
      s->after_barrier[pc] = after_barrier(*ctx.kernel, pc);
      s->has_block_barriers = true;
    }
  if (cache.size() >= 4) cache.erase(cache.begin());
  cache.push_back(s);
  return s;
}

// [SHADOW] ------------------------------------------------------------------------
// Per shared byte: the last write, the latest read and the latest read by a
// warp other than that reader's, each tagged with its warp's time
// (happens_before.h; 0 = none) and the thread (warp * 32 + lane) that made it.
struct Cell {
  uint32_t w_time = 0;
  uint32_t r_time = 0;
  uint32_t r2_time = 0;
  uint16_t w_wsync = 0;  // the writer's warp's __syncwarp count at the write (intra-warp order)
  uint16_t r_wsync = 0;
  uint32_t w_pc = 0;
  uint32_t r_pc = 0;
  uint32_t r2_pc = 0;
  uint16_t w_tid = 0;
  uint16_t r_tid = 0;
  uint16_t r2_tid = 0;
  uint16_t flags = 0;
};
enum : uint16_t {
  kWritten = 1, kAtomicWrite = 2, kAsyncPending = 8,
  kStrongWrite = 16, kStrongRead = 32, kStrongRead2 = 64,  // that access was strong (atomic, volatile, ...)
  kSyncWrite = 128, kSyncRead = 256, kSyncRead2 = 512,     // ... and synchronising (sync_pair)
};

// A read of shared bytes nothing had written. Reported at block end unless
// another warp, unordered with it, writes those bytes: then the read raced
// ahead of the write, and the race report says so instead.
struct PendingRead {
  uint32_t pc, warp, lane, time;
  uint64_t offset;
  bool cancelled = false;
};

// [CHECKER] -----------------------------------------------------------------------
class Sanitizer final : public BlockChecker {
 public:
  explicit Sanitizer(const CheckContext& ctx) : ctx_(ctx), k_(*ctx.kernel) {}

  void on_block_start() override {
    const BlockState& B = *ctx_.block;
    if (ctx_.memory) global_ = global_shadow_for(*ctx_.memory);
    thread_local std::vector<Cell> cells;  // reused: one block at a time per worker
    // A cooperative launch's blocks take turns on one worker: each keeps its own.
    cells_ = ctx_.cooperative ? &own_cells_ : &cells;
    cells_->assign(B.shared_bytes, Cell{});
    hb_.reset(uint32_t(B.warps.size()));
    wsync_.assign(B.warps.size(), 0);
    wait_pc_.assign(B.warps.size(), 0);
    waiting_ = 0;
    skipped_.assign(B.warps.size(), Skip{});
    launch_ = launch_shadow_for(ctx_);
    for (auto& t : barriers_) {
      t.arrivals.assign(B.warps.size(), 0);
      t.gen_pc.clear();
      t.counted = false;
    }
    named_barriers_ = false;
    sync_ops_ = false;
    for (const ptx::Instr& in : k_.code) {
      if (in.op == ptx::Op::BarArrive) named_barriers_ = true;
      if (in.op == ptx::Op::BarSync && in.num_ops > 1 && in.ops[1].kind != ptx::OperandKind::None) named_barriers_ = true;
      if (in.op == ptx::Op::BarRed && in.num_ops > 2 && in.ops[2].kind != ptx::OperandKind::None) named_barriers_ = true;
      if (in.op == ptx::Op::Membar || in.op == ptx::Op::Fence || (in.flags & (ptx::kFlagAcquire | ptx::kFlagRelease)))
        sync_ops_ = true;
    }
  }

  uint32_t on_access(const MemoryAccess& a) override {
    // Producer/consumer kernels (named barriers with counts, bar.arrive) wait
    // at barriers others pass by on purpose: no skipped-barrier check there.
    if (!named_barriers_ && launch_ && launch_->has_block_barriers) skipped_barrier(a);
    if (a.space == ptx::Space::Shared) {
      shared_array_bounds(a);
      shared_access(a);
    } else if (a.space == ptx::Space::Global) {
      device_variable_bounds(a);
      if (global_) global_access(a);
      if (!a.is_atomic && launch_ && launch_->page_count) global_race(a);
    }
    if (a.is_write && !a.is_atomic && a.lane_value &&
        (a.space == ptx::Space::Shared || a.space == ptx::Space::Global))
      same_instruction_writes(a);
    if (sync_ops_ && a.is_strong && !a.is_async && (a.space == ptx::Space::Shared || a.space == ptx::Space::Global))
      lock_order(a);
    return a.mask;
  }

  // Releases and acquires through this strong access (happens_before.h).
  void lock_order(const MemoryAccess& a) {
    uint64_t keys[32];
    uint32_t n = 0;
    const uint64_t tag = a.space == ptx::Space::Shared ? 1ull << 63 : 0;
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint64_t k = a.lane_addr[std::countr_zero(m)] | tag;
      if (std::find(keys, keys + n, k) == keys + n) keys[n++] = k;
    }
    hb_.strong_access(a.warp, keys, n, !a.is_write || a.is_atomic, a.is_write, a.is_acquire, a.is_release);
  }

  void on_barrier_complete(uint32_t id) override {
    hb_.barrier_complete(id);
    waiting_ = 0;  // re-read from the warps' states (others may still wait at another barrier)
    for (const WarpState& w : ctx_.block->warps)
      if (w.status == WarpStatus::AtBarrier && w.barrier_id != id) waiting_ |= 1u << (w.index & 31);
  }
  void on_mbarrier_arrive(uint32_t pc, uint32_t warp) override { hb_.publish(warp); }
  void on_fence(uint32_t pc, uint32_t warp) override { hb_.fence(warp); }

  void on_barrier(uint32_t pc, uint32_t warp, uint32_t id, uint32_t arrived, uint32_t live) override {
    const ptx::Instr& in = k_.code[pc];
    if (warp < skipped_.size()) {
      // Lanes that ran on ahead of waiting threads and now arrive were late, not skipping.
      wait_pc_[warp] = pc;
      if (in.op != ptx::Op::BarArrive) waiting_ |= 1u << (warp & 31);
      skipped_[warp].lanes &= ~arrived;
    }
    if ((arrived & live) != live) {
      // bar.sync is .aligned: every non-exited thread of a warp executes the
      // same barrier instruction (PTX ISA 9.7.13.4).
      ctx_.report("barrier-divergence",
                  fmt::format("__syncthreads()/bar.sync reached by lanes {} of warp {} while lanes {} of the same warp, "
                              "still running, did not reach it: a barrier inside a branch that splits the warp",
                              lane_list(arrived), warp, lane_list(live & ~arrived)),
                  pc, warp, uint32_t(std::countr_zero(live & ~arrived)));
    }
    const bool has_count = in.op == ptx::Op::BarArrive ||
                           (in.op == ptx::Op::BarSync && in.ops[1].kind != ptx::OperandKind::None) ||
                           (in.op == ptx::Op::BarRed && in.ops[2].kind != ptx::OperandKind::None);
    if (id >= barriers_.size() || warp >= wsync_.size()) return;
    hb_.barrier_arrive(id, warp, in.op != ptx::Op::BarArrive);
    BarrierTrack& t = barriers_[id];
    if (has_count) {
      t.counted = true;
      return;
    }
    uint32_t n = t.arrivals[warp]++;
    if (n < t.gen_pc.size()) {
      uint32_t first = t.gen_pc[n];
      if (first != pc && source_line(k_, first) != source_line(k_, pc))
        ctx_.report("barrier-divergence",
                    fmt::format("warp {} waits at the barrier at {} while other warps wait at the barrier at {}: every "
                                "thread of the block must reach the same __syncthreads()",
                                warp, where(k_, pc), where(k_, first)),
                    pc, warp, uint32_t(std::countr_zero(arrived | (arrived ? 0 : 1))));
    } else {
      t.gen_pc.push_back(pc);
    }
  }

  // A completed mbarrier wait orders the warp after the arrivals (PTX ISA
  // 9.7.13.15: the wait has acquire semantics, the arrives release), which
  // is how cuda::barrier and memcpy_async hand data between warps; its lanes
  // pass their last __syncwarp too.
  void on_mbarrier_wait(uint32_t pc, uint32_t warp) override {
    hb_.acquire_published(warp);
    if (warp < wsync_.size()) ++wsync_[warp];
  }

  void on_warp_sync(uint32_t pc, uint32_t warp, uint32_t member, uint32_t active) override {
    const BlockState& B = *ctx_.block;
    if (warp >= B.warps.size() || pc >= k_.code.size()) return;
    const WarpState& w = B.warps[warp];
    const ptx::Op op = k_.code[pc].op;
    // __syncwarp orders the memory accesses of the lanes it joins (CUDA
    // Programming Guide, __syncwarp): the intra-warp race check's epoch.
    if (op == ptx::Op::BarWarpSync && warp < wsync_.size()) ++wsync_[warp];
    const uint32_t absent = member & ~w.exists;
    const uint32_t exited = member & w.exists & ~w.live;
    // __syncwarp may pair lanes waiting at different call sites (sm_70+), so a
    // member lane elsewhere is not an error for bar.warp.sync.
    const uint32_t elsewhere = op == ptx::Op::BarWarpSync ? 0 : member & w.live & ~active;
    const uint32_t outside = active & ~member;
    if (!(absent | exited | elsewhere | outside)) return;
    // "shfl.sync (__shfl*_sync)": names from the opcode table (lab/ptx/opcodes.def).
    const ptx::OpInfo& info = ptx::op_info(op);
    const std::string name = *info.cuda ? fmt::format("{} ({})", info.name, info.cuda) : std::string(info.name);
    std::string why;
    if (absent) why = fmt::format("lanes {} are not threads of the block (the block's last warp is partial)", lane_list(absent));
    else if (exited) why = fmt::format("lanes {} have already exited (an early return before the warp operation?)", lane_list(exited));
    else if (elsewhere) why = fmt::format("lanes {} do not execute it (it sits in a branch that splits the warp, or they returned early)", lane_list(elsewhere));
    else why = fmt::format("lanes {} execute it but are not in the mask", lane_list(outside));
    uint32_t lane = uint32_t(std::countr_zero(active | (active ? 0 : 1)));
    ctx_.report("invalid-mask",
                fmt::format("{} with member mask 0x{:08x} in warp {}: {}; the mask must name exactly the lanes that "
                            "execute it together (use __activemask() or a __ballot_sync() of the condition)",
                            name, member, warp, why),
                pc, warp, lane);
  }

  void on_block_end() override {
    for (uint32_t w = 0; w < skipped_.size(); ++w) {
      const Skip& sk = skipped_[w];
      if (!sk.lanes) continue;
      const std::string waiters = sk.waiting == 0xffffffffu ? fmt::format("warp {}", sk.waiter)
                                                            : fmt::format("lanes {} of warp {}", lane_list(sk.waiting), sk.waiter);
      ctx_.report("barrier-divergence",
                  fmt::format("{} waited at the __syncthreads() at {} while lanes {} of warp {}, which never reached it, "
                              "ran on past it (to {}): a __syncthreads() in conditional code must be reached by every "
                              "thread of the block (CUDA Programming Guide), so the condition must be the same for all",
                              waiters, where(k_, sk.barrier_pc), lane_list(sk.lanes), w, where(k_, sk.pc)),
                  sk.barrier_pc, w, uint32_t(std::countr_zero(sk.lanes)));
    }
    for (const PendingRead& p : pending_) {
      if (p.cancelled) continue;
      ctx_.report("uninitialized-read",
                  fmt::format("thread {} (warp {}, lane {}) reads shared memory {} that no thread of the block wrote",
                              p.warp * kWarpSize + p.lane, p.warp, p.lane, shared_name(k_, p.offset)),
                  p.pc, p.warp, p.lane);
    }
    pending_.clear();
    pending_at_.clear();
    // No check that every warp passed as many barriers as the others: a warp
    // that exits is no longer waited for (PTX ISA, `exit`: "If the exiting
    // threads are holding up the barrier, the barrier is released"; `barrier`:
    // it waits for the non-exited threads), so whole warps returning before a
    // __syncthreads() are correct. Live lanes skipping a barrier and warps
    // pairing up at different barriers are still reported (on_barrier).
  }

 private:
  // Lanes of a warp that accessed memory past a barrier other threads were
  // waiting at, without having arrived there (yet).
  struct Skip {
    uint32_t lanes = 0;
    uint32_t pc = 0;          // the first such access
    uint32_t barrier_pc = 0;  // the barrier they passed by
    uint32_t waiter = 0;      // a warp waiting there
    uint32_t waiting = 0;     // its lanes that wait
  };

  // Independent thread scheduling lets threads that skipped a barrier run on
  // while others wait at it, until they exit and so release it (simt.h): a
  // kernel that finishes, silently ordered wrong. An access past a barrier
  // (after_barrier) by lanes that have not arrived while other lanes wait
  // there is noted; arriving at a barrier later clears it (those lanes were
  // only behind); what is left at block end skipped the barrier.
  void skipped_barrier(const MemoryAccess& a) {
    const BlockState& B = *ctx_.block;
    if (a.warp >= B.warps.size()) return;
    const WarpState& self = B.warps[a.warp];
    const uint32_t others = waiting_ & ~(1u << (a.warp & 31));
    if (!others && !self.parked) return;
    auto past = [&](uint32_t bar) {
      if (bar >= launch_->after_barrier.size()) return false;
      const std::vector<bool>& after = launch_->after_barrier[bar];
      return a.pc < after.size() && after[a.pc];
    };
    auto note = [&](uint32_t bar, uint32_t waiter, uint32_t waiting) {
      Skip& sk = skipped_[a.warp];
      if (!sk.lanes) sk = Skip{0, a.pc, bar, waiter, waiting};
      sk.lanes |= a.mask;
    };
    if (self.parked && past(self.parked_pc)) return note(self.parked_pc, a.warp, self.parked);
    uint32_t last = UINT32_MAX;  // waiting warps mostly share one barrier: test each pc once
    for (uint32_t m = others; m; m &= m - 1) {
      const uint32_t wi = uint32_t(std::countr_zero(m));
      if (wi >= B.warps.size() || wait_pc_[wi] == last) continue;
      last = wait_pc_[wi];
      if (past(last)) return note(last, wi, B.warps[wi].barrier_arrived);
    }
  }

  struct BarrierTrack {
    std::vector<uint32_t> arrivals;  // per warp: arrivals at this barrier id
    std::vector<uint32_t> gen_pc;    // per barrier instance: pc of its first arrival
    bool counted = false;            // used with a thread count: not block-wide
  };

  static uint32_t warp_of(uint16_t tid) { return tid / kWarpSize; }

  void race(const char* kind_of_hazard, const MemoryAccess& a, uint32_t lane, uint64_t off, uint16_t other_tid,
            uint32_t other_pc, const char* other_did) {
    ctx_.report("race",
                fmt::format("shared-memory {} hazard on {}: thread {} (warp {}) {} it at {}, and thread {} (warp {}) "
                            "{} it at {}, with no __syncthreads() between them",
                            kind_of_hazard, shared_name(k_, off), other_tid, warp_of(other_tid), other_did,
                            where(k_, other_pc), a.warp * kWarpSize + lane, a.warp,
                            a.is_atomic ? "atomically updates" : a.is_write ? "writes" : "reads", where(k_, a.pc)),
                a.pc, a.warp, lane);
  }

  void lane_race(const char* kind_of_hazard, const MemoryAccess& a, uint32_t lane, uint64_t off, uint16_t other_tid,
                 uint32_t other_pc, const char* other_did) {
    ctx_.report("race",
                fmt::format("shared-memory {} hazard between lanes of one warp on {}: thread {} (warp {}, lane {}) {} it "
                            "at {}, and thread {} (lane {}) {} it at {}, with no __syncwarp() between them; since Volta "
                            "the lanes of a warp do not run in lockstep (independent thread scheduling), so put "
                            "__syncwarp() between the steps",
                            kind_of_hazard, shared_name(k_, off), other_tid, a.warp, other_tid % kWarpSize, other_did,
                            where(k_, other_pc), a.warp * kWarpSize + lane, lane, a.is_write ? "writes" : "reads",
                            where(k_, a.pc)),
                a.pc, a.warp, lane);
  }

  // An access through an index into shared array A that lands in another
  // array (or the padding between): in bounds of the shared window, so a GPU
  // (and compute-sanitizer's memcheck) says nothing and the kernel quietly
  // reads or corrupts its neighbour. Which array was indexed comes from the
  // PTX (array_provenance above).
  void shared_array_bounds(const MemoryAccess& a) {
    if (!launch_ || a.pc >= launch_->shared_var.size()) return;
    const int32_t vi = launch_->shared_var[a.pc];
    if (vi < 0 || size_t(vi) >= k_.shared_vars.size()) return;
    const ptx::VarDecl& v = k_.shared_vars[size_t(vi)];
    const uint64_t window = cells_ ? cells_->size() : 0;
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint32_t lane = uint32_t(std::countr_zero(m));
      const uint64_t off = a.lane_addr[lane];
      if (off >= v.offset && off + a.bytes <= v.offset + v.size) continue;
      if (off + a.bytes > window) continue;  // outside the window: the interpreter reports it itself
      const bool past = off >= v.offset + v.size;
      const uint64_t by = past ? off + a.bytes - (v.offset + v.size) : v.offset - off;
      ctx_.report("out-of-bounds",
                  fmt::format("thread {} (warp {}) {} {} through an index into '{}' ({} bytes): the index runs {} bytes "
                              "{} '{}' into {}; the access stays inside shared memory, so a GPU would silently use the "
                              "neighbouring data (check the index's range)",
                              a.warp * kWarpSize + lane, a.warp, a.is_atomic ? "updates" : a.is_write ? "writes" : "reads",
                              shared_name(k_, off), plain_name(v.name), v.size, by,
                              past ? "past the end of" : "before the start of", plain_name(v.name),
                              shared_name(k_, off)),
                  a.pc, a.warp, lane);
      return;
    }
  }

  // The same for a module's __device__ variables, which lie side by side in
  // its global segment: an index that runs out of one lands in the next.
  void device_variable_bounds(const MemoryAccess& a) {
    if (!launch_ || a.pc >= launch_->global_var.size() || !ctx_.module) return;
    const int32_t vi = launch_->global_var[a.pc];
    if (vi < 0 || size_t(vi) >= ctx_.module->globals.size()) return;
    const ptx::VarDecl& v = ctx_.module->globals[size_t(vi)];
    const uint64_t lo = ptx::kGlobalBase + v.offset, hi = lo + v.size;
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint32_t lane = uint32_t(std::countr_zero(m));
      const uint64_t x = a.lane_addr[lane];
      if (x >= lo && x + a.bytes <= hi) continue;
      const bool past = x >= hi;
      const uint64_t by = past ? x + a.bytes - hi : lo - x;
      std::string into = "the padding between variables";
      for (const ptx::VarDecl& o : ctx_.module->globals)
        if (o.size && x >= ptx::kGlobalBase + o.offset && x < ptx::kGlobalBase + o.offset + o.size)
          into = fmt::format("'{}' (byte {})", o.name, x - (ptx::kGlobalBase + o.offset));
      ctx_.report("out-of-bounds",
                  fmt::format("thread {} (warp {}) {} through an index into the __device__ variable '{}' ({} bytes): "
                              "the index runs {} bytes {} '{}' into {}; the module's variables lie side by side in "
                              "global memory, so a GPU would silently use the neighbouring data (check the index's range)",
                              a.warp * kWarpSize + lane, a.warp, a.is_atomic ? "updates" : a.is_write ? "writes" : "reads",
                              v.name, v.size, by, past ? "past the end of" : "before the start of", v.name, into),
                  a.pc, a.warp, lane);
      return;
    }
  }

  bool warp_collective(uint32_t pc) const {
    if (pc >= k_.code.size()) return false;
    switch (k_.code[pc].op) {
      case ptx::Op::WmmaLoadA: case ptx::Op::WmmaLoadB: case ptx::Op::WmmaLoadC: case ptx::Op::WmmaStoreD:
      case ptx::Op::Ldmatrix: case ptx::Op::Stmatrix: return true;
      default: return false;
    }
  }

  bool conflicts(uint64_t old, uint64_t me) const {
    if (!old || sync_pair(packed_strong(me), packed_sync(me), packed_strong(old), packed_sync(old))) return false;
    if (packed_block(old) != packed_block(me)) return launch_->cross_block;
    return !hb_.ordered(packed_warp(old), packed_time(old), packed_warp(me));
  }

  void global_race_report(const char* hazard, const MemoryAccess& a, uint32_t lane, uint64_t addr, uint64_t other,
                          const char* other_did) {
    const Buffer* buf = ctx_.memory ? ctx_.memory->find(addr) : nullptr;
    std::string what = buf ? fmt::format("buffer '{}' at byte {}", buf->name, addr - buf->address)
                           : fmt::format("global address 0x{:x}", addr);
    const uint32_t ob = packed_block(other) - 1, mb = ctx_.block->linear;
    const bool same_block = packed_block(other) == packed_block(pack_access(mb, 0, 0, 0, 0));
    ctx_.report("race",
                fmt::format("global-memory {} race on {}: thread {} of block {} {} it at {}, and thread {} of block {} "
                            "{} it at {}, with nothing ordering them ({}); use an atomic, or split the work so each "
                            "element has one writer",
                            hazard, what, packed_warp(other) * kWarpSize + packed_lane(other), ob, other_did,
                            where(k_, packed_pc(other)), a.warp * kWarpSize + lane, mb,
                            a.is_write ? "writes" : "reads", where(k_, a.pc),
                            same_block ? "different warps of a block are ordered only by a barrier they share, an mbarrier wait, or a lock's release and acquire"
                                       : "the blocks of one launch run in any order, even at once"),
                a.pc, a.warp, lane);
  }

  void global_race(const MemoryAccess& a) {
    const uint32_t block = ctx_.block->linear;
    const uint32_t now = hb_.time(a.warp);
    bool reported = false;
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint32_t lane = uint32_t(std::countr_zero(m));
      const uint64_t addr = a.lane_addr[lane];
      const uint64_t me = pack_access(block, a.warp, lane, now, a.pc, a.is_strong, a.is_acquire || a.is_release);
      for (uint64_t w = addr & ~uint64_t(3); w < addr + a.bytes; w += 4) {
        RaceSlot* slot = launch_->slot(w);
        if (!slot) break;
        const uint64_t old_w = slot->w.load(std::memory_order_relaxed);
        if (a.is_write) {
          if (!reported && conflicts(old_w, me) && !same_value_stored(a, lane, addr)) {
            global_race_report("write-after-write", a, lane, addr, old_w, "writes");
            reported = true;
          } else if (!reported) {
            const uint64_t old_r = slot->r.load(std::memory_order_relaxed);
            if (conflicts(old_r, me)) {
              global_race_report("write-after-read", a, lane, addr, old_r, "reads");
              reported = true;
            }
          }
          slot->w.store(me, std::memory_order_relaxed);
        } else {
          if (!reported && conflicts(old_w, me)) {
            global_race_report("read-after-write", a, lane, addr, old_w, "writes");
            reported = true;
          }
          slot->r.store(me, std::memory_order_relaxed);
        }
      }
    }
  }

  // Storing the value already there (many threads setting one flag to 1) is
  // a race by the letter of the memory model but harmless: not reported.
  // `now`: the bytes memory holds, read before the store lands.
  static bool stores_what_is_there(const MemoryAccess& a, uint32_t lane, uint64_t now) {
    const uint64_t mask = a.bytes >= 8 ? ~0ull : (1ull << (8 * a.bytes)) - 1;
    return ((now ^ a.lane_value[lane]) & mask) == 0;
  }
  bool same_value_stored(const MemoryAccess& a, uint32_t lane, uint64_t addr) const {
    if (!a.lane_value || !ctx_.memory || a.bytes > 8) return false;
    uint64_t now = 0;
    ctx_.memory->read(addr, &now, a.bytes);
    return stores_what_is_there(a, lane, now);
  }
  // The same for shared memory: warps that all set a shared flag to 1.
  bool same_value_in_shared(const MemoryAccess& a, uint32_t lane, uint64_t off) const {
    const BlockState& B = *ctx_.block;
    if (!a.lane_value || a.bytes > 8 || off + a.bytes > B.shared.size()) return false;
    uint64_t now = 0;
    std::memcpy(&now, B.shared.data() + off, a.bytes);
    return stores_what_is_there(a, lane, now);
  }

  void shared_access(const MemoryAccess& a) {
    std::vector<Cell>& cells = *cells_;
    if (a.is_async) return async_issued(a);
    const uint32_t now = hb_.time(a.warp);
    const uint32_t* seen = hb_.row(a.warp);  // seen[y]: warp y's accesses before this time are ordered
    const uint16_t ws = wsync_[a.warp];
    const bool reads = !a.is_write || a.is_atomic;
    const bool writes = a.is_write;
    const bool strong = a.is_strong;
    const bool sync = a.is_atomic || a.is_acquire || a.is_release;
    auto exempt = [&](const Cell& c, uint16_t strong_bit, uint16_t sync_bit) {
      return sync_pair(strong, sync, c.flags & strong_bit, c.flags & sync_bit);
    };
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint32_t lane = uint32_t(std::countr_zero(m));
      const uint16_t tid = uint16_t(a.warp * kWarpSize + lane);
      const uint64_t off = a.lane_addr[lane];
      if (off >= cells.size()) continue;
      const uint64_t end = std::min<uint64_t>(off + a.bytes, cells.size());
      bool reported = false, uninit = false;
      int same = -1;  // same_value_in_shared, asked only when a write would be reported
      // The bytes of one lane's access mostly share one history (written and
      // read together). A byte whose cell holds what the first byte's held
      // before this access would be judged alike and updated alike (nothing
      // below depends on the byte's position but the pending reads and
      // copies, excluded here), so it takes the first byte's new cell, and a
      // 4-byte access pays for the checks once, not four times.
      Cell first_before;
      for (uint64_t b = off; b < end; ++b) {
        Cell& c = cells[b];
        if (b == off) {
          first_before = c;
        } else if (!(first_before.flags & kAsyncPending) && pending_at_.empty() &&
                   std::memcmp(&c, &first_before, sizeof(Cell)) == 0) {
          c = cells[off];
          continue;
        }
        if ((c.flags & kAsyncPending) && async_touched(a, lane, b)) {
          reported = true;
          continue;
        }
        if (reads && !(c.flags & kWritten)) uninit = true;
        if (!reported && !a.is_atomic) {
          // Lanes of one warp: since Volta they are not in lockstep
          // (independent thread scheduling), so a value one lane wrote is
          // visible to another lane of its warp only after __syncwarp() (or a
          // barrier). The interpreter runs them in step, which would hide it.
          // An atomic write counts: atomicity orders the atomics among
          // themselves, not a plain read of another lane after them.
          bool lane_write = (c.flags & kWritten) && c.w_time == now && warp_of(c.w_tid) == a.warp &&
                            c.w_tid != tid && c.w_wsync == ws && !exempt(c, kStrongWrite, kSyncWrite);
          bool lane_read = writes && c.r_time == now && warp_of(c.r_tid) == a.warp && c.r_tid != tid &&
                           c.r_wsync == ws && !exempt(c, kStrongRead, kSyncRead);
          if (lane_write || lane_read) {
            // wmma/ldmatrix/stmatrix are .sync: the whole warp executes them together.
            const uint32_t other_pc = lane_write && !writes ? c.w_pc : c.r_pc;
            if (warp_collective(a.pc) || warp_collective(other_pc)) lane_write = lane_read = false;
          }
          if (!writes && lane_write) {
            lane_race("read-after-write", a, lane, b, c.w_tid, c.w_pc,
                      c.flags & kAtomicWrite ? "atomically updates" : "writes");
            reported = true;
          } else if (lane_read) {
            lane_race("write-after-read", a, lane, b, c.r_tid, c.r_pc, "reads");
            reported = true;
          }
        }
        if (!reported) {
          // Another warp's access that nothing orders before this one, unless both are strong.
          auto unordered = [&](uint16_t other, uint32_t time) {
            const uint32_t ow = warp_of(other);
            return time && ow != a.warp && time >= seen[ow];
          };
          const bool other_write = unordered(c.w_tid, c.w_time) && !exempt(c, kStrongWrite, kSyncWrite);
          const bool read1 = unordered(c.r_tid, c.r_time) && !exempt(c, kStrongRead, kSyncRead);
          const bool read2 = !read1 && unordered(c.r2_tid, c.r2_time) && !exempt(c, kStrongRead2, kSyncRead2);
          const uint16_t r_tid = read1 ? c.r_tid : c.r2_tid;
          const uint32_t r_pc = read1 ? c.r_pc : c.r2_pc;
          const char* w_did = c.flags & kAtomicWrite ? "atomically updates" : "writes";
          if (a.is_atomic) {
            if (other_write) {
              race("write-then-atomic", a, lane, b, c.w_tid, c.w_pc, w_did);
              reported = true;
            } else if (read1 || read2) {
              race("read-then-atomic", a, lane, b, r_tid, r_pc, "reads");
              reported = true;
            }
          } else if (writes && (other_write || read1 || read2) &&
                     (same < 0 ? (same = same_value_in_shared(a, lane, off)) : same)) {
            // the bytes keep their value: no reader can tell the order (same_value_stored)
          } else if (writes) {
            if (other_write) {
              race("write-after-write", a, lane, b, c.w_tid, c.w_pc, w_did);
              reported = true;
            } else if (read1 || read2) {
              race("write-after-read", a, lane, b, r_tid, r_pc, "reads");
              reported = true;
            }
          } else if (other_write) {
            race("read-after-write", a, lane, b, c.w_tid, c.w_pc, w_did);
            reported = true;
          }
        }
        if (writes) {
          if (!pending_at_.empty()) cancel_pending(b, a.warp);
          c.w_time = now;
          c.w_tid = tid;
          c.w_pc = a.pc;
          c.w_wsync = ws;
          c.flags = uint16_t((c.flags & (kStrongRead | kStrongRead2 | kSyncRead | kSyncRead2 | kAsyncPending)) |
                             kWritten | (a.is_atomic ? kAtomicWrite : 0) | (strong ? kStrongWrite : 0) |
                             (sync ? kSyncWrite : 0));
        }
        else {  // a plain read (an atomic's read is its write's)
          // Keep the previous reader when it is another warp's and not ordered
          // before this read (a reader ordered before it is covered by it).
          if (c.r_time && warp_of(c.r_tid) != a.warp && c.r_time >= seen[warp_of(c.r_tid)]) {
            c.r2_time = c.r_time;
            c.r2_tid = c.r_tid;
            c.r2_pc = c.r_pc;
            c.flags = uint16_t((c.flags & ~(kStrongRead2 | kSyncRead2)) | ((c.flags & kStrongRead) ? kStrongRead2 : 0) |
                               ((c.flags & kSyncRead) ? kSyncRead2 : 0));
          }
          c.r_time = now;
          c.r_tid = tid;
          c.r_pc = a.pc;
          c.r_wsync = ws;
          c.flags = uint16_t((c.flags & ~(kStrongRead | kSyncRead)) | (strong ? kStrongRead : 0) | (sync ? kSyncRead : 0));
        }
      }
      if (uninit) {
        // Bytes this very access writes (an atomic) were still unwritten before it.
        pending_.push_back(PendingRead{a.pc, a.warp, lane, now, off});
        for (uint64_t b = off; b < end; ++b) pending_at_[uint32_t(b)] = uint32_t(pending_.size() - 1);
      }
    }
  }

  // A cp.async issued: its destination bytes are in flight until the copy
  // completes (the interpreter reports that write at the wait).
  void async_issued(const MemoryAccess& a) {
    std::vector<Cell>& cells = *cells_;
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint32_t lane = uint32_t(std::countr_zero(m));
      const uint64_t off = a.lane_addr[lane];
      for (uint64_t b = off; b < std::min<uint64_t>(off + a.bytes, cells.size()); ++b) {
        cells[b].flags |= kAsyncPending;
        in_flight_[uint32_t(b)] = InFlight{a.pc, uint16_t(a.warp * kWarpSize + lane)};
      }
    }
  }

  // An access to a byte a cp.async is still copying into. Its own
  // completion ends the flight (returns false: the write is checked as any
  // write); any other access is a race with the copy (returns true).
  bool async_touched(const MemoryAccess& a, uint32_t lane, uint64_t byte) {
    Cell& c = (*cells_)[byte];
    const uint16_t tid = uint16_t(a.warp * kWarpSize + lane);
    auto it = in_flight_.find(uint32_t(byte));
    const InFlight f = it != in_flight_.end() ? it->second : InFlight{};
    if (a.is_write && f.pc == a.pc && f.tid == tid) {
      c.flags &= uint16_t(~kAsyncPending);
      in_flight_.erase(it);
      return false;
    }
    const bool same_thread = f.tid == tid;
    ctx_.report("race",
                fmt::format("thread {} (warp {}) {} {} at {} while the cp.async at {} ({}) is still copying into it: "
                            "the copy completes only at cp.async.wait_group / wait_all (__pipeline_wait_prior, "
                            "cuda::pipeline's consumer_wait){}",
                            tid, a.warp, a.is_write ? "writes" : "reads", shared_name(k_, byte), where(k_, a.pc),
                            where(k_, f.pc), same_thread ? "its own" : fmt::format("thread {}", f.tid),
                            same_thread ? "; wait before using the data"
                                        : "; wait, then __syncthreads() so other threads see the data"),
                a.pc, a.warp, lane);
    return true;
  }

  void cancel_pending(uint64_t byte, uint32_t warp) {
    auto it = pending_at_.find(uint32_t(byte));
    if (it == pending_at_.end()) return;
    PendingRead& p = pending_[it->second];
    if (!hb_.ordered(p.warp, p.time, warp)) p.cancelled = true;
    pending_at_.erase(it);
  }

  void global_access(const MemoryAccess& a) {
    const bool reads = !a.is_write || a.is_atomic;
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint32_t lane = uint32_t(std::countr_zero(m));
      const uint64_t addr = a.lane_addr[lane];
      const UninitBuffer* u = global_->find(addr);
      if (!u) continue;
      const uint64_t off = addr - u->address;
      const uint64_t end = std::min<uint64_t>(off + a.bytes, u->bytes);
      if (reads) {
        for (uint64_t b = off; b < end; ++b) {
          if (std::atomic_ref<uint8_t>(u->written[b]).load(std::memory_order_relaxed)) continue;
          ctx_.report("uninitialized-read",
                      fmt::format("thread {} (warp {}) reads {} bytes at offset {} of buffer '{}', which was created "
                                  "uninitialised (=uninit) and which no thread had written: initialise it (=zero) or "
                                  "write it before reading",
                                  a.warp * kWarpSize + lane, a.warp, a.bytes, off, u->name),
                      a.pc, a.warp, lane);
          break;
        }
      }
      if (a.is_write)
        for (uint64_t b = off; b < end; ++b)
          std::atomic_ref<uint8_t>(u->written[b]).store(1, std::memory_order_relaxed);
    }
  }

  // Lanes of one warp storing different values to one address in one
  // instruction: which value lands is undefined (CUDA Programming Guide,
  // "if a non-atomic instruction executed by a warp writes to the same
  // location for more than one of the threads of the warp, only one thread
  // performs a write and which thread does it is undefined").
  void same_instruction_writes(const MemoryAccess& a) {
    if (std::popcount(a.mask) < 2) return;
    const uint64_t value_mask = a.bytes >= 8 ? ~0ull : (1ull << (8 * a.bytes)) - 1;
    for (uint32_t mi = a.mask; mi; mi &= mi - 1) {
      const uint32_t i = uint32_t(std::countr_zero(mi));
      for (uint32_t mj = mi & (mi - 1); mj; mj &= mj - 1) {
        const uint32_t j = uint32_t(std::countr_zero(mj));
        if (a.lane_addr[i] != a.lane_addr[j]) continue;
        if (((a.lane_value[i] ^ a.lane_value[j]) & value_mask) == 0) continue;
        std::string what = a.space == ptx::Space::Shared ? shared_name(k_, a.lane_addr[i])
                                                          : fmt::format("global address 0x{:x}", a.lane_addr[i]);
        ctx_.report("race",
                    fmt::format("lanes {} and {} of warp {} store different values ({} and {}) to {} in the same "
                                "instruction: which one lands is undefined",
                                i, j, a.warp, a.lane_value[i] & value_mask, a.lane_value[j] & value_mask, what),
                    a.pc, a.warp, j);
        return;
      }
    }
  }

  CheckContext ctx_;
  const ptx::Kernel& k_;
  std::shared_ptr<GlobalShadow> global_;
  std::vector<Cell> own_cells_;  // the shared-memory shadow of a cooperative launch's block
  std::vector<Cell>* cells_ = nullptr;
  HappensBefore hb_;
  std::vector<uint16_t> wsync_;  // per warp: __syncwarp() calls so far
  std::shared_ptr<LaunchShadow> launch_;
  std::array<BarrierTrack, kMaxBarriers> barriers_;
  std::vector<uint32_t> wait_pc_;  // per warp: the barrier it last arrived at
  uint32_t waiting_ = 0;           // warps (bits) waiting at a barrier now
  std::vector<Skip> skipped_;      // per warp
  bool named_barriers_ = false;  // bar.arrive or a barrier with a thread count
  bool sync_ops_ = false;        // fences or acquire/release operations: locks to follow
  struct InFlight {
    uint32_t pc = 0;
    uint16_t tid = 0;
  };
  std::unordered_map<uint32_t, InFlight> in_flight_;  // shared byte -> the cp.async copying into it
  std::vector<PendingRead> pending_;
  std::unordered_map<uint32_t, uint32_t> pending_at_;  // shared byte -> its latest pending read
};

}  // namespace

std::unique_ptr<BlockChecker> make_sanitizer(const CheckContext& ctx) { return std::make_unique<Sanitizer>(ctx); }

// [LOOPS] ---------------------------------------------------------------------------
std::string describe_loop(const ptx::Module& module, const ptx::Kernel& k, uint32_t pc) {
  // The innermost loop around pc: the shortest backward branch j -> t with t <= pc <= j.
  int64_t best_t = -1, best_j = -1;
  for (uint32_t j = pc; j < k.code.size(); ++j) {
    const ptx::Instr& in = k.code[j];
    if (in.op != ptx::Op::Bra || in.target < 0 || uint32_t(in.target) > pc) continue;
    if (best_j < 0 || j - uint32_t(in.target) < uint64_t(best_j - best_t)) { best_t = in.target; best_j = j; }
  }
  if (best_j < 0) return "";
  uint32_t lo = UINT32_MAX, hi = 0, file = 0;
  for (int64_t i = best_t; i <= best_j; ++i) {
    const ptx::Instr& in = k.code[size_t(i)];
    if (!in.loc || in.loc >= k.locs.size() || !k.locs[in.loc].line) continue;
    lo = std::min(lo, k.locs[in.loc].line);
    hi = std::max(hi, k.locs[in.loc].line);
    file = k.locs[in.loc].file;
  }
  uint32_t plo = k.code[size_t(best_t)].ptx_line, phi = k.code[size_t(best_j)].ptx_line;
  std::string fname = file < module.files.size() ? module.files[file] : "";
  if (lo == UINT32_MAX) return fmt::format("it was looping over PTX lines {}-{}", plo, phi);
  std::string lines = lo == hi ? fmt::format("line {}", lo) : fmt::format("lines {}-{}", lo, hi);
  return fmt::format("it was looping in the loop at {}{} (PTX lines {}-{})", lines,
                     fname.empty() ? "" : " of " + fname, plo, phi);
}

}  // namespace lab::sim
