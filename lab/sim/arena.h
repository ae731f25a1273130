// lab/sim/arena.h: the bytes behind GlobalMemory's buffers. Ordinarily a
// growable vector. A CUDA program run by lab/runtime can ask for a second
// view of the same bytes at the device addresses themselves
// (share_with_host), so that memory the program allocates as managed
// (cudaMallocManaged) is one pointer both its host code and its kernels
// dereference. Only the pages of such allocations are opened to the host
// (expose_to_host); the rest of the host view stays inaccessible, so a host
// dereference of a plain cudaMalloc pointer still crashes, as on a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lab::sim {

class Arena {
 public:
  Arena() = default;
  ~Arena();
  // A copy is an ordinary arena holding the same bytes (a snapshot); the
  // host view stays with the original. A move takes the views along.
  Arena(const Arena& o) : bytes_(o.data(), o.data() + o.size()) {}
  Arena& operator=(const Arena& o);
  Arena(Arena&& o) noexcept { swap(o); }
  Arena& operator=(Arena&& o) noexcept {
    swap(o);
    return *this;
  }

  uint8_t* data() { return shared_ ? sim_view_ : bytes_.data(); }
  const uint8_t* data() const { return shared_ ? sim_view_ : bytes_.data(); }
  uint64_t size() const { return shared_ ? size_ : bytes_.size(); }
  void resize(uint64_t bytes);   // grows only; new bytes are zero
  void reserve(uint64_t bytes);  // room to grow without moving (a no-op when shared)

  // Places a host view of the arena at `host_address` (the device address of
  // offset 0). Only while the arena is empty; false (with `error` set) when
  // the host cannot map there. After it, data() never moves.
  bool share_with_host(uint64_t host_address, std::string* error);
  bool shared() const { return shared_; }
  // Opens [offset, offset + bytes) (whole pages: offsets the caller aligned
  // to kHostPage) to the host's reads and writes.
  bool expose_to_host(uint64_t offset, uint64_t bytes);
  // Closes them again (a freed managed allocation: a host access after
  // cudaFree faults, as on a GPU).
  bool hide_from_host(uint64_t offset, uint64_t bytes);
  static constexpr uint64_t kHostPage = 4096;

 private:
  void swap(Arena& o) noexcept;
  bool protect_host_pages(uint64_t offset, uint64_t bytes, int prot);  // whole pages of the host view
  std::vector<uint8_t> bytes_;
  bool shared_ = false;
  int fd_ = -1;                  // memfd holding the bytes when shared
  uint8_t* sim_view_ = nullptr;  // the simulator's view: all of it readable and writable
  uint8_t* host_view_ = nullptr; // the program's view at the device addresses
  uint64_t size_ = 0;
  uint64_t reserved_ = 0;        // both views' address-space reservation
};

}  // namespace lab::sim
