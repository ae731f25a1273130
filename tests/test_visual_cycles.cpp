// tests/test_visual_cycles.cpp: the SM grid and block view drawn from the
// cycle model's cycles (cycle_state.cpp, view_sm_cycles.cpp), on a hand-made
// timeline whose every cycle is known: a warp slot's state at a cycle
// (not resident, waiting with its reason and the pc it waits to issue,
// issuing, done), and what the block view and SM grid print at the cursor.
#include <doctest/doctest.h>
#include <imgui.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "tests/imgui_harness.h"
#include "visual/cycle_state.h"
#include "visual/screen_state.h"
#include "visual/views.h"

using namespace lab::visual;

namespace {

constexpr uint8_t kWait = 2, kLong = 4, kBarrier = 5;

// Block 7 in block slot 0: warp 0 resident from cycle 10, waits on a load
// (10-20), issues pc 1 at 20, waits at a barrier (21-30), issues pc 2 at 30,
// waits on a fixed latency (31-50), issues its exit (pc 3) at 50. Warp 1
// (scheduler 1) issues every cycle from 10 to 60 (pc 9).
std::shared_ptr<CycleTimeline> made_up() {
  auto t = std::make_shared<CycleTimeline>();
  t->kernel = "k";
  t->gpu = "H100";
  t->schedulers = 4;
  t->reasons = {"selected", "not_selected", "wait", "short_scoreboard", "long_scoreboard",
                "barrier", "mio_throttle", "lg_throttle", "math_pipe_throttle"};
  t->explanations.assign(t->reasons.size(), "");
  for (int side = 0; side < 2; ++side) {
    TimelineSide& s = t->sides[side];
    s.title = side ? "full" : "one";
    s.blocks_per_sm = 1;
    s.warps_per_block = 2;
    s.cycles = 100;
    s.scheduler_issues.assign(4, {});
    TimelineWarp w0;
    w0.slot = 0, w0.warp = 0, w0.scheduler = 0;
    w0.runs = {{7, 10, 50}};
    w0.issues = {20, 30, 50};
    w0.pcs = {1, 2, 3};
    w0.waits = {{10, 20, kLong}, {21, 30, kBarrier}, {31, 50, kWait}};
    s.scheduler_issues[0] = w0.issues;
    TimelineWarp w1;
    w1.slot = 1, w1.warp = 1, w1.scheduler = 1;
    w1.runs = {{7, 10, 60}};
    for (uint64_t c = 10; c <= 60; ++c) w1.issues.push_back(c), w1.pcs.push_back(9);
    s.scheduler_issues[1] = w1.issues;
    s.warps = {w0, w1};
  }
  return t;
}

}  // namespace

TEST_CASE("cycles: a warp slot's state at each cycle") {
  const auto t = made_up();
  const TimelineWarp& w = t->sides[0].warps[0];
  CHECK(warp_at_cycle(w, 5).kind == WarpAtCycle::NotResident);
  WarpAtCycle a = warp_at_cycle(w, 15);
  CHECK(a.kind == WarpAtCycle::Waiting);
  CHECK(a.reason == kLong);
  CHECK(a.pc == 1);  // the instruction it waits to issue (where Nsight's PC sampling puts the stall)
  CHECK(a.block == 7);
  a = warp_at_cycle(w, 20);
  CHECK(a.kind == WarpAtCycle::Issuing);
  CHECK(a.pc == 1);
  CHECK(warp_at_cycle(w, 25).reason == kBarrier);
  CHECK(warp_at_cycle(w, 25).pc == 2);
  CHECK(warp_at_cycle(w, 50).kind == WarpAtCycle::Issuing);
  CHECK(warp_at_cycle(w, 51).kind == WarpAtCycle::Done);
  const SideAtCycle n = side_at_cycle(*t, t->sides[0], 25);
  CHECK(n.issuing == 1);
  CHECK(n.waiting == 1);
  CHECK(n.by_reason[kBarrier] == 1);
  CHECK(issues_between(t->sides[0], 0, 0, 100) == 3);
  CHECK(issues_between(t->sides[0], 1, 20, 30) == 10);
}

TEST_CASE("cycles: the block view and SM grid print the state at the cursor") {
  test::ImGuiNull ctx;
  ViewModel vm;
  vm.timeline = made_up();
  UiState ui;
  ui.cycle_open_fraction = 0.25;  // --at 0.25: cycle 25 of 100
  auto frame = [&](void (*view)(const ViewModel&, UiState&)) {
    begin_frame_state();
    ImGui::NewFrame();
    advance_cycle_clock(vm, ui);
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(1600, 900));
    ImGui::Begin("test");
    view(vm, ui);
    ImGui::End();
    ImGui::Render();
    return nlohmann::json::parse(frame_state_json());
  };
  auto j = frame(draw_block);
  CHECK(ui.timeline_wanted);
  CHECK(j["block"]["time_base"] == "cycle model");
  CHECK(j["block"]["cycle"].get<double>() == doctest::Approx(25));
  CHECK(j["block"]["block"].get<double>() == doctest::Approx(7));
  CHECK(j["block"]["states"]["issuing"].get<double>() == doctest::Approx(1));
  CHECK(j["block"]["states"]["waiting"].get<double>() == doctest::Approx(1));
  CHECK(j["block"]["states"]["waits"]["barrier"].get<double>() == doctest::Approx(1));
  CHECK(j["block"]["distinct_states"].get<double>() == doctest::Approx(2));
  j = frame(draw_sm_grid);
  CHECK(j["sm"]["time_base"] == "cycle model");
  CHECK(j["sm"]["cycle"].get<double>() == doctest::Approx(25));
  // The last 64 cycles up to 25: cycles 0-25, 26 slots per scheduler; warp 0
  // issued once (20), warp 1 sixteen times (10-25).
  CHECK(j["sm"]["one"]["strip_slots"].get<double>() == doctest::Approx(4 * 26));
  CHECK(j["sm"]["one"]["strip_issued"].get<double>() == doctest::Approx(17));
  CHECK(j["sm"]["one"]["strip_idle"].get<double>() == doctest::Approx(4 * 26 - 17));
  // Without the model's timing the panes say their time base is the replay's.
  vm.timeline.reset();
  j = frame(draw_block);
  CHECK(j["block"]["time_base"] == "interpreter replay");
}
