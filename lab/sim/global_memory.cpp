// lab/sim/global_memory.cpp: the device's global memory, one arena.
//
// Layout: module .global/.const variables at ptx::kGlobalBase (the parser
// assigns them kGlobalBase + offset), then buffers from arena_base() on, each
// at a 256-byte aligned address (cudaMalloc's alignment, CUDA C++
// Programming Guide 5.3.2) with at least 256 guard bytes after it, so an
// access just past a buffer's end lands outside every buffer.
#include <algorithm>
#include <cassert>
#include <cstring>

#include "lab/sim/launch.h"

namespace lab::sim {

namespace {
constexpr uint64_t kAlign = 256;
constexpr uint64_t kGuard = 256;
uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
}  // namespace

GlobalMemory::GlobalMemory() = default;
GlobalMemory::~GlobalMemory() = default;

uint64_t GlobalMemory::grid_workspace() {
  if (!grid_workspace_) grid_workspace_ = allocate(16, "the cooperative grid's barrier (the driver's workspace)");
  const uint32_t words[4] = {16, 0, 0, 0};  // wsSize, barrier
  write(grid_workspace_, words, sizeof words);
  return grid_workspace_;
}

uint64_t GlobalMemory::allocate(uint64_t bytes, std::string name, bool initialized) {
  // A leading guard region so that address arena_base() - k is outside too.
  uint64_t offset = round_up(std::max<uint64_t>(arena_.size(), kGuard), kAlign);
  uint64_t end = round_up(offset + std::max<uint64_t>(bytes, 1) + kGuard, kAlign);
  arena_.resize(end);
  if (!initialized) std::memset(arena_.data() + offset, 0xff, bytes);
  return add_buffer(offset, bytes, std::move(name), initialized);
}

uint64_t GlobalMemory::add_buffer(uint64_t offset, uint64_t bytes, std::string name, bool initialized) {
  Buffer b;
  b.address = arena_base() + offset;
  b.bytes = bytes;
  b.name = std::move(name);
  b.initialized = initialized;
  buffers_.push_back(std::move(b));  // addresses grow, so buffers_ stays sorted
  return arena_base() + offset;
}

uint64_t GlobalMemory::allocate_host_visible(uint64_t bytes, std::string name) {
  if (!arena_.shared()) return 0;
  // Whole host pages, before and after: the host's view opens pages, and no
  // other buffer may share one (a host dereference of a cudaMalloc pointer
  // must still fault).
  const uint64_t page = Arena::kHostPage;
  uint64_t offset = round_up(std::max<uint64_t>(arena_.size(), kGuard), page);
  uint64_t end = round_up(offset + std::max<uint64_t>(bytes, 1), page) + page;  // a guard page after
  arena_.resize(end);
  if (!arena_.expose_to_host(offset, round_up(std::max<uint64_t>(bytes, 1), page))) return 0;
  return add_buffer(offset, bytes, std::move(name), true);
}

void GlobalMemory::reserve(uint64_t bytes, uint32_t buffers) {
  // Each buffer takes its bytes rounded up, plus a guard and alignment (allocate()).
  arena_.reserve(round_up(std::max<uint64_t>(arena_.size(), kGuard), kAlign) + round_up(bytes, kAlign) +
                 uint64_t(buffers) * (kGuard + 2 * kAlign) + 4 * kAlign);
}

void GlobalMemory::write(uint64_t address, const void* src, uint64_t bytes) {
  uint8_t* p = host(address, bytes);
  assert(p && "GlobalMemory::write outside the arena");
  if (p && bytes) std::memcpy(p, src, bytes);
}

void GlobalMemory::read(uint64_t address, void* dst, uint64_t bytes) const {
  uint8_t* p = const_cast<GlobalMemory*>(this)->host(address, bytes);
  assert(p && "GlobalMemory::read outside the arena");
  if (p && bytes) std::memcpy(dst, p, bytes);
}

uint8_t* GlobalMemory::host(uint64_t address, uint64_t bytes) {
  if (address >= arena_base()) {
    uint64_t off = address - arena_base();
    if (off <= arena_.size() && bytes <= arena_.size() - off) return arena_.data() + off;
    return nullptr;
  }
  if (address >= ptx::kGlobalBase) {
    uint64_t off = address - ptx::kGlobalBase;
    if (off <= module_segment_.size() && bytes <= module_segment_.size() - off) return module_segment_.data() + off;
  }
  return nullptr;
}

const Buffer* GlobalMemory::find(uint64_t address) const {
  auto it = std::upper_bound(buffers_.begin(), buffers_.end(), address,
                             [](uint64_t a, const Buffer& b) { return a < b.address; });
  if (it == buffers_.begin()) return nullptr;
  --it;
  if (address >= it->address && address < it->address + it->bytes) return &*it;
  return nullptr;
}

void GlobalMemory::mark_freed(uint64_t address) {
  for (Buffer& b : buffers_)
    if (b.address == address) b.freed = true;
}

void GlobalMemory::ensure_module_globals(const ptx::Module& m) {
  if (module_loaded_ && module_bytes_ == m.global_segment_bytes) return;
  // VarDecl::offset is relative to kGlobalBase; accept an absolute address too.
  auto rel = [](const ptx::VarDecl& v) { return v.offset >= ptx::kGlobalBase ? v.offset - ptx::kGlobalBase : v.offset; };
  uint64_t bytes = m.global_segment_bytes;
  for (const ptx::VarDecl& v : m.globals) bytes = std::max(bytes, rel(v) + v.size);
  assert(bytes < (uint64_t(1) << 30) && "module globals exceed the 1 GiB segment");
  module_segment_.assign(bytes, 0);
  for (const ptx::VarDecl& v : m.globals)
    if (!v.init.empty())
      std::memcpy(module_segment_.data() + rel(v), v.init.data(), std::min<uint64_t>(v.init.size(), v.size));
  module_bytes_ = m.global_segment_bytes;
  module_loaded_ = true;
}

}  // namespace lab::sim
