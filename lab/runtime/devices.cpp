// lab/runtime/devices.cpp: the simulated GPUs' timelines, memory counts and
// links (the rules are in devices.h).
#include "lab/runtime/devices.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace lab::runtime {

void Devices::configure(int count, LinkKind link, const sim::GpuModel& gpu) {
  gpu_ = &gpu;
  link_ = link;
  devices_.assign(size_t(std::max(1, count)), DeviceState{});
  calls_ = 0;
  for (auto& d : devices_) d.peer_enabled.assign(devices_.size(), false);
  current_ = 0;
}

// One direction of one GPU's link. NVLink: the datasheet's NVLink figure
// (lab/sim/device.cpp), every pair at full rate as through an NVSwitch; a
// model without NVLink falls back to PCIe. PCIe: the GPU's x16 link.
double Devices::link_bytes_per_s() const {
  if (link_ == LinkKind::NVLink && gpu_->nvlink_bytes_per_s > 0) return gpu_->nvlink_bytes_per_s;
  return gpu_->host_bytes_per_s;
}

// Start-up of one peer copy. PCIe: 4.1 us, the best-pair P2P latency measured
// on PCIe 5.0 x16 by lukealonso/p2pmark (README, latency mode). NVLink: 2 us,
// an assumption of the same order (a copy's DMA set-up dominates a small
// transfer on either link); NVIDIA publishes neither.
double Devices::link_latency_s() const {
  return link_ == LinkKind::NVLink && gpu_->nvlink_bytes_per_s > 0 ? 2e-6 : 4.1e-6;
}

void Devices::on_malloc(uint64_t address, uint64_t bytes) {
  allocations_[address] = {current_, bytes};
  DeviceState& d = now();
  d.live_bytes += bytes;
  d.peak_bytes = std::max(d.peak_bytes, d.live_bytes);
}

int Devices::on_free(uint64_t address) {
  auto it = allocations_.find(address);
  if (it == allocations_.end()) return -1;
  const int dev = it->second.first;
  state(dev).live_bytes -= it->second.second;
  allocations_.erase(it);
  return dev;
}

std::vector<std::pair<uint64_t, uint64_t>> Devices::allocations_not_on(int device) const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  const std::vector<bool>& peers = devices_[size_t(device)].peer_enabled;
  for (const auto& [address, owner_size] : allocations_) {
    const int owner = owner_size.first;
    const bool peer = owner >= 0 && size_t(owner) < peers.size() && peers[size_t(owner)];
    if (owner != device && !peer) out.emplace_back(address, address + owner_size.second);
  }
  return out;
}

bool Devices::has_peer_access() const {
  for (bool p : devices_[size_t(current_)].peer_enabled)
    if (p) return true;
  return false;
}

void Devices::charge_peer_access(uint64_t lo, uint64_t hi, bool write, uintptr_t site) {
  // The allocations [lo, hi) overlaps: the last one starting at or below lo, and those after it.
  auto it = allocations_.upper_bound(lo);
  if (it != allocations_.begin()) --it;
  for (; it != allocations_.end() && it->first < hi; ++it) {
    const int owner = it->second.first;
    if (owner == current_ || owner < 0 || owner >= count()) continue;
    const uint64_t a = std::max(lo, it->first), b = std::min(hi, it->first + it->second.second);
    if (a >= b) continue;
    LinkTraffic& t = links_[write ? std::pair{current_, owner} : std::pair{owner, current_}];
    t.bytes += b - a;
    t.busy_seconds += double(b - a) / link_bytes_per_s();
    t.bytes_by_site[site] += b - a;
  }
}

int Devices::owner(uint64_t address) const {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return -1;
  --it;
  return address < it->first + it->second.second ? it->second.first : -1;
}

void Devices::peer_copy(int dst, uint64_t dst_address, int src, uint64_t src_address, uint64_t bytes,
                        uintptr_t site) {
  DeviceState &s = state(src), &d = state(dst);
  DeviceState& issuer = now();
  // The bytes it reads must have landed, if a copy brought them; copies into
  // the rest of that device (the ring's next chunk) do not hold it up.
  double ready = 0;
  for (const auto& l : s.landings)
    if (l.lo < src_address + bytes && src_address < l.hi) ready = std::max(ready, l.end);
  const double seconds = link_latency_s() + double(bytes) / link_bytes_per_s();
  const double start = std::max({issuer.clock, s.send_free, d.receive_free, ready});
  const double end = start + seconds;
  s.send_free = d.receive_free = end;
  issuer.events.push_back({"peer", fmt::format("peer {}->{}", src, dst), start, end, bytes, ++calls_, dst});
  issuer.copy_seconds += end - issuer.clock;
  issuer.clock = end;
  d.arrivals = std::max(d.arrivals, end);
  d.landings.push_back({dst_address, dst_address + bytes, end});
  LinkTraffic& t = links_[{src, dst}];
  t.bytes += bytes;
  t.copies += 1;
  t.busy_seconds += seconds;
  t.bytes_by_site[site] += bytes;
}

