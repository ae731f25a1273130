// lab/runtime/stream_order.h: which of a program's GPU operations CUDA orders
// before which, across simulated GPUs, for `gpulab run --check`.
//
// The runtime finishes every call before it returns, so a program whose
// copies and kernels are not ordered still computes the right answer here.
// On GPUs it may not: cudaMemcpyPeerAsync "is asynchronous with respect to
// the host and all work on other devices" (CUDA Runtime API reference,
// cudaMemcpyPeerAsync), so a kernel on the receiving GPU that does not wait
// for the copy may read the bytes before they land, and a copy into a buffer
// that a kernel on another GPU still uses may overwrite it under the kernel.
// What orders work across devices: an event recorded after the work and
// cudaStreamWaitEvent on the other device's stream, the host waiting
// (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, a
// synchronous cudaMemcpy) before it issues the later work, and cudaMemcpyPeer,
// which is serialised with the work of the current, source and destination
// devices (Runtime API reference, cudaMemcpyPeer).
//
// StreamOrder keeps one queue per device (the lab serves each device's
// streams in issue order, as the legacy default stream orders them), counts
// each device's operations, and keeps for every device a vector clock: the
// last operation of each other device it is known to follow. A new copy or kernel is checked against
// recent operations on other devices that touch the same bytes, one of them
// writing: unordered, they race.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace lab::runtime {

class StreamOrder {
 public:
  struct Span {
    uint64_t lo = 0, hi = 0;  // [lo, hi) device addresses
    bool write = false;
  };

  void resize(int devices);
  // An operation on `device`'s queue touching `spans`; `what` names it in a
  // finding ("kernel add_into (launch #12)", "cudaMemcpyPeerAsync at ring.cu:40").
  // Returns the findings: one sentence per earlier operation it races with.
  std::vector<std::string> operation(int device, const std::vector<Span>& spans, const std::string& what);
  // cudaMemcpyPeer (synchronous): ordered after the work of `a` and `b` so far,
  // and their later work after it. Call before operation() for the copy; after() after it.
  void serialise_with(int issuer, int a, int b);
  void serialised_after(int issuer, int a, int b);
  void record_event(uintptr_t event, int device);
  void wait_event(int device, uintptr_t event);  // cudaStreamWaitEvent on a stream of `device`
  void host_waits_for(int device);               // the host waited for all of `device`'s work so far
  void host_waits_for_event(uintptr_t event);

 private:
  struct Op {
    int device = 0;
    uint64_t index = 0;  // 1, 2, ... on its device
    std::vector<Span> spans;
    std::string what;
  };
  bool ordered(const Op& earlier, int device) const {
    return earlier.device == device || known_[size_t(device)][size_t(earlier.device)] >= earlier.index;
  }
  void prune();

  std::vector<uint64_t> issued_;              // per device: operations so far
  // Vector clocks: known_[d][c] = d's next operation follows c's operations
  // up to this index, directly or through others (an event carries what its
  // device knew when it was recorded, so waiting on it passes that on).
  std::vector<std::vector<uint64_t>> known_;
  std::vector<uint64_t> host_known_;          // what the host has waited for, the same way
  std::map<uintptr_t, std::vector<uint64_t>> events_;
  std::deque<Op> recent_;                     // operations a later one may still race with
};

}  // namespace lab::runtime
