// lab/sim/arena.cpp: the arena's two storages (arena.h).
#include "lab/sim/arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include <fmt/format.h>

namespace lab::sim {

namespace {
// Address space both views reserve up front, so that neither ever moves: more
// than any GPU model's memory (H200: 141 GB) times the 8 devices `gpulab run
// --gpus` allows. Reserving costs no memory; pages exist once written.
constexpr uint64_t kReserve = uint64_t(2) << 40;
}  // namespace

Arena::~Arena() {
  if (!shared_) return;
  munmap(sim_view_, reserved_);
  munmap(host_view_, reserved_);
  close(fd_);
}

Arena& Arena::operator=(const Arena& o) {
  if (this != &o) {
    Arena copy(o);
    swap(copy);
  }
  return *this;
}

void Arena::swap(Arena& o) noexcept {
  std::swap(bytes_, o.bytes_);
  std::swap(shared_, o.shared_);
  std::swap(fd_, o.fd_);
  std::swap(sim_view_, o.sim_view_);
  std::swap(host_view_, o.host_view_);
  std::swap(size_, o.size_);
  std::swap(reserved_, o.reserved_);
}

void Arena::resize(uint64_t bytes) {
  if (!shared_) {
    if (bytes > bytes_.size()) bytes_.resize(bytes, 0);
    return;
  }
  if (bytes <= size_) return;
  // A memfd grows with zero pages, in both views at once.
  if (bytes > reserved_ || ftruncate(fd_, off_t(bytes)) != 0)
    throw std::bad_alloc();
  size_ = bytes;
}

void Arena::reserve(uint64_t bytes) {
  if (!shared_) bytes_.reserve(bytes);
}

bool Arena::share_with_host(uint64_t host_address, std::string* error) {
  if (shared_) return true;
  if (!bytes_.empty()) {
    *error = "the arena already holds buffers";
    return false;
  }
  int fd = memfd_create("gpulab-device-memory", MFD_CLOEXEC);
  if (fd < 0) {
    *error = fmt::format("memfd_create: {}", std::strerror(errno));
    return false;
  }
  void* sim = mmap(nullptr, kReserve, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  if (sim == MAP_FAILED) {
    *error = fmt::format("mmap of the simulator's view: {}", std::strerror(errno));
    close(fd);
    return false;
  }
  // PROT_NONE until an allocation is exposed: the host view is only the pages
  // of managed allocations.
  void* host = mmap(reinterpret_cast<void*>(host_address), kReserve, PROT_NONE,
                    MAP_SHARED | MAP_NORESERVE | MAP_FIXED_NOREPLACE, fd, 0);
  if (host == MAP_FAILED || host != reinterpret_cast<void*>(host_address)) {
    *error = fmt::format("mmap at 0x{:x}: {}", host_address,
                         host == MAP_FAILED ? std::strerror(errno) : "the kernel placed it elsewhere");
    if (host != MAP_FAILED) munmap(host, kReserve);
    munmap(sim, kReserve);
    close(fd);
    return false;
  }
  fd_ = fd;
  sim_view_ = static_cast<uint8_t*>(sim);
  host_view_ = static_cast<uint8_t*>(host);
  reserved_ = kReserve;
  size_ = 0;
  shared_ = true;
  return true;
}

bool Arena::protect_host_pages(uint64_t offset, uint64_t bytes, int prot) {
  if (!shared_ || offset % kHostPage || offset + bytes > size_) return false;
  uint64_t len = (bytes + kHostPage - 1) / kHostPage * kHostPage;
  return mprotect(host_view_ + offset, len, prot) == 0;
}

bool Arena::expose_to_host(uint64_t offset, uint64_t bytes) {
  return protect_host_pages(offset, bytes, PROT_READ | PROT_WRITE);
}

bool Arena::hide_from_host(uint64_t offset, uint64_t bytes) { return protect_host_pages(offset, bytes, PROT_NONE); }

}  // namespace lab::sim
