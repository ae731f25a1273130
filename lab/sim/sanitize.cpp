// lab/sim/sanitize.cpp: the kernel checks (see sanitize.h for what each finds).
//
// Index
//   [NAMES]    source lines and shared-variable names for messages
//   [GLOBAL]   launch-wide "written" bits of buffers created uninitialised
//   [SHADOW]   per-byte shadow state of the block's shared memory
//   [CHECKER]  the BlockChecker: accesses, barriers, warp syncs, block end
//   [LOOPS]    describe_loop for hang reports
//
// Happens-before model. A warp's epoch is the number of block-wide barriers
// (bar.sync/barrier.sync/bar.red without a thread count) it has passed.
// Barrier k completes only when every warp arrived at it, so an access made
// by warp A in epoch e happens before every access another warp makes in an
// epoch > e; two accesses by different warps in the same epoch are
// unordered. Lanes of one warp execute in step in this interpreter, so
// accesses of one warp in different instructions are ordered (as they would
// be on hardware only with __syncwarp; the checker stays silent there rather
// than guess). Kernels with named barriers that carry a thread count or with
// bar.arrive (producer/consumer) get no race check: the epoch model does not
// describe them, and no report beats a wrong one.
#include "lab/sim/sanitize.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "lab/sim/warp.h"

namespace lab::sim {
namespace {

// [NAMES] -------------------------------------------------------------------------
uint32_t source_line(const ptx::Kernel& k, uint32_t pc) {
  if (pc >= k.code.size()) return 0;
  uint32_t loc = k.code[pc].loc;
  return loc && loc < k.locs.size() ? k.locs[loc].line : 0;
}

// "line 12" (the .cu line) or "PTX line 40" when the PTX has no .loc.
std::string where(const ptx::Kernel& k, uint32_t pc) {
  if (uint32_t line = source_line(k, pc)) return fmt::format("line {}", line);
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

// [SHADOW] ------------------------------------------------------------------------
// Per shared byte: the last write and the reads since, each tagged with the
// epoch (+1; 0 = none) and the thread (warp * 32 + lane) that made it.
struct Cell {
  uint32_t w_epoch = 0;
  uint32_t r_epoch = 0;
  uint32_t w_pc = 0;
  uint32_t r_pc = 0;
  uint16_t w_tid = 0;
  uint16_t r_tid = 0;
  uint8_t flags = 0;
};
enum : uint8_t { kWritten = 1, kAtomicWrite = 2, kManyReaders = 4 };

// A read of shared bytes nothing had written. Reported at block end unless
// another warp writes those bytes in the same epoch: then the read raced
// ahead of the write, and the race report says so instead.
struct PendingRead {
  uint32_t pc, warp, lane, epoch;
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
    cells.assign(B.shared_bytes, Cell{});
    cells_ = &cells;
    epoch_.assign(B.warps.size(), 0);
    for (auto& t : barriers_) {
      t.arrivals.assign(B.warps.size(), 0);
      t.gen_pc.clear();
      t.counted = false;
    }
    races_ = true;
    for (const ptx::Instr& in : k_.code) {
      if (in.op == ptx::Op::BarArrive) races_ = false;
      if (in.op == ptx::Op::BarSync && in.num_ops > 1 && in.ops[1].kind != ptx::OperandKind::None) races_ = false;
      if (in.op == ptx::Op::BarRed && in.num_ops > 2 && in.ops[2].kind != ptx::OperandKind::None) races_ = false;
    }
  }

  uint32_t on_access(const MemoryAccess& a) override {
    if (a.space == ptx::Space::Shared) shared_access(a);
    else if (a.space == ptx::Space::Global && global_) global_access(a);
    if (a.is_write && !a.is_atomic && a.lane_value &&
        (a.space == ptx::Space::Shared || a.space == ptx::Space::Global))
      same_instruction_writes(a);
    return a.mask;
  }

  void on_barrier(uint32_t pc, uint32_t warp, uint32_t id, uint32_t arrived, uint32_t live) override {
    const ptx::Instr& in = k_.code[pc];
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
    if (id >= barriers_.size() || warp >= epoch_.size()) return;
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
    ++epoch_[warp];
  }

  void on_warp_sync(uint32_t pc, uint32_t warp, uint32_t member, uint32_t active) override {
    const BlockState& B = *ctx_.block;
    if (warp >= B.warps.size() || pc >= k_.code.size()) return;
    const WarpState& w = B.warps[warp];
    const ptx::Op op = k_.code[pc].op;
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
    for (const PendingRead& p : pending_) {
      if (p.cancelled) continue;
      ctx_.report("uninitialized-read",
                  fmt::format("thread {} (warp {}, lane {}) reads shared memory {} that no thread of the block wrote",
                              p.warp * kWarpSize + p.lane, p.warp, p.lane, shared_name(k_, p.offset)),
                  p.pc, p.warp, p.lane);
    }
    pending_.clear();
    pending_at_.clear();
    if (!ctx_.block->faulted) check_barrier_counts();
  }

 private:
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

  void shared_access(const MemoryAccess& a) {
    std::vector<Cell>& cells = *cells_;
    const uint32_t e = epoch_[a.warp] + 1;
    const bool reads = !a.is_write || a.is_atomic;
    const bool writes = a.is_write;
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint32_t lane = uint32_t(std::countr_zero(m));
      const uint16_t tid = uint16_t(a.warp * kWarpSize + lane);
      const uint64_t off = a.lane_addr[lane];
      if (off >= cells.size()) continue;
      const uint64_t end = std::min<uint64_t>(off + a.bytes, cells.size());
      bool reported = false, uninit = false;
      for (uint64_t b = off; b < end; ++b) {
        Cell& c = cells[b];
        if (reads && !(c.flags & kWritten)) uninit = true;
        if (races_ && !reported) {
          const bool other_write = c.w_epoch == e && warp_of(c.w_tid) != a.warp;
          const bool other_read = c.r_epoch == e && (warp_of(c.r_tid) != a.warp || (c.flags & kManyReaders));
          if (a.is_atomic) {
            if (other_write && !(c.flags & kAtomicWrite)) {
              race("write-then-atomic", a, lane, b, c.w_tid, c.w_pc, "writes");
              reported = true;
            } else if (other_read) {
              race("read-then-atomic", a, lane, b, c.r_tid, c.r_pc, "reads");
              reported = true;
            }
          } else if (writes) {
            if (other_write) {
              race("write-after-write", a, lane, b, c.w_tid, c.w_pc,
                   c.flags & kAtomicWrite ? "atomically updates" : "writes");
              reported = true;
            } else if (other_read) {
              race("write-after-read", a, lane, b, c.r_tid, c.r_pc, "reads");
              reported = true;
            }
          } else if (other_write) {
            race("read-after-write", a, lane, b, c.w_tid, c.w_pc,
                 c.flags & kAtomicWrite ? "atomically updates" : "writes");
            reported = true;
          }
        }
        if (writes) {
          if (!pending_at_.empty()) cancel_pending(b, a.warp, e);
          c.w_epoch = e;
          c.w_tid = tid;
          c.w_pc = a.pc;
          c.flags = uint8_t((c.flags & kManyReaders) | kWritten | (a.is_atomic ? kAtomicWrite : 0));
        } else {
          if (c.r_epoch != e) {
            c.r_epoch = e;
            c.r_tid = tid;
            c.r_pc = a.pc;
            c.flags &= uint8_t(~kManyReaders);
          } else if (warp_of(c.r_tid) != a.warp) {
            c.flags |= kManyReaders;
          }
        }
      }
      if (uninit) {
        // Bytes this very access writes (an atomic) were still unwritten before it.
        pending_.push_back(PendingRead{a.pc, a.warp, lane, e, off});
        for (uint64_t b = off; b < end; ++b) pending_at_[uint32_t(b)] = uint32_t(pending_.size() - 1);
      }
    }
  }

