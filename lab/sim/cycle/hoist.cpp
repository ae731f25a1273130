// lab/sim/cycle/hoist.cpp: global loads moved up a warp's trace (hoist.h).
#include "lab/sim/cycle/hoist.h"

#include <algorithm>

namespace lab::sim::cycle {

namespace {

// How far back (in instructions) a load is moved at most: bounds the cost
// of the scan; ptxas's own scheduling regions are basic blocks, far shorter.
constexpr size_t kMaxScan = 2048;

// Registers of shared-load results a warp holds ahead of their use: a shared
// load moves up only while the loads issued and not yet used stay within
// this many 32-bit registers. ptxas's own limit is not published; its sm_90
// SASS holds 14 in the lab's 03 (six LDS and two LDS.128 before the first
// FFMA, then one LDS per FFMA), 16 in siboehm's kernel 7 (two LDS.128 and
// eight LDS) and 16 in its kernel 11 (four LDS.128, the next two after 64
// FFMA) (ptxas 13.0, nvdisasm).
constexpr uint32_t kSharedLoadRegsAhead = 16;

enum class Access : uint8_t { None, GlobalLoad, Other, Store };

// One instruction of a trace as the order sees it (HoistMemo): its pc, any
// lane ran it, folded, its global access and its shared one.
uint64_t shape_of(const TraceInst& t, Access a, uint8_t shared_kind) {
  return uint64_t(t.pc) | uint64_t(t.mask != 0) << 27 | uint64_t(t.folded) << 28 | uint64_t(a) << 29 |
         uint64_t(shared_kind) << 31;
}

uint64_t hash_shape(const std::vector<uint64_t>& shape) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ shape.size();
  for (uint64_t v : shape) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  }
  return h;
}

// Puts w's instructions (and their requests and mbarrier events) in `order`
// and marks `dead` (hoist_loads decided both); returns `moved`.
uint32_t apply_order(WarpTrace& w, const std::vector<uint32_t>& mem_begin, const std::vector<uint32_t>& order,
                     const std::vector<uint32_t>& dead, const std::vector<uint32_t>& renamed, uint32_t moved) {
  const size_t n = w.insts.size();
  if (!moved) return 0;
  for (uint32_t j : dead) w.insts[j].dead = 1;
  for (uint32_t j : renamed) w.insts[j].renamed = 1;
  std::vector<TraceInst> insts(n);
  std::vector<TraceMem> mems;
  mems.reserve(w.mems.size());
  for (size_t p = 0; p < n; ++p) {
    const uint32_t o = order[p];
    insts[p] = w.insts[o];
    for (uint32_t m = mem_begin[o]; m < mem_begin[o + 1]; ++m) {
      mems.push_back(w.mems[m]);
      mems.back().inst = uint32_t(p);
    }
  }
  // The mbarrier phase events follow their instructions.
  if (!w.syncs.empty()) {
    std::vector<uint32_t> position(n);
    for (size_t p = 0; p < n; ++p) position[order[p]] = uint32_t(p);
    for (TraceSync& s : w.syncs) s.inst = position[s.inst];
    std::stable_sort(w.syncs.begin(), w.syncs.end(), [](const TraceSync& a, const TraceSync& b) { return a.inst < b.inst; });
  }
  w.insts = std::move(insts);
  w.mems = std::move(mems);
  return moved;
}

}  // namespace

const HoistMemo::Order* HoistMemo::find(uint64_t hash, const std::vector<uint64_t>& shape) {
  std::lock_guard<std::mutex> lock(m_);
  auto [b, e] = orders_.equal_range(hash);
  for (auto it = b; it != e; ++it)
    if (it->second.shape == shape) return &it->second;
  return nullptr;
}

void HoistMemo::add(uint64_t hash, Order order) {
  std::lock_guard<std::mutex> lock(m_);
  if (insts_ + order.shape.size() > kMaxInsts) return;
  insts_ += order.shape.size();
  orders_.emplace(hash, std::move(order));
}

