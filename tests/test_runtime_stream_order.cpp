// tests/test_runtime_stream_order.cpp: what CUDA orders across GPUs, and the
// races it leaves (lab/runtime/stream_order.h).
#include <doctest/doctest.h>

#include "lab/runtime/stream_order.h"

using lab::runtime::StreamOrder;
using Span = StreamOrder::Span;

namespace {
const Span kScratchWrite{0x1000, 0x2000, true}, kScratchRead{0x1000, 0x2000, false}, kElsewhere{0x8000, 0x9000, true};
}

TEST_CASE("a peer copy into GPU 1 and GPU 1's kernel reading it race unless an event orders them") {
  StreamOrder o;
  o.resize(2);
  CHECK(o.operation(0, {kScratchWrite}, "copy").empty());  // issued on GPU 0, lands in GPU 1's scratch
  auto found = o.operation(1, {kScratchRead}, "add");
  REQUIRE(found.size() == 1);
  CHECK(found[0].find("add on GPU 1 reads") != std::string::npos);
  CHECK(found[0].find("copy on GPU 0 writes") != std::string::npos);

  StreamOrder ok;
  ok.resize(2);
  ok.operation(0, {kScratchWrite}, "copy");
  ok.record_event(7, 0);
  ok.wait_event(1, 7);
  CHECK(ok.operation(1, {kScratchRead}, "add").empty());
}

TEST_CASE("reads of the same bytes, or different bytes, never race") {
  StreamOrder o;
  o.resize(2);
  o.operation(0, {kScratchRead}, "a");
  CHECK(o.operation(1, {kScratchRead}, "b").empty());
  CHECK(o.operation(1, {kElsewhere}, "c").empty());
}

TEST_CASE("the same device's work is ordered; the host's waits order what it issues next") {
  StreamOrder o;
  o.resize(2);
  o.operation(0, {kScratchWrite}, "copy");
  CHECK(o.operation(0, {kScratchRead}, "same device").empty());
  o.host_waits_for(0);  // cudaDeviceSynchronize on GPU 0
  CHECK(o.operation(1, {kScratchRead}, "after the host waited").empty());
}

TEST_CASE("an event passes on what its device knew: order is transitive") {
  // GPU 0 writes; GPU 1 waits for it and records; GPU 2 waits for GPU 1's event.
  StreamOrder o;
  o.resize(3);
  o.operation(0, {kScratchWrite}, "write on 0");
  o.record_event(1, 0);
  o.wait_event(1, 1);
  o.operation(1, {kElsewhere}, "work on 1");
  o.record_event(2, 1);
  o.wait_event(2, 2);
  CHECK(o.operation(2, {kScratchRead}, "read on 2").empty());
  // Without the chain, GPU 2's read races with GPU 0's write.
  StreamOrder bare;
  bare.resize(3);
  bare.operation(0, {kScratchWrite}, "write on 0");
  CHECK(bare.operation(2, {kScratchRead}, "read on 2").size() == 1);
}

TEST_CASE("a copy into a buffer another GPU's kernel may still read is a race too (write after read)") {
  StreamOrder o;
  o.resize(2);
  o.operation(1, {kScratchRead}, "add on 1");
  CHECK(o.operation(0, {kScratchWrite}, "next copy").size() == 1);
  StreamOrder ok;
  ok.resize(2);
  ok.operation(1, {kScratchRead}, "add on 1");
  ok.record_event(3, 1);
  ok.wait_event(0, 3);
  CHECK(ok.operation(0, {kScratchWrite}, "next copy").empty());
}

TEST_CASE("cudaMemcpyPeer is serialised with the source and destination devices") {
  StreamOrder o;
  o.resize(3);
  o.operation(1, {kScratchRead}, "kernel on 1");
  o.serialise_with(0, 2, 1);
  CHECK(o.operation(0, {kScratchWrite}, "cudaMemcpyPeer").empty());
  o.serialised_after(0, 2, 1);
  CHECK(o.operation(1, {kScratchRead}, "later kernel on 1").empty());
}