std::string Devices::summary_json() const {
  nlohmann::json devs = nlohmann::json::array(), links = nlohmann::json::array();
  for (size_t i = 0; i < devices_.size(); ++i) {
    const DeviceState& d = devices_[i];
    // The milliseconds again, as lessons print them (lesson 11's README cites them).
    nlohmann::json events = nlohmann::json::array();
    for (const TimelineEvent& e : d.events) {
      nlohmann::json j = {{"kind", e.kind}, {"name", e.name}, {"start_s", e.start}, {"end_s", e.end},
                            {"order", e.order}};
      if (e.kind == "peer") j["dst"] = e.dst;
      if (e.kind != "kernel") j["bytes"] = e.bytes;
      events.push_back(std::move(j));
    }
    devs.push_back({{"device", i}, {"events", events}, {"predicted_seconds", d.clock}, {"predicted_ms", d.clock * 1e3},
                    {"copy_ms", d.copy_seconds * 1e3}, {"live_bytes", d.live_bytes},
                    {"peak_bytes", d.peak_bytes}, {"launches", d.launches},
                    {"copy_seconds", d.copy_seconds}, {"wait_seconds", d.wait_seconds}});
  }
  for (const auto& [pair, t] : links_) {
    nlohmann::json sites = nlohmann::json::array();
    for (const auto& [site, bytes] : t.bytes_by_site) {
      nlohmann::json j = {{"bytes", bytes}};
      if (std::string where = site ? call_site_line(site) : ""; !where.empty()) {
        const size_t colon = where.rfind(':');
        j["file"] = where.substr(0, colon);
        j["line"] = std::atoi(where.c_str() + colon + 1);
      }
      sites.push_back(j);
    }
    links.push_back({{"src", pair.first}, {"dst", pair.second}, {"bytes", t.bytes}, {"copies", t.copies},
                     {"busy_seconds", t.busy_seconds}, {"sites", sites}});
  }
  return nlohmann::json{{"devices", devs},
                        {"link", link_name()},
                        {"link_bytes_per_s", link_bytes_per_s()},
                        {"link_latency_s", link_latency_s()},
                        {"links", links}}
      .dump();
}

std::string call_site_line(uintptr_t return_address) {
  // addr2line once per call site: a ring issues the same call thousands of
  // times. Never destroyed: the run's summary asks at exit, after function
  // statics constructed later than the context would have been destroyed.
  static auto* mutex = new std::mutex;
  static auto* known = new std::map<uintptr_t, std::string>;
  std::lock_guard lock(*mutex);
  if (auto it = known->find(return_address); it != known->end()) return it->second;
  std::string& line = (*known)[return_address];
  line = locate_call_site(return_address);
  return line;
}

std::string locate_call_site(uintptr_t return_address) {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(return_address), &info) || !info.dli_fname) return "";
  // The call instruction ends just before the return address; a PIE's
  // addresses in its line table are offsets from where it was loaded.
  const uintptr_t offset = return_address - 1 - reinterpret_cast<uintptr_t>(info.dli_fbase);
  // The main program's entry may carry argv[0] rather than a path.
  std::string exe = info.dli_fname;
  std::error_code ec;
  if (exe.empty() || exe.find('/') == std::string::npos || !std::filesystem::exists(exe, ec))
    exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (exe.empty() || exe.find('\'') != std::string::npos) return "";
  FILE* p = popen(fmt::format("addr2line -e '{}' {:#x} 2>/dev/null", exe, offset).c_str(), "r");
  if (!p) return "";
  char buf[4096] = {};
  std::string out = std::fgets(buf, sizeof buf, p) ? buf : "";
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (const size_t d = out.find(" (discriminator"); d != std::string::npos) out.resize(d);
  if (out.empty() || out[0] == '?' || out.find(":?") != std::string::npos || out.find(':') == std::string::npos) return "";
  return out;
}

}  // namespace lab::runtime
