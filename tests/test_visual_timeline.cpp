// tests/test_visual_timeline.cpp: the timeline pane (view_timeline.cpp)
// through ImGui with no window, on a hand-made CycleTimeline whose numbers
// are known: the issue slots and idle slots it reports for the cycles shown,
// the waits it counts by reason, what it paints, and that drawing it asks
// the worker for the cycle model's timing.
#include <doctest/doctest.h>
#include <imgui.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "tests/imgui_harness.h"
#include "visual/screen_state.h"
#include "visual/theme.h"
#include "visual/views.h"

using namespace lab::visual;

namespace {

void frame(const ViewModel& vm, UiState& ui) {
  begin_frame_state();
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(1600, 900));
  ImGui::Begin("test");
  draw_timeline(vm, ui);
  ImGui::End();
  ImGui::Render();
}

// Four schedulers, one warp each, 100 cycles. One block: only scheduler 0's
// warp issues, in cycles 0-9, then waits on long_scoreboard; the other warps
// wait the whole time. Full: every warp issues every cycle.
std::shared_ptr<CycleTimeline> made_up() {
  auto t = std::make_shared<CycleTimeline>();
  t->kernel = "k";
  t->gpu = "H100";
  t->schedulers = 4;
  t->reasons = {"selected", "not_selected", "wait", "short_scoreboard", "long_scoreboard",
                "barrier", "mio_throttle", "lg_throttle", "math_pipe_throttle"};
  t->explanations.assign(t->reasons.size(), "");
  t->selected_reason = 0;
  const uint8_t lsb = 4;
  for (int side = 0; side < 2; ++side) {
    TimelineSide& s = t->sides[side];
    s.title = side ? "4 blocks per SM" : "1 block per SM";
    s.blocks_per_sm = side ? 4 : 1;
    s.cycles = 100;
    s.issue_utilisation = side ? 1.0 : 0.025;
    s.stall.assign(t->reasons.size(), 0);
    s.scheduler_issues.assign(4, {});
    for (uint32_t q = 0; q < 4; ++q) {
      TimelineWarp w;
      w.slot = q;
      w.scheduler = q;
      const uint64_t runs = side ? 100 : q == 0 ? 10 : 0;
      for (uint64_t c = 0; c < runs; ++c) w.issues.push_back(c), s.scheduler_issues[q].push_back(c);
      if (runs < 100) w.waits.push_back({runs, 100, lsb});
      s.warps.push_back(w);
    }
  }
  t->open_cycle = 25;
  return t;
}

}  // namespace

TEST_CASE("timeline: issue slots, idle slots and waits in the cycles shown") {
  test::ImGuiNull ctx;
  ViewModel vm;
  vm.timeline = made_up();
  UiState ui;
  ui.timeline_window = 100;  // cycles 0-99 on screen: the cursor opens at 25, a quarter in
  frame(vm, ui);
  CHECK(ui.timeline_wanted);
  CHECK(ui.timeline_cycle == doctest::Approx(25));
  auto j = nlohmann::json::parse(frame_state_json());
  const auto& tl = j["timeline"];
  CHECK(tl["status"] == "ready");
  CHECK(tl["window_from"].get<double>() == doctest::Approx(0));
  CHECK(tl["window_to"].get<double>() == doctest::Approx(100));
  CHECK(tl["one"]["view_slots"].get<double>() == doctest::Approx(400));
  CHECK(tl["one"]["view_issued"].get<double>() == doctest::Approx(10));
  CHECK(tl["one"]["view_idle_slots"].get<double>() == doctest::Approx(390));
  CHECK(tl["full"]["view_idle_slots"].get<double>() == doctest::Approx(0));
  CHECK(tl["one"]["view_waits"]["long_scoreboard"].get<double>() == doctest::Approx(4));
  CHECK(tl["full"]["view_waits_total"].get<double>() == doctest::Approx(0));
  CHECK(tl["one"]["issue_utilisation"].get<double>() < tl["full"]["issue_utilisation"].get<double>());
  // Painted: four long_scoreboard waits (one side), one run of issues on the
  // one-block side and four on the full side, as single rectangles (the
  // legend's swatches are rounded, so not counted). Issued is one colour in
  // every pane (issue 28): the issue-slot rows' five runs of used slots
  // share it, so the colour counts ten.
  CHECK(test::count_rects(stall_color("long_scoreboard")) == 4);
  CHECK(stall_color("selected") == palette().warp_state[int(WarpState::Issuing)]);
  CHECK(test::count_rects(stall_color("selected")) == 10);
}

TEST_CASE("timeline: before the model's timing arrives, the pane says what it waits for") {
  test::ImGuiNull ctx;
  ViewModel vm;
  auto t = std::make_shared<CycleTimeline>();
  t->status = "timing this kernel with the cycle model...";
  vm.timeline = t;
  UiState ui;
  frame(vm, ui);
  CHECK(ui.timeline_wanted);
  auto j = nlohmann::json::parse(frame_state_json());
  CHECK(j["timeline"]["status"] == t->status);
}