  void cancel_pending(uint64_t byte, uint32_t warp, uint32_t epoch) {
    auto it = pending_at_.find(uint32_t(byte));
    if (it == pending_at_.end()) return;
    PendingRead& p = pending_[it->second];
    if (p.warp != warp && p.epoch == epoch) p.cancelled = true;
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

  // Every warp of the block must pass the same number of block-wide barriers
  // (CUDA Programming Guide: __syncthreads() in conditional code only when the
  // condition is the same for the whole block). A warp that finished with
  // fewer arrivals skipped a barrier the others waited at.
  void check_barrier_counts() {
    const BlockState& B = *ctx_.block;
    for (uint32_t id = 0; id < barriers_.size(); ++id) {
      const BarrierTrack& t = barriers_[id];
      if (t.counted || t.gen_pc.empty()) continue;
      uint32_t lo = UINT32_MAX, hi = 0, lo_warp = 0;
      for (uint32_t w = 0; w < t.arrivals.size() && w < B.warps.size(); ++w) {
        if (B.warps[w].exists == 0) continue;
        if (t.arrivals[w] < lo) { lo = t.arrivals[w]; lo_warp = w; }
        hi = std::max(hi, t.arrivals[w]);
      }
      if (lo == hi || lo >= t.gen_pc.size()) continue;
      std::string reached;
      uint32_t shown = 0;
      for (uint32_t w = 0; w < t.arrivals.size(); ++w)
        if (t.arrivals[w] > lo && shown++ < 4) reached += fmt::format("{}{}", shown > 1 ? ", " : "", w);
      ctx_.report("barrier-divergence",
                  fmt::format("the barrier at {} was reached by warp{} {}{} but warp {} finished without reaching it: "
                              "a __syncthreads() inside a branch or loop that not every thread of the block takes "
                              "(an early return before it?)",
                              where(k_, t.gen_pc[lo]), shown > 1 ? "s" : "", reached, shown > 4 ? ", ..." : "",
                              lo_warp),
                  t.gen_pc[lo], lo_warp, 0);
    }
  }

  CheckContext ctx_;
  const ptx::Kernel& k_;
  std::shared_ptr<GlobalShadow> global_;
  std::vector<Cell>* cells_ = nullptr;
  std::vector<uint32_t> epoch_;
  std::array<BarrierTrack, kMaxBarriers> barriers_;
  bool races_ = true;
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
