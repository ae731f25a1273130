// lab/runtime/stream_order.cpp: happens-before across devices, and the races it leaves.
#include "lab/runtime/stream_order.h"

#include <algorithm>

#include <fmt/format.h>

namespace lab::runtime {

namespace {
// Elementwise max: what `into` knows after learning what `from` knew.
void learn(std::vector<uint64_t>& into, const std::vector<uint64_t>& from) {
  for (size_t i = 0; i < into.size() && i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}
}  // namespace

void StreamOrder::resize(int devices) {
  issued_.assign(size_t(devices), 0);
  known_.assign(size_t(devices), std::vector<uint64_t>(size_t(devices), 0));
  host_known_.assign(size_t(devices), 0);
  events_.clear();
  recent_.clear();
}

std::vector<std::string> StreamOrder::operation(int device, const std::vector<Span>& spans, const std::string& what) {
  std::vector<std::string> found;
  if (size_t(device) >= issued_.size()) return found;
  // The host issues this after everything it has waited for.
  std::vector<uint64_t>& k = known_[size_t(device)];
  learn(k, host_known_);
  for (const Op& e : recent_) {
    if (ordered(e, device)) continue;
    // The first pair of spans that overlap, one of them a write.
    const Span *a = nullptr, *b = nullptr;
    for (const Span& x : e.spans)
      for (const Span& y : spans)
        if (!a && x.lo < y.hi && y.lo < x.hi && (x.write || y.write)) a = &x, b = &y;
    if (!a) continue;
    found.push_back(fmt::format(
        "{} on GPU {} {} bytes that {} on GPU {} {}, and nothing orders the two: on a GPU they may run at the same "
        "time. Record an event after the first (cudaEventRecord) and make the second's stream wait for it "
        "(cudaStreamWaitEvent), or synchronise in between",
        what, device, b->write ? "writes" : "reads", e.what, e.device, a->write ? "writes" : "reads"));
  }
  Op op;
  op.device = device;
  op.index = ++issued_[size_t(device)];
  op.spans = spans;
  op.what = what;
  k[size_t(device)] = op.index;
  recent_.push_back(std::move(op));
  prune();
  return found;
}

void StreamOrder::serialise_with(int issuer, int a, int b) {
  if (size_t(issuer) >= issued_.size()) return;
  for (int d : {a, b})
    if (size_t(d) < issued_.size()) learn(known_[size_t(issuer)], known_[size_t(d)]);
}

void StreamOrder::serialised_after(int issuer, int a, int b) {
  if (size_t(issuer) >= issued_.size()) return;
  for (int d : {a, b})
    if (size_t(d) < issued_.size()) learn(known_[size_t(d)], known_[size_t(issuer)]);
}

void StreamOrder::record_event(uintptr_t event, int device) {
  if (size_t(device) < issued_.size()) events_[event] = known_[size_t(device)];
}

void StreamOrder::wait_event(int device, uintptr_t event) {
  auto it = events_.find(event);
  if (it == events_.end() || size_t(device) >= issued_.size()) return;
  learn(known_[size_t(device)], it->second);
}

void StreamOrder::host_waits_for(int device) {
  if (size_t(device) < issued_.size()) learn(host_known_, known_[size_t(device)]);
}

void StreamOrder::host_waits_for_event(uintptr_t event) {
  auto it = events_.find(event);
  if (it != events_.end()) learn(host_known_, it->second);
}

// An operation every device (and the host) is ordered after can race with
// nothing later; so can any beyond the last few thousand (kept bounded).
void StreamOrder::prune() {
  auto settled = [&](const Op& e) {
    for (size_t d = 0; d < issued_.size(); ++d)
      if (!ordered(e, int(d)) && host_known_[size_t(e.device)] < e.index) return false;
    return true;
  };
  std::erase_if(recent_, settled);
  while (recent_.size() > 4096) recent_.pop_front();
}

}  // namespace lab::runtime
