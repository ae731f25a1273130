// lab/sim/global_memory.h: the simulated device's global memory (one arena
// of buffers the caller fills and reads back). Split from launch.h so that
// code that only places or reads buffers needs nothing else of the simulator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lab/ptx/module.h"
#include "lab/sim/arena.h"

namespace lab::sim {

// ---- global memory -----------------------------------------------------------
// One arena of device memory. Buffers are placed at 256-byte aligned
// addresses (as cudaMalloc does) with guard gaps between them, so an index
// one past a buffer's end is detectable. Addresses are ptx::kGlobalBase + offset.
struct Buffer {
  uint64_t address = 0;     // device address of the first byte
  uint64_t bytes = 0;       // exact requested size (bounds checks use this)
  std::string name;         // "arg2", "A", ... for messages
  bool initialized = true;  // false: reads before a write are `uninitialized-read`
  bool freed = false;       // cudaFree released it (the arena never reuses it): with checks on, a use after free
};

class GlobalMemory {
 public:
  GlobalMemory();
  ~GlobalMemory();
  // Returns the device address. Contents are zero unless `initialized` is false,
  // in which case they are filled with a poison pattern (0xff bytes).
  uint64_t allocate(uint64_t bytes, std::string name, bool initialized = true);
  // lab/runtime (a CUDA program's memory): gives the arena a host view at the
  // device addresses themselves (Arena::share_with_host); before any buffer.
  bool share_with_host(std::string* error) { return arena_.share_with_host(arena_base(), error); }
  // A zeroed buffer the host can also read and write at its device address
  // (cudaMallocManaged), on pages of its own; 0 when the arena is not shared.
  uint64_t allocate_host_visible(uint64_t bytes, std::string name);
  // The host's view of such a buffer closes again (cudaFree of managed memory).
  void hide_from_host(uint64_t address, uint64_t bytes) {
    if (address >= arena_base()) arena_.hide_from_host(address - arena_base(), bytes);
  }
  void write(uint64_t address, const void* src, uint64_t bytes);
  void read(uint64_t address, void* dst, uint64_t bytes) const;
  // Host pointer to device memory, or nullptr when [address, address+bytes) is
  // outside the arena. The hot path of the interpreter uses this.
  uint8_t* host(uint64_t address, uint64_t bytes);
  const Buffer* find(uint64_t address) const;  // the buffer containing address, or nullptr
  void mark_freed(uint64_t address);           // cudaFree of the buffer starting at address
  const std::vector<Buffer>& buffers() const { return buffers_; }
  uint64_t arena_bytes() const { return arena_.size(); }
  // Reserve the module's .global segment at kGlobalBase (done by launch()).
  void ensure_module_globals(const ptx::Module& m);
  // Loads `m`'s globals with their initialisers even when a module of the
  // same segment size is loaded (a program with several modules, lab/runtime).
  void reload_module_globals(const ptx::Module& m) {
    module_loaded_ = false;
    ensure_module_globals(m);
  }
  // Room for `buffers` more buffers of `bytes` in all without moving the
  // arena: a caller that knows its allocations saves the copies (and the
  // transient double footprint) of growing it one buffer at a time.
  void reserve(uint64_t bytes, uint32_t buffers = 1);
  // The workspace a cooperative launch's grid.sync() counts arrivals in
  // (cooperative_groups/details/driver_abi.h: { wsSize, barrier }), made at
  // the first cooperative launch and zeroed before each.
  uint64_t grid_workspace();
  // Buffers start here; [kGlobalBase, arena_base()) holds the module's globals.
  static constexpr uint64_t arena_base() { return ptx::kGlobalBase + (uint64_t(1) << 30); }
  uint8_t* module_segment() { return module_segment_.data(); }
  uint64_t module_segment_bytes() const { return module_segment_.size(); }

 private:
  Arena arena_;
  // Records a buffer at arena offset `offset` (already placed) and returns its address.
  uint64_t add_buffer(uint64_t offset, uint64_t bytes, std::string name, bool initialized);
  std::vector<Buffer> buffers_;  // sorted by address
  std::vector<uint8_t> module_segment_;  // module .global/.const variables at kGlobalBase
  uint64_t module_bytes_ = 0;
  bool module_loaded_ = false;
  uint64_t grid_workspace_ = 0;
};

}  // namespace lab::sim
