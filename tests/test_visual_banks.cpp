// tests/test_visual_banks.cpp: the banks view and the simulator agree (issue
// 13). The view draws the simulator's SharedServe (lab/sim/memory_cost.h), as
// the event stream carries it; for 4-, 8- and 16-byte shared accesses,
// contiguous, strided and broadcast, the number of red (conflicted) bank
// headers is what the simulator's phases say, and 16-byte contiguous loads
// (ld.shared.v4.f32, 0 conflicts) draw none.
#include <doctest/doctest.h>
#include <imgui.h>

#include <set>

#include "lab/sim/memory_cost.h"
#include "tests/imgui_harness.h"
#include "visual/theme.h"
#include "visual/trace.h"
#include "visual/views.h"

using namespace lab::visual;
namespace sim = lab::sim;

namespace {
using test::ImGuiNull;
using test::count_rects;

// Conflicted (phase, bank) pairs computed here from first principles: a
// phase is 128 bytes of lanes; a bank with two distinct words in a phase is
// in conflict.
int conflicted_banks(const std::array<uint64_t, 32>& addr, uint32_t bytes) {
  uint32_t lanes_per_phase = 128 / bytes;
  int n = 0;
  for (uint32_t p = 0; p < 32 / lanes_per_phase; ++p) {
    std::set<uint64_t> words[32];
    for (uint32_t l = p * lanes_per_phase; l < (p + 1) * lanes_per_phase; ++l)
      for (uint32_t k = 0; k < bytes / 4; ++k) words[(addr[l] / 4 + k) % 32].insert(addr[l] / 4 + k);
    for (auto& w : words) n += w.size() > 1;
  }
  return n;
}
}  // namespace

TEST_CASE("banks view draws the simulator's phases for 4-, 8- and 16-byte lanes") {
  ImGuiNull ctx;
  lab::ptx::Kernel k;
  TraceContext tc;
  struct Case { uint32_t bytes; uint64_t stride; const char* what; };
  const Case cases[] = {
      {4, 4, "contiguous floats"},  {4, 8, "stride 2 words"},   {4, 0, "broadcast"},   {4, 128, "column of a tile"},
      {8, 8, "contiguous float2"},  {8, 16, "float2, stride 2"}, {8, 0, "broadcast"},
      {16, 16, "contiguous float4"}, {16, 32, "float4, stride 2"}, {16, 0, "broadcast"}, {16, 128, "float4 column"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    CAPTURE(c.bytes);
    std::array<uint64_t, 32> lanes{};
    for (int l = 0; l < 32; ++l) lanes[l] = 256 + uint64_t(l) * c.stride;
    sim::SharedCost cost = sim::shared_wavefronts(lanes.data(), ~0u, c.bytes);
    sim::SharedServe served = sim::shared_serve(lanes.data(), ~0u, c.bytes);
    TraceEvent e;
    e.kind = sim::WarpEvent::WarpInstr;
    e.space = lab::ptx::Space::Shared;
    e.access_bytes = uint8_t(c.bytes);
    e.mask = ~0u;
    e.wavefronts = cost.wavefronts;
    e.ideal = cost.ideal;
    ViewModel vm;
    vm.shared_access = warp_access(tc, k, e, lanes, &served);
    CHECK(vm.shared_access.conflicts == cost.conflicts());
    UiState ui;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(1600, 900));
    ImGui::Begin("t");
    draw_banks(vm, ui);
    ImGui::End();
    ImGui::Render();
    int red = count_rects(palette().bank_conflict);
    CHECK(red == conflicted_banks(lanes, c.bytes));
    // The picture and the count agree: red banks exactly when the simulator counts conflicts.
    CHECK((red > 0) == (cost.conflicts() > 0));
    if (c.bytes == 16 && c.stride == 16) CHECK(red == 0);  // ld.shared.v4.f32 of 06_vectorized
  }
}