uint32_t hoist_loads(const DecodedKernel& dk, WarpTrace& w, HoistMemo* memo) {
  const size_t n = w.insts.size();
  if (n < 2 || w.mems.empty()) return 0;
  // Requests per instruction: mems are sorted by inst.
  std::vector<uint32_t> mem_begin(n + 1, 0);
  {
    size_t m = 0;
    for (size_t i = 0; i <= n; ++i) {
      while (m < w.mems.size() && w.mems[m].inst < i) ++m;
      mem_begin[i] = uint32_t(m);
    }
  }
  // Each instruction's global access (Access), and its shared one: 1 a plain
  // load whose every access is to shared memory (an LDS, which moves up as a
  // global load does), 2 any other shared access (a store, an atomic,
  // ldmatrix: nothing shared moves past it). One pass over the requests.
  std::vector<Access> accesses(n, Access::None);
  std::vector<uint8_t> shared_kind(n, 0);
  for (size_t i = 0; i < n; ++i) {
    Access a = Access::None;
    bool shared = false, shared_write = false;
    for (uint32_t m = mem_begin[i]; m < mem_begin[i + 1]; ++m) {
      const TraceMem& r = w.mems[m];
      if (r.space == ptx::Space::Shared) {
        shared = true;
        shared_write |= r.write;
      } else if (a != Access::Store) {
        a = r.write ? Access::Store : Access::Other;
      }
    }
    const bool plain_load = dk.code[w.insts[i].pc].plain_load && w.insts[i].mask != 0;
    accesses[i] = a == Access::Other && plain_load ? Access::GlobalLoad : a;
    if (shared) shared_kind[i] = !shared_write && a == Access::None && plain_load ? 1 : 2;
  }
  std::vector<uint64_t> shape;
  uint64_t hash = 0;
  if (memo) {
    shape.resize(n);
    for (size_t i = 0; i < n; ++i) shape[i] = shape_of(w.insts[i], accesses[i], shared_kind[i]);
    hash = hash_shape(shape);
    if (const HoistMemo::Order* o = memo->find(hash, shape)) return apply_order(w, mem_begin, o->order, o->dead, o->renamed, o->moved);
  }
  auto access = [&](size_t i) { return accesses[i]; };
  auto is_load = [&](size_t i) { return access(i) == Access::GlobalLoad || shared_kind[i] == 1; };
  // The slots each instruction reads and writes as 64-bit masks (decode.h
  // read_bits): a pair whose masks are disjoint cannot conflict, which
  // settles most steps of the scans below without reading the slot lists.
  // In `order`, an instruction predicated off (apply_sass_shape) has empty
  // masks: it reads and writes nothing, and the scans step over it.
  const bool have_bits = dk.read_bits.size() == dk.code.size();
  auto read_bits = [&](size_t i) { return have_bits ? dk.read_bits[w.insts[i].pc] : ~0ull; };
  auto write_bits = [&](size_t i) { return have_bits ? dk.write_bits[w.insts[i].pc] : ~0ull; };
  auto reads = [&](size_t i) {
    const DecodedInstr& d = dk.code[w.insts[i].pc];
    return std::pair(dk.slots.data() + d.first, dk.slots.data() + d.first + d.reads);
  };
  auto writes = [&](size_t i) {
    const DecodedInstr& d = dk.code[w.insts[i].pc];
    return std::pair(dk.slots.data() + d.first + d.reads, dk.slots.data() + d.first + d.reads + d.writes);
  };
  auto in = [](uint32_t s, std::pair<const uint32_t*, const uint32_t*> set) {
    return std::find(set.first, set.second, s) != set.second;
  };

  // Scheduling regions of the dynamic stream: one begins at a leader of the
  // kernel's blocks (ptx/cfg.h), after a jump, and after an instruction
  // nothing crosses; a jump within the range of a branch ptxas predicates
  // (decode.h, if_converted_to: from the branch, or from the other side's
  // instructions apply_sass_shape put back predicated off) starts none, nor
  // do the leaders inside that range.
  std::vector<uint8_t> starts(n, 0);
  int64_t range_lo = -1, range_hi = -1;  // the predicated range the stream is in
  for (size_t i = 1; i < n; ++i) {
    const DecodedInstr& prev = dk.code[w.insts[i - 1].pc];
    const uint32_t from = w.insts[i - 1].pc, to = w.insts[i].pc;
    if (prev.if_converted_to >= 0) range_lo = from, range_hi = prev.if_converted_to;
    // Nor does the back edge of a loop ptxas unrolls (unroll.h: folded).
    if (w.insts[i - 1].folded && !prev.fused) continue;
    const bool predicated = to > from && int64_t(to) > range_lo && int64_t(to) <= range_hi;
    if (!predicated && (int64_t(to) < range_lo || int64_t(to) > range_hi)) range_lo = range_hi = -1;
    const bool jumped = to != from + 1 && !predicated;
    starts[i] = dk.code[w.insts[i].pc].region_start || jumped || prev.fence;
  }
  // Iterations of an unrolled loop (unroll.h): a folded back edge begins the
  // next. ptxas gives each unrolled iteration its own registers, so what an
  // earlier iteration reads or writes does not hold back a later one's load
  // or its address arithmetic; only the values it produces do. What moves
  // above an earlier iteration is marked renamed (TraceInst::renamed: it
  // does not wait for that iteration's writes of its PTX registers). The
  // scoreboard keeps one entry per PTX register, so an earlier iteration's
  // reader of a reused register waits for the later write, a few issue slots
  // after the one the SASS has it wait for.
  std::vector<uint32_t> iteration(n, 0);
  for (size_t i = 1; i < n; ++i) {
    const TraceInst& prev = w.insts[i - 1];
    const bool back_edge = prev.folded && !dk.code[prev.pc].fused && w.insts[i].pc <= prev.pc;
    iteration[i] = iteration[i - 1] + (back_edge ? 1 : 0);
  }
  // A global load in a predicated body is guarded by the branch's predicate
  // (`@!P0 LDG`): the branch counts as one of the load's producers, so the
  // predicate's own producers move up with it.
  auto guards_load = [&](size_t i) {
    const int32_t to = dk.code[w.insts[i].pc].if_converted_to;
    if (to < 0) return false;
    for (size_t j = i + 1; j < n && w.insts[j].pc < uint32_t(to) && w.insts[j].pc > w.insts[i].pc; ++j)
      if (access(j) == Access::GlobalLoad) return true;
    return false;
  };
  // Backward pass: the arithmetic that computes a global load's address or
  // guard within the load's region moves up with it (a list scheduler
  // places a load's producers before it).
  std::vector<uint8_t> feeds(n, 0);
  {
    std::vector<uint32_t> needed;  // slots a later global load of the region reads
    for (size_t i = n; i-- > 0;) {
      const DecodedInstr& d = dk.code[w.insts[i].pc];
      if (i + 1 < n && starts[i + 1]) needed.clear();
      const auto ri = reads(i), wi = writes(i);
      if (is_load(i)) {
        needed.insert(needed.end(), ri.first, ri.second);
        continue;
      }
      if (guards_load(i)) {
        feeds[i] = 1;
        needed.insert(needed.end(), ri.first, ri.second);
        continue;
      }
      const bool alu = d.unit == Unit::Int || d.unit == Unit::Fp32 || d.unit == Unit::Fp64;
      if (!alu || d.reads + d.writes == 0) continue;
      bool hit = false;
      for (const uint32_t* s = wi.first; s != wi.second; ++s)
        if (auto it = std::find(needed.begin(), needed.end(), *s); it != needed.end()) hit = true, needed.erase(it);
      if (!hit) continue;
      feeds[i] = 1;
      needed.insert(needed.end(), ri.first, ri.second);
    }
  }

  // For each shared load, the registers it writes; for each instruction, the
  // registers of the shared loads it is the first reader of (in trace order,
  // within the load's region).
  std::vector<uint32_t> load_regs(n, 0), first_use_regs(n, 0);
  std::vector<uint32_t> first_use(n, uint32_t(n));
  for (size_t i = 0; i < n; ++i) {
    if (shared_kind[i] != 1) continue;
    const auto wi = writes(i);
    load_regs[i] = uint32_t(wi.second - wi.first);
    // A merged-away vector load is the rest of NVVM's narrowed pair
    // (decode.cpp merge_sequence; scalar merges only take one-register
    // loads away): in the SASS its values are registers of the LDS.128 the
    // pair becomes, already counted with the narrowed load.
    if (w.insts[i].merged_away && load_regs[i] >= 2) load_regs[i] = 0;
    const uint64_t wb = write_bits(i);
    for (size_t k = i + 1; k < n && k <= i + kMaxScan && !starts[k]; ++k) {
      if (!(read_bits(k) & wb) || w.insts[k].mask == 0) continue;
      const auto rk = reads(k);
      bool uses = false;
      for (const uint32_t* s = wi.first; s != wi.second && !uses; ++s) uses = in(*s, rk);
      if (!uses) continue;
      first_use[i] = uint32_t(k);
      first_use_regs[k] += load_regs[i];
      break;
    }
  }
  std::vector<uint32_t> region_loads;  // the region's shared loads placed and not yet used (original indices)

  std::vector<uint32_t> order;  // original indices, in the new order
  order.reserve(n);
  // Beside `order`, each entry's masks (read_bits, write_bits), so a scan
  // step reads one contiguous array.
  std::vector<std::pair<uint64_t, uint64_t>> order_bits;
  order_bits.reserve(n);
  std::vector<uint32_t> dead;   // instructions whose results a moved load overwrites
  std::vector<uint32_t> renamed;  // instructions moved above an earlier unrolled iteration
  // Whether the entries order[pos, end) include one of an earlier iteration than i.
  auto crosses_iteration = [&](size_t i, size_t pos) {
    for (size_t q = pos; q < order.size(); ++q)
      if (iteration[order[q]] < iteration[i]) return true;
    return false;
  };
  std::vector<uint8_t> is_dead(n, 0);
  // Whether instruction i must stay below order[p]: it reads what that one
  // writes, or writes what that one reads or writes (rb, wb: i's masks).
  auto depends = [&](size_t i, size_t p, uint64_t rb, uint64_t wb) {
    const auto [rj_bits, wj_bits] = order_bits[p];
    if (!(wj_bits & (rb | wb)) && !(rj_bits & wb)) return false;  // independent (or predicated off)
    const uint32_t j = order[p];
    const auto ri = reads(i), wi = writes(i), wj = writes(j), rj = reads(j);
    if (iteration[j] < iteration[i]) {  // an earlier unrolled iteration: renamed, only its results count
      for (const uint32_t* s = wj.first; s != wj.second; ++s)
        if (in(*s, ri)) return true;
      return false;
    }
    for (const uint32_t* s = wj.first; s != wj.second; ++s)
      if (in(*s, ri) || in(*s, wi)) return true;
    for (const uint32_t* s = rj.first; s != rj.second; ++s)
      if (in(*s, wi)) return true;
    return false;
  };
  size_t region = 0;            // no load moves above order[region]
  uint64_t region_reads = 0, region_writes = 0;  // the masks of every entry from order[region] on
  uint32_t moved = 0;
  for (size_t i = 0; i < n; ++i) {
    if (starts[i]) region = order.size(), region_reads = region_writes = 0, region_loads.clear();
    size_t pos = order.size();
    const uint64_t rb = read_bits(i), wb = write_bits(i);
    if (feeds[i]) {
      const size_t floor = std::max(region, order.size() > kMaxScan ? order.size() - kMaxScan : size_t(0));
      // Independent of the whole region so far (a loop-invariant address):
      // it goes to the region's top without a scan.
      if (floor == region && !(region_writes & (rb | wb)) && !(region_reads & wb)) pos = floor;
      while (pos > floor && !depends(i, pos - 1, rb, wb)) --pos;
      if (crosses_iteration(i, pos)) renamed.push_back(uint32_t(i));
    } else if (shared_kind[i] == 1) {
      // A shared load moves up as a global load does (ptxas issues LDS
      // ahead of the math that uses them: siboehm's kernel 7 in sm_90a SASS
      // has its 10 loads of an iteration, LDS.128, 8 LDS, LDS.128, before the
      // first of its 64 FFMA, where NVRTC's PTX puts each load just before
      // its first use). It keeps its place among shared accesses (loads in
      // order; a store or atomic may alias) and crosses only what touches no
      // shared memory: arithmetic, global loads and stores. Register
      // dependencies stop it as they stop a global load.
      const size_t floor = std::max(region, order.size() > kMaxScan ? order.size() - kMaxScan : size_t(0));
      // Registers held by the region's earlier shared loads at the candidate
      // position: those not used yet at the end, and, as the scan crosses
      // the first use of one, that one too.
      std::erase_if(region_loads, [&](uint32_t l) { return first_use[l] <= i; });  // used by now
      uint32_t ahead = load_regs[i];
      for (uint32_t l : region_loads) ahead += load_regs[l];
      while (pos > floor) {
        const uint32_t j = order[pos - 1];
        if (w.insts[j].mask == 0) {
          --pos;
          continue;
        }
        const Unit uj = dk.code[w.insts[j].pc].unit;
        if (shared_kind[j] != 0 || access(j) == Access::Other || uj == Unit::Barrier || uj == Unit::AsyncWait) break;
        if (ahead + first_use_regs[j] > kSharedLoadRegsAhead) break;
        ahead += first_use_regs[j];
        if (depends(i, pos - 1, rb, wb)) break;
        --pos;
      }
      if (pos != order.size()) ++moved;
      region_loads.push_back(uint32_t(i));
    } else if (access(i) == Access::GlobalLoad) {
      const auto ri = reads(i), wi = writes(i);
      const size_t floor = std::max(region, order.size() > kMaxScan ? order.size() - kMaxScan : size_t(0));
      size_t first_dead = dead.size();
      while (pos > floor) {
        const uint32_t j = order[pos - 1];
        if (w.insts[j].mask == 0) {
          --pos;
          continue;
        }
        const Access aj = access(j);
        if (aj == Access::Store || aj == Access::GlobalLoad || aj == Access::Other) break;
        const auto [rj_bits, wj_bits] = order_bits[pos - 1];
        if (!(wj_bits & (rb | wb)) && !(rj_bits & wb)) {  // no RAW, WAR or WAW
          --pos;
          continue;
        }
        const auto wj = writes(j), rj = reads(j);
        bool raw = false, war = false, waw = false;
        for (const uint32_t* s = wj.first; s != wj.second; ++s) {
          if (in(*s, ri)) raw = true;
          if (in(*s, wi)) waw = true;
        }
        for (const uint32_t* s = rj.first; s != rj.second; ++s)
          if (in(*s, wi)) war = true;
        if (raw) break;
        if (iteration[j] < iteration[i]) {  // an earlier unrolled iteration's registers are its own
          --pos;
          continue;
        }
        // What an instruction whose result is dead reads does not matter:
        // the `v = zero` default that NVRTC copies before a guarded load
        // (ptxas gives the copy and the load different registers).
        if (war && !waw && is_dead[j]) war = false;
        if (waw) {
          // Crossable only if all it writes the load overwrites (then what it
          // reads does not matter either), and it is no memory access.
          bool all = dk.code[w.insts[j].pc].unit != Unit::Memory;
          for (const uint32_t* s = wj.first; s != wj.second && all; ++s) all = in(*s, wi);
          if (!all) break;
          dead.push_back(j);
          is_dead[j] = 1;
        } else if (war) {
          break;
        }
        --pos;
      }
      if (pos == order.size()) {
        for (size_t d = first_dead; d < dead.size(); ++d) is_dead[dead[d]] = 0;
        dead.resize(first_dead);
      } else {
        ++moved;
        if (crosses_iteration(i, pos)) renamed.push_back(uint32_t(i));
      }
    }
    order.insert(order.begin() + ptrdiff_t(pos), uint32_t(i));
    order_bits.insert(order_bits.begin() + ptrdiff_t(pos), w.insts[i].mask ? std::pair(rb, wb) : std::pair(uint64_t(0), uint64_t(0)));
    if (w.insts[i].mask) region_reads |= rb, region_writes |= wb;
  }
  apply_order(w, mem_begin, order, dead, renamed, moved);
  if (memo) memo->add(hash, HoistMemo::Order{std::move(shape), std::move(order), std::move(dead), std::move(renamed), moved});
  return moved;
}

}  // namespace lab::sim::cycle
