// lab/runtime/peer.cpp: the context's calls for several devices: choosing
// the current one, per-device memory, peer copies, and the run's device and
// link summary. The rules (what a copy costs, whose clock moves) are in
// devices.h/.cpp.
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "lab/runtime/context.h"

namespace lab::runtime {

static uint64_t address_of(const void* p) { return uint64_t(reinterpret_cast<uintptr_t>(p)); }

uint64_t Context::device_live_bytes() {
  std::lock_guard lock(mutex_);
  return devices_.now().live_bytes;
}

cudaError_t Context::set_device(int device) {
  std::lock_guard lock(mutex_);
  if (!devices_.valid(device)) {
    std::fprintf(stderr, "gpulab: device %d does not exist: the run simulates %d GPU%s (devices 0 to %d; "
                 "`gpulab run --gpus N` gives more)\n", device, devices_.count(), devices_.count() == 1 ? "" : "s",
                 devices_.count() - 1);
    return result(cudaErrorInvalidDevice);
  }
  devices_.set_current(device);
  return cudaSuccess;
}

cudaError_t Context::memcpy_peer(void* dst, int dst_device, const void* src, int src_device, size_t bytes,
                                 uintptr_t site, bool async) {
  std::lock_guard lock(mutex_);
  if (sticky_) return result(sticky_);
  if (!devices_.valid(dst_device) || !devices_.valid(src_device)) {
    std::fprintf(stderr, "gpulab: cudaMemcpyPeer between devices %d and %d: the run simulates %d GPU%s\n", dst_device,
                 src_device, devices_.count(), devices_.count() == 1 ? "" : "s");
    return result(cudaErrorInvalidDevice);
  }
  if (bytes == 0) return cudaSuccess;
  // Each side must lie inside one allocation of the device it is said to be on.
  auto check = [&](const void* p, int device, const char* which) -> bool {
    if (!is_device_range(p, bytes)) {
      std::fprintf(stderr, "gpulab: cudaMemcpyPeer of %zu bytes: the %s %p is not device memory (or the bytes run "
                   "past its allocation)\n", bytes, which, p);
      return false;
    }
    const sim::Buffer* b = memory_.find(address_of(p));
    const int owner = b ? devices_.owner(b->address) : -1;
    if (owner != device) {
      std::fprintf(stderr, "gpulab: cudaMemcpyPeer of %zu bytes: the %s %p was allocated on device %d, not on "
                   "device %d as the call says\n", bytes, which, p, owner, device);
      return false;
    }
    return true;
  };
  if (!check(dst, dst_device, "destination") || !check(src, src_device, "source")) return result(cudaErrorInvalidValue);
  if (options_.check) {
    const int issuer = devices_.current();
    // cudaMemcpyPeer is serialised with the work of the current, source and
    // destination devices; cudaMemcpyPeerAsync with none but its own stream.
    if (!async) order_.serialise_with(issuer, src_device, dst_device);
    const std::string where = site ? call_site_line(site) : "";
    ordered_operation(issuer,
                      {{address_of(src), address_of(src) + bytes, false}, {address_of(dst), address_of(dst) + bytes, true}},
                      fmt::format("{} of {} bytes from GPU {} to GPU {}{}", async ? "cudaMemcpyPeerAsync" : "cudaMemcpyPeer",
                                  bytes, src_device, dst_device, where.empty() ? "" : " at " + where));
    if (!async) order_.serialised_after(issuer, src_device, dst_device);
  }
  std::vector<uint8_t> tmp(bytes);
  memory_.read(address_of(src), tmp.data(), bytes);
  memory_.write(address_of(dst), tmp.data(), bytes);
  if (dst_device == src_device) {
    advance_clock(2.0 * double(bytes) / gpu_->dram_bytes_per_s, "d2d", "D2D", bytes);  // within a device: read and write in DRAM
  } else {
    devices_.peer_copy(dst_device, address_of(dst), src_device, address_of(src), bytes, site);
  }
  return cudaSuccess;
}

void Context::write_device_summary() {
  std::lock_guard lock(mutex_);
  if (!report_) return;
  std::string summary = devices_.summary_json();
  if (options_.check) {
    nlohmann::json j = nlohmann::json::parse(summary);
    j["stream_order_races"] = order_findings_;
    j["stream_order_race_count"] = order_race_count_;
    summary = j.dump();
  }
  std::fputs((summary + "\n").c_str(), report_);
  std::fflush(report_);
}

}  // namespace lab::runtime
