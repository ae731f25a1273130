// tests/test_runtime_devices.cpp: the rules of several simulated GPUs
// (lab/runtime/devices.h): whose clock a copy moves, when it may start, what
// it costs on each link, and whose memory an allocation counts against.
#include <doctest/doctest.h>

#include "lab/runtime/devices.h"
#include "lab/sim/device.h"

using lab::runtime::Devices;
using lab::runtime::LinkKind;

namespace {
constexpr uint64_t kBuf = 1 << 20;  // each device's buffers start at (device + 1) * kBuf
uint64_t at(int device, uint64_t offset = 0) { return uint64_t(device + 1) * kBuf + offset; }
}  // namespace

TEST_CASE("link rates come from the GPU model; a model without NVLink falls back to PCIe") {
  Devices d;
  d.configure(2, LinkKind::NVLink, lab::sim::gpu_model("H100"));
  CHECK(d.link_bytes_per_s() == doctest::Approx(450e9));  // NVLink 4: 900 GB/s both ways
  d.configure(2, LinkKind::PCIe, lab::sim::gpu_model("H100"));
  CHECK(d.link_bytes_per_s() == doctest::Approx(64e9));   // PCIe 5.0 x16, one way
  CHECK(d.link_latency_s() > 2e-6);
  d.configure(2, LinkKind::NVLink, lab::sim::gpu_model("A100"));
  CHECK(d.link_bytes_per_s() == doctest::Approx(300e9));
  d.configure(2, LinkKind::NVLink, lab::sim::gpu_model("T4"));
  CHECK(d.link_bytes_per_s() == doctest::Approx(lab::sim::gpu_model("T4").host_bytes_per_s));
}

TEST_CASE("a ring step's copies overlap; copies into one GPU queue on its receive port") {
  Devices d;
  d.configure(4, LinkKind::NVLink, lab::sim::gpu_model("H100"));
  const uint64_t bytes = 100'000;  // below kBuf / 2: what a GPU sends is not what it receives
  const double t = d.link_latency_s() + double(bytes) / d.link_bytes_per_s();
  SUBCASE("ring: each GPU sends to the next, all at once") {
    for (int r = 0; r < 4; ++r) {
      d.set_current(r);
      d.peer_copy((r + 1) % 4, at((r + 1) % 4), r, at(r, kBuf / 2), bytes, 0);
    }
    for (int r = 0; r < 4; ++r) CHECK(d.state(r).clock == doctest::Approx(t));
  }
  SUBCASE("all to one: GPU 0's receive port takes them one after another") {
    for (int r = 1; r < 4; ++r) {
      d.set_current(r);
      d.peer_copy(0, at(0, uint64_t(r) * 1000), r, at(r), bytes, 0);
      CHECK(d.state(r).clock == doctest::Approx(r * t));
    }
    d.set_current(0);
    d.advance(0);  // GPU 0's next launch waits for all three to land
    CHECK(d.state(0).clock == doctest::Approx(3 * t));
    CHECK(d.state(0).wait_seconds == doctest::Approx(3 * t));
  }
}

TEST_CASE("a copy waits for the bytes it reads to land, not for other copies into the same GPU") {
  Devices d;
  d.configure(3, LinkKind::PCIe, lab::sim::gpu_model("H100"));
  const uint64_t bytes = 64'000;
  const double t = d.link_latency_s() + double(bytes) / d.link_bytes_per_s();
  d.set_current(0);
  d.peer_copy(1, at(1, 0), 0, at(0), bytes, 0);          // lands in GPU 1's [0, 64000)
  d.set_current(1);
  d.peer_copy(2, at(2, 0), 1, at(1, 100'000), bytes, 0);  // reads other bytes: starts at once
  CHECK(d.state(1).clock == doctest::Approx(t));
  CHECK(d.state(1).copy_seconds == doctest::Approx(t));
  d.peer_copy(2, at(2, 100'000), 1, at(1, 1000), bytes, 0);  // reads what landed at t: after it, and after the port
  CHECK(d.state(1).clock == doctest::Approx(2 * t));
}

TEST_CASE("each allocation counts against the device current when it was made; links count bytes by call site") {
  Devices d;
  d.configure(2, LinkKind::NVLink, lab::sim::gpu_model("H100"));
  d.on_malloc(at(0), 1000);
  d.set_current(1);
  d.on_malloc(at(1), 300);
  d.on_malloc(at(1, 4096), 200);
  CHECK(d.state(0).live_bytes == 1000);
  CHECK(d.state(1).live_bytes == 500);
  CHECK(d.owner(at(1, 4096 + 199)) == 1);
  CHECK(d.owner(at(1, 4096 + 200)) == -1);
  CHECK(d.on_free(at(1)) == 1);
  CHECK(d.state(1).live_bytes == 200);
  CHECK(d.state(1).peak_bytes == 500);
  CHECK(d.on_free(at(1)) == -1);  // freed twice
  d.peer_copy(0, at(0), 1, at(1, 4096), 200, 0x1234);
  d.peer_copy(0, at(0), 1, at(1, 4096), 100, 0x1234);
  const std::string s = d.summary_json();
  CHECK(s.find("\"bytes\":300") != std::string::npos);
  CHECK(s.find("\"copies\":2") != std::string::npos);
  CHECK(s.find("\"link\":\"nvlink\"") != std::string::npos);
}
