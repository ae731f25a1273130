// lab/sim/exec_memory.cpp: ld, st, atom, red, cvta, isspacep, prefetch,
// cp.async (PTX ISA 9.7.9 data movement, 9.7.13.5 atom/red).
//
// A memory instruction goes: lane addresses -> per-lane space (generic
// addresses are split by the windows in ptx/module.h) -> alignment and bounds
// (faults) -> the checker's veto -> the data move -> metrics (requests,
// sectors + L2 for global/local, wavefronts for shared) -> event.
#include <atomic>
#include <cmath>
#include <fmt/format.h>

#include "lab/sim/exec.h"
#include "lab/sim/exec_memory.h"

namespace lab::sim {

using ptx::Op;
using ptx::Space;
using ptx::Type;

namespace {

const char* space_name(Space w) {
  switch (w) {
    case Space::Global: return "global";
    case Space::Shared: return "shared";
    case Space::Local: return "local";
    case Space::Param: return "param";
    default: return "generic";
  }
}

// reg + imm per lane; an Addr with no register is absolute.
void lane_addresses(WarpContext& c, const ptx::Operand& o, uint32_t mask, uint64_t* addr) {
  if (o.kind == ptx::OperandKind::Addr && o.reg < ptx::kSinkReg) {
    const uint64_t* r = c.regs + size_t(o.reg) * kWarpSize;
    uint64_t off = uint64_t(o.imm);
    each_lane(mask, [&](uint32_t i) { addr[i] = r[i] + off; });
  } else {
    uint64_t tmp[32];
    const uint64_t* v = o.kind == ptx::OperandKind::Addr ? nullptr : src(c, o, tmp);
    each_lane(mask, [&](uint32_t i) { addr[i] = v ? v[i] : uint64_t(o.imm); });
  }
}

Space classify_generic(uint64_t a) {
  if (a - ptx::kSharedWindow < ptx::kWindowSize) return Space::Shared;
  if (a - ptx::kLocalWindow < ptx::kWindowSize) return Space::Local;
  return Space::Global;
}

// The space an instruction's own state space reads from (generic is resolved per lane).
Space resolved_space(Space s) {
  switch (s) {
    case Space::Shared: case Space::SharedCluster: return Space::Shared;
    case Space::Local: return Space::Local;
    case Space::Param: return Space::Param;
    default: return Space::Global;  // global, const (module segment), generic-as-global
  }
}

std::string describe_global_miss(const GlobalMemory& mem, uint64_t addr, uint32_t bytes) {
  // Nearest buffer below or above, for a message that says how far off the access is.
  const Buffer* below = nullptr;
  const Buffer* above = nullptr;
  for (const Buffer& b : mem.buffers()) {
    if (b.address <= addr) below = &b;
    else if (!above) above = &b;
  }
  if (addr < ptx::kGlobalBase / 2 && addr < 0x100000) return fmt::format("address 0x{:x} is a null or near-null pointer", addr);
  if (const Buffer* b = mem.find(addr); b && b->freed)
    return fmt::format("address 0x{:x} is byte {} of buffer '{}', which cudaFree released before this launch: a use "
                       "after free (free a buffer only after the last kernel and copy that use it)",
                       addr, addr - b->address, b->name);
  if (below && addr >= below->address + below->bytes && addr - (below->address + below->bytes) < 1 << 20)
    return fmt::format("address 0x{:x} is {} bytes past the end of buffer '{}' [0x{:x}, 0x{:x}) of {} bytes",
                       addr, addr - (below->address + below->bytes), below->name, below->address,
                       below->address + below->bytes, below->bytes);
  if (above && above->address > addr && above->address - addr < 1 << 20)
    return fmt::format("address 0x{:x} is {} bytes before the start of buffer '{}' [0x{:x}, 0x{:x})", addr,
                       above->address - addr, above->name, above->address, above->address + above->bytes);
  return fmt::format("address 0x{:x} is outside every allocated buffer", addr);
}

// One warp instruction's span [lowest lane address, highest + bytes), joined
// with the worker's previous span when they touch (a streaming kernel's
// consecutive instructions), and the list compacted when it grows long.
void record_global_range(WorkerState& W, const Access& a, uint32_t mask, bool is_write) {
  uint64_t lo = UINT64_MAX, hi = 0;
  each_lane(mask, [&](uint32_t i) {
    lo = std::min(lo, a.addr[i]);
    hi = std::max(hi, a.addr[i] + a.bytes);
  });
  if (lo >= hi) return;
  std::vector<GlobalRange>& v = W.global_ranges;
  if (!v.empty() && v.back().write == is_write && lo <= v.back().hi && v.back().lo <= hi) {
    v.back().lo = std::min(v.back().lo, lo);
    v.back().hi = std::max(v.back().hi, hi);
    return;
  }
  v.push_back({lo, hi, is_write});
  if (v.size() >= (size_t(1) << 16)) merge_global_ranges(v);
}

// Turns lane addresses into host pointers; faults and returns false if any
// active lane is misaligned or out of bounds.
}  // namespace

bool resolve(WarpContext& c, Access& a, uint32_t mask, bool is_write, uint32_t align) {
  const LaunchState& L = *c.L;
  BlockState& B = *c.B;
  const uint32_t bytes = a.bytes;
  // Alignment first: PTX requires naturally aligned accesses (ISA 5.4.5: "all
  // addresses must be naturally aligned to the access size").
  uint32_t bad = 0;
  each_lane(mask, [&](uint32_t i) { bad |= uint32_t((a.addr[i] & (align - 1)) != 0) << i; });
  if (bad) [[unlikely]] {
    uint32_t lane = uint32_t(std::countr_zero(bad));
    raise_fault(c, "misaligned",
                fmt::format("misaligned {} {} of {} bytes at address 0x{:x}: the address must be a multiple of {}",
                            space_name(a.where), is_write ? "write" : "read", bytes, a.addr[lane], align),
                lane);
    return false;
  }
  switch (a.where) {
    case Space::Global: {
      const bool check_gaps = L.options->check;
      each_lane(mask, [&](uint32_t i) {
        uint64_t x = a.addr[i];
        uint64_t off = x - L.arena_lo;
        if (off < L.arena_bytes && bytes <= L.arena_bytes - off) {
          a.host[i] = L.arena + off;
          if (check_gaps) {  // a guard gap, or a buffer cudaFree released
            const Buffer* b = L.memory->find(x);
            if (!b || b->freed || x + bytes > b->address + b->bytes) bad |= 1u << i;
          }
        } else if ((off = x - L.module_lo) < L.module_bytes && bytes <= L.module_bytes - off) {
          a.host[i] = L.module_seg + off;
        } else {
          bad |= 1u << i;
        }
      });
      if (bad) [[unlikely]] {
        uint32_t lane = uint32_t(std::countr_zero(bad));
        raise_fault(c, "out-of-bounds",
                    fmt::format("out-of-bounds global {} of {} bytes: {}", is_write ? "write" : "read", bytes,
                                describe_global_miss(*L.memory, a.addr[lane], bytes)),
                    lane);
        return false;
      }
      if (!L.options->foreign_global.empty()) [[unlikely]] {
        const auto& f = L.options->foreign_global;
        uint32_t foreign = 0;
        each_lane(mask, [&](uint32_t i) {
          auto it = std::upper_bound(f.begin(), f.end(), std::make_pair(a.addr[i], UINT64_MAX));
          foreign |= uint32_t(it != f.begin() && a.addr[i] < std::prev(it)->second) << i;
        });
        if (foreign) {
          const uint32_t lane = uint32_t(std::countr_zero(foreign));
          raise_fault(c, "out-of-bounds",
                      fmt::format("global {} of {} bytes at 0x{:x}: that memory belongs to another simulated GPU, "
                                  "which this one has no peer access to: call cudaDeviceEnablePeerAccess first (the "
                                  "access then crosses the link and is counted there), or copy the data with "
                                  "cudaMemcpyPeer",
                                  is_write ? "write" : "read", bytes, a.addr[lane]),
                      lane);
          return false;
        }
      }
      if (L.options->record_global_ranges) [[unlikely]] record_global_range(*c.W, a, mask, is_write);
      return true;
    }
    case Space::Shared: {
      uint8_t* base = B.shared.data();
      const uint64_t size = B.shared_bytes;
      each_lane(mask, [&](uint32_t i) {
        uint64_t off = a.addr[i];
        if (off < size && bytes <= size - off) a.host[i] = base + off;
        else bad |= 1u << i;
      });
      if (bad) [[unlikely]] {
        uint32_t lane = uint32_t(std::countr_zero(bad));
        raise_fault(c, "out-of-bounds",
                    fmt::format("out-of-bounds shared {} of {} bytes at offset {} (0x{:x}): the block has {} bytes "
                                "of shared memory ({} static + {} dynamic)",
                                is_write ? "write" : "read", bytes, int64_t(a.addr[lane]), a.addr[lane], size,
                                L.kernel->static_shared_bytes, L.cfg.dynamic_shared_bytes),
                    lane);
        return false;
      }
      return true;
    }
    case Space::Local: {
      const uint64_t frame = B.local_bytes;
      uint8_t* base = B.local.data() + size_t(c.warp->index) * kWarpSize * frame;
      each_lane(mask, [&](uint32_t i) {
        uint64_t off = a.addr[i];
        if (off < frame && bytes <= frame - off) a.host[i] = base + i * frame + off;
        else bad |= 1u << i;
      });
      if (bad) [[unlikely]] {
        uint32_t lane = uint32_t(std::countr_zero(bad));
        raise_fault(c, "out-of-bounds",
                    fmt::format("out-of-bounds local {} of {} bytes at offset {}: the thread's local frame has {} bytes "
                                "(a local array indexed past its end?)",
                                is_write ? "write" : "read", bytes, int64_t(a.addr[lane]), frame),
                    lane);
        return false;
      }
      return true;
    }
    case Space::Param: {
      each_lane(mask, [&](uint32_t i) {
        uint64_t off = a.addr[i];
        if (off < L.param_bytes && bytes <= L.param_bytes - off && !is_write)
          a.host[i] = const_cast<uint8_t*>(L.params) + off;
        else bad |= 1u << i;
      });
      if (bad) [[unlikely]] {
        uint32_t lane = uint32_t(std::countr_zero(bad));
        raise_fault(c, "out-of-bounds",
                    fmt::format("param {} of {} bytes at offset {} outside the {}-byte parameter buffer",
                                is_write ? "write" : "read", bytes, a.addr[lane], L.param_bytes),
                    lane);
        return false;
      }
      return true;
    }
    default:
      return false;
  }
}

namespace {

// One shared request into the timing trace, the one place both the general
// path and the full-warp fast path record it. A plain load (`mergeable`:
// not a store, not an atomic) also carries its cost
// widened to 4, 8 and 16 bytes (SharedCostMemo::wide4/wide8/wide16), worked out once
// per memo entry: the memo keys on the lanes' offsets, which decide it for
// the 16-byte-aligned first load of a merged group (cycle/decode.h `merge`).
void trace_shared(WarpContext& c, SharedCostMemo& m, const uint64_t* addr, uint32_t mask, uint32_t bytes,
                  uint32_t wavefronts, bool is_write, bool mergeable) {
  const uint16_t w = uint16_t(wavefronts);
  if (!mergeable) {
    c.trace->add_shared(w, is_write, w, w, w);
    return;
  }
  if (!m.wide_known) {
    m.wide_known = true;
    m.wide4 = m.wide8 = m.wide16 = w;
    if (bytes == 4 || bytes == 2) {
      // The lanes' addresses rounded down to each window, and that access's cost.
      auto widened = [&](uint64_t width) {
        uint64_t a[32];
        for (uint32_t i = 0; i < kWarpSize; ++i) a[i] = addr[i] & ~(width - 1);
        return uint16_t(shared_wavefronts(a, mask, uint32_t(width)).wavefronts);
      };
      if (bytes == 2) m.wide4 = widened(4);
      m.wide8 = widened(8);
      m.wide16 = widened(16);
    }
  }
  c.trace->add_shared(w, false, m.wide4, m.wide8, m.wide16);
}

// Shared-memory cost with the per-pc memo (see SharedCostMemo).
SharedCost shared_cost(WarpContext& c, const uint64_t* addr, uint32_t mask, uint32_t bytes) {
  SharedCostMemo& m = c.W->shared_memo[c.pc];
  uint32_t first = uint32_t(std::countr_zero(mask));
  uint64_t base = addr[first];
  uint32_t sub = uint32_t(base & 3);
  uint32_t offs[32];
  for (uint32_t i = 0; i < kWarpSize; ++i) offs[i] = (mask >> i) & 1 ? uint32_t(addr[i] - base) : 0;
  if (m.mask == mask && m.bytes == bytes && m.sub_word == sub && std::memcmp(offs, m.offs, sizeof offs) == 0)
    return m.cost;
  SharedCost cost = shared_wavefronts(addr, mask, bytes);
  m.mask = mask;
  m.bytes = bytes;
  m.sub_word = sub;
  m.cost = cost;
  m.wide_known = false;
  std::memcpy(m.offs, offs, sizeof offs);
  m.classify();
  return cost;
}

// Metrics (and the event) of one request in one space.
}  // namespace

void count_request(WarpContext& c, Space where, const uint64_t* lane_addr, uint32_t access_bytes, uint32_t mask,
                   bool is_write, bool atomic) {
  struct { Space where; const uint64_t* addr; uint32_t bytes; } a{where, lane_addr, access_bytes};
  PcCounters& pm = *c.pcm;
  ++pm.requests;
  c.warp->global_requests += a.where == Space::Global;
  pm.bytes += uint64_t(lanes_in(mask)) * a.bytes;
  uint32_t sectors = 0;
  SharedCost sc;
  const uint32_t serial = atomic ? same_address_lanes(a.addr, mask) : 0;
  pm.atomic_serial += serial;
  if (a.where == Space::Shared) {
    sc = atomic ? shared_atomic_wavefronts(a.addr, mask, a.bytes) : shared_cost(c, a.addr, mask, a.bytes);
    pm.wavefronts += sc.wavefronts;
    pm.ideal_wavefronts += sc.ideal;
    if (c.trace) [[unlikely]]
      trace_shared(c, c.W->shared_memo[c.pc], a.addr, mask, a.bytes, sc.wavefronts, is_write, !is_write && !atomic);
  } else if (a.where == Space::Global || a.where == Space::Local) {
    uint64_t model[32];
    const uint64_t* addr = a.addr;
    if (a.where == Space::Local) {
      // Local memory is interleaved across the warp in 4-byte words, so a
      // warp-uniform offset is one coalesced request (CUDA Programming Guide
      // 5.3.2, "Local Memory"). Each warp's frames get their own region.
      uint64_t region = (uint64_t(1) << 60) + (uint64_t(c.B->linear) * c.B->num_warps + c.warp->index) *
                                                  uint64_t(c.B->local_bytes) * kWarpSize;
      each_lane(mask, [&](uint32_t i) {
        model[i] = region + (a.addr[i] & ~3ull) * kWarpSize + i * 4 + (a.addr[i] & 3);
      });
      addr = model;
    }
    uint64_t sec[64];
    // Fast path: an aligned access of at most 32 bytes lies in one sector; when
    // the lanes' sectors come in non-decreasing order (the usual row-major
    // pattern), distinct sectors are counted by comparing neighbours, no sort.
    bool ordered = a.bytes <= kSectorBytes;
    uint32_t n = 0;
    if (ordered && mask == 0xffffffffu) {
      // The whole warp, in passes the compiler vectorises: each lane's
      // sector, whether they never fall, and the distinct ones kept in
      // registers (a lane-by-lane loop that reread sec[n - 1] waited on its
      // own store every lane: a sixth of the naive GEMM's time).
      uint64_t s[kWarpSize];
      for (uint32_t i = 0; i < kWarpSize; ++i) s[i] = addr[i] / kSectorBytes;
      uint32_t falls = 0;
      for (uint32_t i = 1; i < kWarpSize; ++i) falls |= uint32_t(s[i] < s[i - 1]);
      ordered = !falls;
      if (ordered) {
        sec[0] = s[0];
        n = 1;
        for (uint32_t i = 1; i < kWarpSize; ++i) {
          sec[n] = s[i];
          n += s[i] != s[i - 1];
        }
      }
    } else if (ordered) {
      for (uint32_t m = mask; m; m &= m - 1) {
        uint64_t s = addr[std::countr_zero(m)] / kSectorBytes;
        if (n && s < sec[n - 1]) { ordered = false; break; }
        if (!n || s != sec[n - 1]) sec[n++] = s;
      }
    }
    sectors = ordered ? n : global_sectors(addr, mask, a.bytes, sec);
    pm.sectors += sectors;
    uint32_t misses = 0;
    if (c.L->l2 && a.where == Space::Global) {
      const L2Model::Requester who{c.B->linear, &c.B->l2_claims};
      misses = c.L->l2->access(sec, std::min<uint32_t>(sectors, 64), is_write, &who);
      if (is_write) pm.dram_write_bytes += uint64_t(misses) * kSectorBytes;
      else pm.dram_read_bytes += uint64_t(misses) * kSectorBytes;
    }
    if (c.trace) [[unlikely]] {
      c.trace->add_global(sec, std::min<uint32_t>(sectors, 64), misses, is_write, a.where == Space::Local);
      c.trace->mems.back().serial = uint16_t(serial);
      c.trace->mems.back().bypass_l1 = c.L->kernel->code[c.pc].flags & ptx::kFlagCacheGlobal;
    }
  }
  if (c.ev) [[unlikely]] {
    WarpEvent& ev = *c.ev;
    ev.space = a.where == Space::Shared ? Space::Shared : a.where == Space::Local ? Space::Local : Space::Global;
    ev.access_bytes = uint8_t(std::min<uint32_t>(a.bytes, 255));
    ev.is_store = is_write;
    ev.sectors += sectors;
    ev.wavefronts += sc.wavefronts;
    ev.ideal_wavefronts += sc.ideal;
    for (uint32_t i = 0; i < kWarpSize; ++i) ev.lane_addr[i] = (mask >> i) & 1 ? a.addr[i] : ev.lane_addr[i];
    if (a.where == Space::Shared) ev.shared = shared_serve(a.addr, mask, a.bytes);
    else ev.ideal_sectors += global_ideal_sectors(a.addr, mask, a.bytes);
  }
}

void count_bulk_request(WarpContext& c, const std::vector<uint64_t>& sectors, uint64_t bytes_read, uint32_t shared_bytes) {
  PcCounters& pm = *c.pcm;
  ++pm.requests;
  pm.bytes += bytes_read;
  pm.sectors += sectors.size();
  uint32_t misses = 0;
  if (c.L->l2) {
    const L2Model::Requester who{c.B->linear, &c.B->l2_claims};
    for (size_t s = 0; s < sectors.size(); s += 64)
      misses += c.L->l2->access(sectors.data() + s, uint32_t(std::min<size_t>(64, sectors.size() - s)), false, &who);
  }
  pm.dram_read_bytes += uint64_t(misses) * kSectorBytes;
  if (c.trace) [[unlikely]] {
    c.trace->add_global(sectors.data(), uint32_t(sectors.size()), misses, false, false);
    c.trace->mems.back().bulk = true;
    c.trace->mems.back().shared_bytes = shared_bytes;
  }
}

namespace {

// Splits a generic access by window; calls f(Access&, mask) per space used.
template <class F>
void for_each_space(WarpContext& c, const ptx::Instr& in, const ptx::Operand& addr_op, uint32_t bytes, F&& f) {
  Access a;
  a.bytes = bytes;
  lane_addresses(c, addr_op, c.mask, a.addr);
  if (in.space != Space::Generic) {
    a.where = resolved_space(in.space);
    if (a.where == Space::Shared || a.where == Space::Local)
      each_lane(c.mask, [&](uint32_t i) { a.addr[i] &= 0xffffffffull; });
    // The constant space is its own: on a GPU ld.const reads the constant
    // bank (the module's __constant__ variables), never global memory through
    // a pointer (PTX ISA, "Constant State Space"). The lab keeps the module's
    // variables in one segment; an address outside it is a fault here.
    if (in.space == Space::Const) {
      const LaunchState& L = *c.L;
      uint32_t bad = 0;
      each_lane(c.mask, [&](uint32_t i) {
        bad |= uint32_t(a.addr[i] - L.module_lo >= L.module_bytes || bytes > L.module_bytes - (a.addr[i] - L.module_lo)) << i;
      });
      if (bad) {
        const uint32_t lane = uint32_t(std::countr_zero(bad));
        raise_fault(c, "out-of-bounds",
                    fmt::format("ld.const of {} bytes at address 0x{:x}, outside constant memory: the constant space "
                                "holds only the module's __constant__ variables; read global memory with ld.global "
                                "(an ordinary pointer)", bytes, a.addr[lane]),
                    lane);
        return;
      }
    }
    f(a, c.mask);
    return;
  }
  uint32_t sm = 0, lm = 0;
  each_lane(c.mask, [&](uint32_t i) {
    Space w = classify_generic(a.addr[i]);
    sm |= uint32_t(w == Space::Shared) << i;
    lm |= uint32_t(w == Space::Local) << i;
  });
  uint32_t gm = c.mask & ~sm & ~lm;
  if (gm) {
    a.where = Space::Global;
    f(a, gm);
    if (c.warp->status == WarpStatus::Faulted) return;
  }
  if (sm) {
    Access s = a;
    s.where = Space::Shared;
    each_lane(sm, [&](uint32_t i) { s.addr[i] = a.addr[i] - ptx::kSharedWindow; });
    f(s, sm);
    if (c.warp->status == WarpStatus::Faulted) return;
  }
  if (lm) {
    Access l = a;
    l.where = Space::Local;
    each_lane(lm, [&](uint32_t i) { l.addr[i] = a.addr[i] - ptx::kLocalWindow; });
    f(l, lm);
  }
}

}  // namespace

// Completes the in-flight cp.async copies of `lanes` in groups before
// `before` (UINT32_MAX: every copy, committed or not): each lands in shared
// memory now, told to the checker as the write it is.
void cp_async_complete(WarpContext& c, uint32_t lanes, uint32_t before) {
  WarpState& w = *c.warp;
  uint8_t* shared = c.B->shared.data();
  for (AsyncCopy& a : w.async) {
    if (before != UINT32_MAX && a.group >= before) break;  // oldest first: the rest are younger
    uint32_t m = a.mask & lanes;
    if (!m) continue;
    if (c.checker) {
      MemoryAccess ma;
      ma.space = Space::Shared;
      ma.pc = a.pc;
      ma.warp = w.index;
      ma.mask = m;
      ma.lane_addr = a.dst;
      ma.bytes = a.bytes;
      ma.is_write = true;
      c.checker->on_access(ma);
    }
    each_lane(m, [&](uint32_t i) { std::memcpy(shared + a.dst[i], a.data[i], a.bytes); });
    a.mask &= ~m;
  }
  std::erase_if(w.async, [](const AsyncCopy& a) { return a.mask == 0; });
}

uint32_t checker_veto(WarpContext& c, const Access& a, uint32_t mask, bool is_write, bool is_atomic,
                      const uint64_t* values, bool is_async) {
  if (!c.checker) return mask;
  MemoryAccess m;
  m.space = a.where == Space::Shared ? Space::Shared
            : a.where == Space::Local ? Space::Local
            : a.where == Space::Param ? Space::Param
                                      : Space::Global;
  m.pc = c.pc;
  m.warp = c.warp->index;
  m.mask = mask;
  m.lane_addr = a.addr;
  m.bytes = a.bytes;
  m.is_write = is_write;
  m.is_atomic = is_atomic;
  m.lane_value = values;  // checks: same-address stores of different values
  m.is_async = is_async;
  const uint32_t flags = c.L->kernel->code[c.pc].flags;
  m.is_strong = is_atomic || (flags & ptx::kFlagStrong);
  m.is_acquire = flags & ptx::kFlagAcquire;
  m.is_release = flags & ptx::kFlagRelease;
  return c.checker->on_access(m) & mask;
}

namespace {

// Element loads/stores: sub-word signed loads sign-extend into the register.
inline uint64_t load_elem(const uint8_t* p, uint32_t size, bool sign) {
  switch (size) {
    case 1: return sign ? uint64_t(int64_t(int8_t(*p))) : *p;
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return sign ? uint64_t(int64_t(int16_t(v))) : v; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return sign ? uint64_t(int64_t(int32_t(v))) : v; }
    default: { uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}
inline void store_elem(uint8_t* p, uint32_t size, uint64_t v) {
  switch (size) {
    case 1: *p = uint8_t(v); break;
    case 2: { uint16_t x = uint16_t(v); std::memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = uint32_t(v); std::memcpy(p, &x, 4); break; }
    default: std::memcpy(p, &v, 8); break;
  }
}

// Destination / source register slots of a scalar or vector operand.
uint32_t operand_slots(const WarpContext& c, const ptx::Operand& o, uint32_t* slots) {
  if (o.kind == ptx::OperandKind::Vec) {
    for (uint32_t k = 0; k < o.vec_len; ++k) slots[k] = c.L->kernel->vec_slots[o.reg + k];
    return o.vec_len;
  }
  slots[0] = o.kind == ptx::OperandKind::Reg ? o.reg : ptx::kNoReg;
  return 1;
}

// Fast path for the common scalar 4/8-byte access to one space with no
// checker and no events: addresses are checked with one min/max/alignment
// reduction instead of per-lane tests. Returns false (nothing done) when any
// lane would need the general path, which then also reports the fault.
// Shared-memory addresses fit in 32 bits, so the full-warp shared path works
// on uint32 lanes (8 per AVX2 register): address, alignment, bounds and the
// bank-conflict memo comparison in one pass. Returns false to fall back.
#if defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
bool shared_full_warp(const uint64_t* r, uint32_t imm, uint32_t elem, uint32_t size, const SharedCostMemo& memo,
                      uint32_t* addr, bool* memo_hit) {
  uint32_t bits_or = 0, max_addr = 0, diff = 0;
  const uint32_t base = uint32_t(r[0]) + imm;
  for (uint32_t i = 0; i < kWarpSize; ++i) {
    uint32_t a = uint32_t(r[i]) + imm;
    addr[i] = a;
    bits_or |= a;
    max_addr = a > max_addr ? a : max_addr;
    diff |= (a - base) ^ memo.offs[i];
  }
  *memo_hit = diff == 0 && memo.mask == 0xffffffffu && memo.bytes == elem && memo.sub_word == (base & 3);
  return !(bits_or & (elem - 1)) && max_addr <= size - elem;
}

template <bool kStore>
bool fast_shared(const ptx::Instr& in, WarpContext& c, const ptx::Operand& ao, uint64_t* v, uint32_t elem) {
  BlockState& B = *c.B;
  if (B.shared_bytes < elem) return false;
  SharedCostMemo& memo = c.W->shared_memo[c.pc];
  uint32_t addr[32];
  bool hit;
  if (!shared_full_warp(c.regs + size_t(ao.reg) * kWarpSize, uint32_t(ao.imm), elem, B.shared_bytes, memo, addr, &hit))
    return false;
  uint8_t* p = B.shared.data();
  // A known pattern (the memo's, which these addresses match) is copied as
  // one: a broadcast is one read (or, stored, the last lane's write wins, as
  // lane by lane), unit stride one contiguous block the compiler vectorises.
  const SharedCostMemo::Lanes lanes = hit ? memo.lanes : SharedCostMemo::Lanes::General;
  uint8_t* const at = p + addr[0];
  if constexpr (kStore) {
    if (lanes == SharedCostMemo::Lanes::Broadcast) {
      if (elem == 4) { uint32_t x = uint32_t(v[kWarpSize - 1]); std::memcpy(at, &x, 4); }
      else std::memcpy(at, &v[kWarpSize - 1], 8);
    } else if (lanes == SharedCostMemo::Lanes::Unit) {
      if (elem == 4) for (uint32_t i = 0; i < kWarpSize; ++i) { uint32_t x = uint32_t(v[i]); std::memcpy(at + 4 * i, &x, 4); }
      else std::memcpy(at, v, 8 * kWarpSize);
    } else if (elem == 4) {
      for (uint32_t i = 0; i < kWarpSize; ++i) { uint32_t x = uint32_t(v[i]); std::memcpy(p + addr[i], &x, 4); }
    } else {
      for (uint32_t i = 0; i < kWarpSize; ++i) std::memcpy(p + addr[i], &v[i], 8);
    }
  } else {
    if (lanes == SharedCostMemo::Lanes::Broadcast) {
      uint64_t x = 0;
      std::memcpy(&x, at, elem);
      for (uint32_t i = 0; i < kWarpSize; ++i) v[i] = x;
    } else if (lanes == SharedCostMemo::Lanes::Unit) {
      if (elem == 4) for (uint32_t i = 0; i < kWarpSize; ++i) { uint32_t x; std::memcpy(&x, at + 4 * i, 4); v[i] = x; }
      else std::memcpy(v, at, 8 * kWarpSize);
    } else if (elem == 4) {
      for (uint32_t i = 0; i < kWarpSize; ++i) { uint32_t x; std::memcpy(&x, p + addr[i], 4); v[i] = x; }
    } else {
      for (uint32_t i = 0; i < kWarpSize; ++i) std::memcpy(&v[i], p + addr[i], 8);
    }
  }
  PcCounters& pm = *c.pcm;
  ++pm.requests;
  pm.bytes += uint64_t(kWarpSize) * elem;
  if (!hit) {
    uint64_t a64[32];
    for (uint32_t i = 0; i < kWarpSize; ++i) a64[i] = addr[i];
    memo.cost = shared_wavefronts(a64, 0xffffffffu, elem);
    memo.mask = 0xffffffffu;
    memo.bytes = elem;
    memo.sub_word = addr[0] & 3;
    memo.wide_known = false;
    for (uint32_t i = 0; i < kWarpSize; ++i) memo.offs[i] = addr[i] - addr[0];
    memo.classify();
  }
  pm.wavefronts += memo.cost.wavefronts;
  pm.ideal_wavefronts += memo.cost.ideal;
  // The fast path is an interpreter shortcut, not a different access: the
  // cycle model must see its wavefronts exactly as count_request reports them
  // (issue 24: bank conflicts cost no time when this line was missing).
  if (c.trace) [[unlikely]] {
    uint64_t a64[32];  // widened once per memo entry only: the addresses are read then
    if (!kStore && !memo.wide_known)
      for (uint32_t i = 0; i < kWarpSize; ++i) a64[i] = addr[i];
    trace_shared(c, memo, a64, 0xffffffffu, elem, memo.cost.wavefronts, kStore, !kStore);
  }
  return true;
}

template <bool kStore>
bool fast_access(const ptx::Instr& in, WarpContext& c) {
  if (c.checker || c.ev) return false;
  const ptx::Operand& ao = kStore ? in.ops[0] : in.ops[1];
  const ptx::Operand& vo = kStore ? in.ops[1] : in.ops[0];
  if constexpr (!kStore) {
    // A kernel parameter by name: one address for the whole warp (its
    // offset, no register), read once and given to every lane, as the
    // general path would (a signed 4-byte value widened with its sign). A
    // vector add's four ld.param were a third of its instructions, each
    // resolved lane by lane.
    if (in.space == Space::Param && ao.kind == ptx::OperandKind::Addr && ao.reg >= ptx::kSinkReg &&
        vo.kind == ptx::OperandKind::Reg && vo.reg < ptx::kSinkReg) {
      const uint32_t elem = uint32_t(ptx::type_bytes(in.type));
      const LaunchState& L = *c.L;
      const uint64_t off = uint64_t(ao.imm);
      if ((elem != 4 && elem != 8) || off >= L.param_bytes || elem > L.param_bytes - off) return false;
      uint64_t x = 0;
      if (elem == 8) {
        std::memcpy(&x, L.params + off, 8);
      } else {
        uint32_t w;
        std::memcpy(&w, L.params + off, 4);
        x = ptx::type_is_signed(in.type) ? uint64_t(int64_t(int32_t(w))) : uint64_t(w);
      }
      uint64_t* v = c.regs + size_t(vo.reg) * kWarpSize;
      each_lane(c.mask, [&](uint32_t i) { v[i] = x; });
      return true;
    }
  }
  if (ao.kind != ptx::OperandKind::Addr || ao.reg >= ptx::kSinkReg) return false;
  if (vo.kind != ptx::OperandKind::Reg || vo.reg >= ptx::kSinkReg) return false;
  const uint32_t elem = uint32_t(ptx::type_bytes(in.type));
  if (elem != 4 && elem != 8) return false;
  const LaunchState& L = *c.L;
  if (in.space == Space::Shared && c.mask == 0xffffffffu)
    return fast_shared<kStore>(in, c, ao, c.regs + size_t(vo.reg) * kWarpSize, elem);
  Space where;
  uint8_t* base;
  uint64_t lo, size;
  if (in.space == Space::Shared) {
    where = Space::Shared;
    base = c.B->shared.data();
    lo = 0;
    size = c.B->shared_bytes;
  } else if ((in.space == Space::Global || in.space == Space::Generic) && !L.options->check &&
             !L.options->record_global_ranges && L.options->foreign_global.empty()) {
    where = Space::Global;
    base = L.arena;
    lo = L.arena_lo;
    size = L.arena_bytes;
  } else {
    return false;
  }
  if (size < elem) return false;
  const uint64_t* r = c.regs + size_t(ao.reg) * kWarpSize;
  const uint64_t imm = uint64_t(ao.imm);
  const uint64_t amask = where == Space::Shared ? 0xffffffffull : ~0ull;
  uint64_t addr[32];
  uint64_t bits_or = 0, max_off = 0;
  const uint32_t mask = c.mask;
  if (mask == 0xffffffffu) {
    for (uint32_t i = 0; i < kWarpSize; ++i) {
      uint64_t a = (r[i] + imm) & amask;
      addr[i] = a;
      bits_or |= a;
      uint64_t off = a - lo;
      max_off = off > max_off ? off : max_off;
    }
  } else {
    each_lane(mask, [&](uint32_t i) {
      uint64_t a = (r[i] + imm) & amask;
      addr[i] = a;
      bits_or |= a;
      uint64_t off = a - lo;
      max_off = off > max_off ? off : max_off;
    });
  }
  if ((bits_or & (elem - 1)) || max_off > size - elem) return false;
  uint64_t* v = c.regs + size_t(vo.reg) * kWarpSize;
  uint8_t* p = base - lo;
  if constexpr (kStore) {
    if (elem == 4) each_lane(mask, [&](uint32_t i) { uint32_t x = uint32_t(v[i]); std::memcpy(p + addr[i], &x, 4); });
    else each_lane(mask, [&](uint32_t i) { std::memcpy(p + addr[i], &v[i], 8); });
  } else {
    if (elem == 4) each_lane(mask, [&](uint32_t i) { uint32_t x; std::memcpy(&x, p + addr[i], 4); v[i] = x; });
    else each_lane(mask, [&](uint32_t i) { std::memcpy(&v[i], p + addr[i], 8); });
  }
  count_request(c, where, addr, elem, mask, kStore);
  return true;
}

void exec_load(const ptx::Instr& in, WarpContext& c) {
  if (fast_access<false>(in, c)) return;
  const ptx::Operand& d = in.ops[0];
  uint32_t slots[8];
  const uint32_t n = operand_slots(c, d, slots);
  const uint32_t elem = uint32_t(ptx::type_bytes(in.type));
  const uint32_t total = elem * n;
  const bool sign = ptx::type_is_signed(in.type);
  for_each_space(c, in, in.ops[1], total, [&](Access& a, uint32_t mask) {
    if (!resolve(c, a, mask, false, total)) return;
    mask = checker_veto(c, a, mask, false, false);
    if (a.where != Space::Param) count_request(c, a.where, a.addr, a.bytes, mask, false);
    if (n == 1) {
      uint64_t* out = slots[0] < ptx::kSinkReg ? c.regs + size_t(slots[0]) * kWarpSize : c.sink;
      if (elem == 4 && !sign) {
        each_lane(mask, [&](uint32_t i) { uint32_t v; std::memcpy(&v, a.host[i], 4); out[i] = v; });
      } else {
        each_lane(mask, [&](uint32_t i) { out[i] = load_elem(a.host[i], elem, sign); });
      }
      return;
    }
    for (uint32_t k = 0; k < n; ++k) {
      uint32_t slot = slots[k];
      uint64_t* out = slot < ptx::kSinkReg ? c.regs + size_t(slot) * kWarpSize : c.sink;
      each_lane(mask, [&](uint32_t i) { out[i] = load_elem(a.host[i] + k * elem, elem, sign); });
    }
  });
}

void exec_store(const ptx::Instr& in, WarpContext& c) {
  if (fast_access<true>(in, c)) return;
  const ptx::Operand& s = in.ops[1];
  uint32_t slots[8];
  uint32_t n = 1;
  uint64_t tmp[32];
  const uint64_t* single = nullptr;
  if (s.kind == ptx::OperandKind::Vec) n = operand_slots(c, s, slots);
  else single = src(c, s, tmp);
  uint32_t elem = uint32_t(ptx::type_bytes(in.type));
  const uint32_t total = elem * n;
  for_each_space(c, in, in.ops[0], total, [&](Access& a, uint32_t mask) {
    if (!resolve(c, a, mask, true, total)) return;
    mask = checker_veto(c, a, mask, true, false, single);
    count_request(c, a.where, a.addr, a.bytes, mask, true);
    if (single) {
      if (elem == 4) each_lane(mask, [&](uint32_t i) { uint32_t v = uint32_t(single[i]); std::memcpy(a.host[i], &v, 4); });
      else each_lane(mask, [&](uint32_t i) { store_elem(a.host[i], elem, single[i]); });
      return;
    }
    for (uint32_t k = 0; k < n; ++k) {
      uint32_t slot = slots[k];
      // A vector source may hold `_`? Not for st; immediates were given hidden slots by the parser.
      const uint64_t* v = slot < ptx::kSinkReg ? c.regs + size_t(slot) * kWarpSize : nullptr;
      each_lane(mask, [&](uint32_t i) { store_elem(a.host[i] + k * elem, elem, v ? v[i] : 0); });
    }
  });
}

// ---- atomics -----------------------------------------------------------------------
template <class T>
T atom_apply(ptx::AtomOp op, T old, T b, T cmpv) {
  switch (op) {
    case ptx::AtomOp::Add:
      if constexpr (std::is_floating_point_v<T>) return T(old + b);
      else return T(std::make_unsigned_t<T>(old) + std::make_unsigned_t<T>(b));
    case ptx::AtomOp::Min:
      if constexpr (std::is_floating_point_v<T>) return std::isnan(old) ? b : std::isnan(b) ? old : std::min(old, b);
      else return std::min(old, b);
    case ptx::AtomOp::Max:
      if constexpr (std::is_floating_point_v<T>) return std::isnan(old) ? b : std::isnan(b) ? old : std::max(old, b);
      else return std::max(old, b);
    case ptx::AtomOp::Exch: return b;
    case ptx::AtomOp::Cas: return old == cmpv ? b : old;  // (cmpv is the compare value: atom.cas d, [a], b, c)
    default: break;
  }
  if constexpr (!std::is_floating_point_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case ptx::AtomOp::And: return T(U(old) & U(b));
      case ptx::AtomOp::Or: return T(U(old) | U(b));
      case ptx::AtomOp::Xor: return T(U(old) ^ U(b));
      // atom.inc/dec.u32 (PTX ISA 9.7.13.5): wrap at b.
      case ptx::AtomOp::Inc: return U(old) >= U(b) ? T(0) : T(U(old) + 1);
      case ptx::AtomOp::Dec: return (U(old) == 0 || U(old) > U(b)) ? b : T(U(old) - 1);
      default: break;
    }
  }
  return old;
}

template <class T>
void atom_lanes(WarpContext& c, const ptx::Instr& in, Access& a, uint32_t mask, const uint64_t* b,
                const uint64_t* cv, uint64_t* out) {
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>>;
  const bool global = a.where == Space::Global;
  // Lanes are applied in lane order, as one of the orders hardware may pick.
  each_lane(mask, [&](uint32_t i) {
    T bv = as<T>(b[i]);
    T cval = cv ? as<T>(cv[i]) : T(0);
    Bits* p = reinterpret_cast<Bits*>(a.host[i]);
    T old;
    if (in.atom == ptx::AtomOp::Cas) {
      // atom.cas d, [a], b, c: store c if *a == b.
      T cmpv = bv, newv = cval;
      if (global) {
        std::atomic_ref<Bits> r(*p);
        Bits expected = std::bit_cast<Bits>(cmpv);
        r.compare_exchange_strong(expected, std::bit_cast<Bits>(newv));
        old = std::bit_cast<T>(expected);
      } else {
        old = std::bit_cast<T>(*p);
        if (std::bit_cast<Bits>(old) == std::bit_cast<Bits>(cmpv)) *p = std::bit_cast<Bits>(newv);
      }
    } else if (global) {
      std::atomic_ref<Bits> r(*p);
      Bits cur = r.load(std::memory_order_relaxed);
      while (!r.compare_exchange_weak(cur, std::bit_cast<Bits>(atom_apply<T>(in.atom, std::bit_cast<T>(cur), bv, cval)))) {
      }
      old = std::bit_cast<T>(cur);
    } else {
      old = std::bit_cast<T>(*p);
      *p = std::bit_cast<Bits>(atom_apply<T>(in.atom, old, bv, cval));
    }
    if (out) out[i] = bits(old);
  });
}

void exec_atomic(const ptx::Instr& in, WarpContext& c) {
  const bool is_red = in.op == Op::Red;
  const ptx::Operand& addr_op = is_red ? in.ops[0] : in.ops[1];
  uint64_t tb[32], tc[32];
  const uint64_t* b = src(c, is_red ? in.ops[1] : in.ops[2], tb);
  const uint64_t* cv = (!is_red && in.atom == ptx::AtomOp::Cas) ? src(c, in.ops[3], tc) : nullptr;
  uint64_t* out = is_red ? nullptr : dst(c, in.ops[0]);
  uint64_t bcopy[32], ccopy[32];
  // The destination may be the same register as b or c.
  std::memcpy(bcopy, b, sizeof bcopy);
  if (cv) { std::memcpy(ccopy, cv, sizeof ccopy); cv = ccopy; }
  const uint32_t bytes = uint32_t(ptx::type_bytes(in.type));
  for_each_space(c, in, addr_op, bytes, [&](Access& a, uint32_t mask) {
    if (a.where == Space::Local || a.where == Space::Param) {
      raise_fault(c, "fault", "atomic operation on local or param memory: atomics need a global or shared address",
                  uint32_t(std::countr_zero(mask)));
      return;
    }
    if (!resolve(c, a, mask, true, bytes)) return;
    mask = checker_veto(c, a, mask, true, true);
    count_request(c, a.where, a.addr, a.bytes, mask, true, true);
    switch (in.type) {
      case Type::F32: atom_lanes<float>(c, in, a, mask, bcopy, cv, out); break;
      case Type::F64: atom_lanes<double>(c, in, a, mask, bcopy, cv, out); break;
      case Type::S32: atom_lanes<int32_t>(c, in, a, mask, bcopy, cv, out); break;
      case Type::S64: atom_lanes<int64_t>(c, in, a, mask, bcopy, cv, out); break;
      case Type::U64: case Type::B64: atom_lanes<uint64_t>(c, in, a, mask, bcopy, cv, out); break;
      case Type::B16: case Type::U16: atom_lanes<uint16_t>(c, in, a, mask, bcopy, cv, out); break;
      case Type::F16x2: case Type::F16: case Type::BF16: case Type::BF16x2:
        raise_fault(c, "unsupported", "half-precision atomics are not supported by the simulator",
                    uint32_t(std::countr_zero(mask)));
        return;
      default: atom_lanes<uint32_t>(c, in, a, mask, bcopy, cv, out); break;
    }
  });
}

// ---- cp.async --------------------------------------------------------------------------
// The source is read at issue and the shared destination written when the
// copy's group is waited on: cp.async.wait_group N completes every group but
// the N most recent committed, wait_all every copy (PTX ISA 9.7.9.25.3).
// Until then the destination holds what it held, so a kernel that reads it
// without waiting reads stale data here as it may on a GPU, and the checker,
// told of the copy at issue (MemoryAccess::is_async), reports the read.
void exec_cp_async(const ptx::Instr& in, WarpContext& c) {
  const uint32_t cp_size = uint32_t(in.ops[2].imm);
  uint64_t ts[32];
  const uint64_t* src_size = in.ops[3].kind != ptx::OperandKind::None ? src(c, in.ops[3], ts) : nullptr;
  Access s;
  s.bytes = cp_size;
  s.where = Space::Global;
  lane_addresses(c, in.ops[1], c.mask, s.addr);
  Access d;
  d.bytes = cp_size;
  d.where = Space::Shared;
  lane_addresses(c, in.ops[0], c.mask, d.addr);
  each_lane(c.mask, [&](uint32_t i) {
    d.addr[i] &= 0xffffffffull;
    if (d.addr[i] - ptx::kSharedWindow < ptx::kWindowSize) d.addr[i] -= ptx::kSharedWindow;
  });
  if (!resolve(c, d, c.mask, true, cp_size)) return;
  // A src-size of 0 reads nothing; only lanes that read need a valid source.
  uint32_t reading = c.mask;
  if (src_size) each_lane(c.mask, [&](uint32_t i) { if (uint32_t(src_size[i]) == 0) reading &= ~(1u << i); });
  if (reading && !resolve(c, s, reading, false, std::min<uint32_t>(cp_size, 4))) return;
  uint32_t mask = checker_veto(c, d, c.mask, true, false, nullptr, true);
  if (reading) count_request(c, s.where, s.addr, s.bytes, reading & mask, false);
  if (!mask) return;
  WarpState& w = *c.warp;
  AsyncCopy& a = w.async.emplace_back();
  a.pc = c.pc;
  a.mask = mask;
  a.bytes = std::min<uint32_t>(cp_size, sizeof a.data[0]);
  a.group = w.async_groups;
  each_lane(mask, [&](uint32_t i) {
    uint32_t n = src_size ? std::min<uint32_t>(uint32_t(src_size[i]), a.bytes) : a.bytes;
    if (n) std::memcpy(a.data[i], s.host[i], n);
    if (n < a.bytes) std::memset(a.data[i] + n, 0, a.bytes - n);
    a.dst[i] = d.addr[i];
  });
}

void exec_cp_async_wait(const ptx::Instr& in, WarpContext& c) {
  WarpState& w = *c.warp;
  if (in.op == Op::CpAsyncWaitAll) {
    cp_async_complete(c, c.mask, UINT32_MAX);
    return;
  }
  const uint32_t keep = uint32_t(in.ops[0].imm);
  cp_async_complete(c, c.mask, w.async_groups > keep ? w.async_groups - keep : 0);
}

}  // namespace

void exec_memory(const ptx::Instr& in, WarpContext& c) {
  switch (in.op) {
    case Op::Ld: case Op::Ldu: exec_load(in, c); return;
    case Op::St: exec_store(in, c); return;
    case Op::Atom: case Op::Red: exec_atomic(in, c); return;
    case Op::Cvta: {
      // cvta.<space> turns a space address into a generic one; cvta.to.<space> back (PTX ISA 9.7.9.17).
      uint64_t window = in.space == Space::Shared  ? ptx::kSharedWindow
                        : in.space == Space::Local ? ptx::kLocalWindow
                        : in.space == Space::Param ? ptx::kParamWindow
                                                   : 0;
      uint64_t ta[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      uint64_t* d = dst(c, in.ops[0]);
      const bool narrow = ptx::type_bytes(in.type) == 4;
      if (in.cvta_to)
        each_lane(c.mask, [&](uint32_t i) { uint64_t v = a[i] - window; d[i] = narrow ? uint32_t(v) : v; });
      else
        each_lane(c.mask, [&](uint32_t i) {
          uint64_t v = (window ? (a[i] & 0xffffffffull) : a[i]) + window;
          d[i] = narrow ? uint32_t(v) : v;
        });
      return;
    }
    case Op::Isspacep: {
      uint64_t ta[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      uint64_t* d = dst(c, in.ops[0]);
      each_lane(c.mask, [&](uint32_t i) {
        Space w = classify_generic(a[i]);
        d[i] = in.space == Space::Shared ? w == Space::Shared
               : in.space == Space::Local ? w == Space::Local
                                          : w == Space::Global;
      });
      return;
    }
    case Op::CpAsync: exec_cp_async(in, c); return;
    case Op::CpAsyncCommitGroup: ++c.warp->async_groups; return;
    case Op::CpAsyncWaitGroup: case Op::CpAsyncWaitAll: exec_cp_async_wait(in, c); return;
    case Op::Prefetch: return;
    default:
      raise_fault(c, "unsupported", std::string("'") + ptx::op_name(in.op) + "' is not supported",
                  uint32_t(std::countr_zero(c.mask)));
  }
}

ExecFn resolve_memory(const ptx::Instr& in) {
  switch (in.op) {
    case Op::Ld: case Op::Ldu: return exec_load;
    case Op::St: return exec_store;
    case Op::Atom: case Op::Red: return exec_atomic;
    case Op::CpAsync: return exec_cp_async;
    default: return exec_memory;
  }
}

}  // namespace lab::sim
