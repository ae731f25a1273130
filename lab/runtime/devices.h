// lab/runtime/devices.h: the N simulated GPUs of one `gpulab run --gpus N`.
//
// Every device is the same GPU model (--gpu) with its own predicted
// timeline, its own count of cudaMalloc bytes (live and peak) and its own
// link ports. The address space is one (CUDA's unified virtual addressing):
// each allocation belongs to the device that was current when it was made.
//
// The timing rules, each in one place here:
//  * a launch or a host copy advances the current device's clock only:
//    devices run concurrently, so a step's time is the largest clock;
//  * a peer copy (cudaMemcpyPeer, or a cudaMemcpy between two devices'
//    memory) is an operation of the device current when it is called (its
//    stream): it starts when that device has finished what came before and
//    both the source's send port and the destination's receive port are
//    free, and what it reads has landed (a copy into those bytes has ended),
//    and takes the link's latency plus bytes / bandwidth (one direction).
//    The issuing device waits for it (stream order); the destination's next
//    launch or event waits for it to land (the program synchronises before
//    a kernel uses the data, as CUDA requires).
//    Copies between different pairs of devices overlap; copies into one
//    device queue on its receive port: so an all-to-one reduction costs
//    (N - 1) transfers in a row at the root and a ring costs one per step.
//  * the link is a per-run choice: NVLink (through an NVSwitch, every pair
//    at the GPU's full NVLink rate, as in an HGX board) or PCIe (each GPU's
//    x16 link, peer to peer through a switch).
// Kernels that read a peer's memory directly would not be charged to a
// link, so a launch given a pointer into another device's memory is refused
// (launch.cpp): data moves between devices by copies.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lab/sim/device.h"

namespace lab::runtime {

enum class LinkKind { NVLink, PCIe };

// One operation on a device's predicted timeline, as the rules above placed
// it (recorded where the clock moves, never re-derived): a kernel launch, a
// host copy, a copy or memset within the device, or a peer copy it issued.
struct TimelineEvent {
  std::string kind;   // "kernel", "h2d", "d2h", "d2d", "memset", "peer"
  std::string name;   // the kernel's name, "H2D", "peer 0->1", ...
  double start = 0, end = 0;  // predicted seconds on this device's timeline
  uint64_t bytes = 0;         // copies and memsets; 0 for a kernel
  uint64_t order = 0;         // the program's call order, across devices
  int dst = -1;               // a peer copy's destination device
};

struct DeviceState {
  double clock = 0;           // predicted seconds of this device's timeline
  double send_free = 0;       // when its link port can start the next send
  double receive_free = 0;    // ... and the next receive
  double arrivals = 0;        // when the last copy into it lands
  struct Landing {
    uint64_t lo, hi;          // bytes [lo, hi) of its memory
    double end;
  };
  std::vector<Landing> landings;  // copies into it not yet settled
  uint64_t live_bytes = 0, peak_bytes = 0;  // cudaMalloc bytes owned by this device
  uint64_t launches = 0;
  // Of `clock`: time its timeline spent issuing peer copies (from the call to
  // the copy's end, waits for ports and data included), and waiting for
  // copies into it to land before a launch or event.
  double copy_seconds = 0, wait_seconds = 0;
  std::vector<bool> peer_enabled;
  std::vector<TimelineEvent> events;  // in timeline order
};

// Bytes one direction of one device pair carried, and from which call sites
// (the program's return addresses; resolved to file:line when reported).
struct LinkTraffic {
  uint64_t bytes = 0, copies = 0;
  double busy_seconds = 0;
  std::map<uintptr_t, uint64_t> bytes_by_site;
};

class Devices {
 public:
  void configure(int count, LinkKind link, const sim::GpuModel& gpu);
  int count() const { return int(devices_.size()); }
  LinkKind link() const { return link_; }
  const char* link_name() const { return link_ == LinkKind::NVLink ? "nvlink" : "pcie"; }
  double link_bytes_per_s() const;
  double link_latency_s() const;

  // The program's return address of the runtime call being served (cudart.cpp
  // sets it), so a copy between devices made by cudaMemcpy is named too.
  uintptr_t call_site = 0;

  int current() const { return current_; }
  bool valid(int d) const { return d >= 0 && d < count(); }
  void set_current(int d) { current_ = d; }
  DeviceState& state(int d) { return devices_[size_t(d)]; }
  DeviceState& now() { return devices_[size_t(current_)]; }

  // The current device runs an operation of `seconds`, after what it waits for.
  // `kind`, `name` and `bytes` label it in the device's event list.
  void advance(double seconds, const char* kind = "other", std::string name = "", uint64_t bytes = 0) {
    settle();
    DeviceState& d = now();
    d.events.push_back({kind, name.empty() ? kind : std::move(name), d.clock, d.clock + seconds, bytes, ++calls_});
    d.clock += seconds;
  }
  void settle() {
    DeviceState& d = now();
    if (d.arrivals > d.clock) d.wait_seconds += d.arrivals - d.clock;
    d.clock = std::max(d.clock, d.arrivals);
    now().landings.clear();
  }
  void on_malloc(uint64_t address, uint64_t bytes);
  // The device that owned it; -1 when the address was never allocated here.
  int on_free(uint64_t address);
  int owner(uint64_t address) const;  // of the allocation starting at `address`; -1 if none
  // [lo, hi) of every allocation not on `device` nor on a device it has
  // peer access to (cudaDeviceEnablePeerAccess), sorted: what a kernel on
  // `device` may not touch (sim::SimOptions::foreign_global).
  std::vector<std::pair<uint64_t, uint64_t>> allocations_not_on(int device) const;
  // A kernel on the current device touched [lo, hi) of global memory
  // (sim::GlobalRange): the part in a peer's allocations crossed that link,
  // from the peer for reads, to it for writes, and is counted there under
  // `site` (the launch's call site), as the bytes of a peer copy are.
  void charge_peer_access(uint64_t lo, uint64_t hi, bool write, uintptr_t site);
  bool has_peer_access() const;  // the current device may touch a peer's memory

  // Charges a copy of `bytes` from device `src` to device `dst` (the rule
  // above) and counts it on that direction's link, under `site`.
  // The current device issues it; `dst_address` and `src_address` are the
  // copy's bytes, for its data dependences.
  void peer_copy(int dst, uint64_t dst_address, int src, uint64_t src_address, uint64_t bytes, uintptr_t site);

  // One JSON object: per device (clock, bytes, launches) and per directed
  // link (bytes, copies, busy time, the call sites with file:line).
  std::string summary_json() const;

 private:
  const sim::GpuModel* gpu_ = nullptr;
  LinkKind link_ = LinkKind::NVLink;
  std::vector<DeviceState> devices_{1};
  int current_ = 0;
  uint64_t calls_ = 0;  // operations so far (TimelineEvent::order)
  std::map<uint64_t, std::pair<int, uint64_t>> allocations_;  // address -> (device, bytes)
  std::map<std::pair<int, int>, LinkTraffic> links_;           // (src, dst)
};

// "file:line" of a return address in the running program (its debug line
// table, through addr2line); "" when it cannot be told.
std::string call_site_line(uintptr_t return_address);  // cached per address
std::string locate_call_site(uintptr_t return_address);  // addr2line itself, uncached

}  // namespace lab::runtime
