// tests/test_visual.cpp: the views through ImGui with no window and no
// renderer: a context, a display size, built fonts, NewFrame/Render. Checks
// what the views put on screen via the draw lists and UiState.
#include <doctest/doctest.h>
#include <imgui.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "visual/app.h"
#include "visual/demo_script.h"
#include "tests/imgui_harness.h"
#include "visual/theme.h"
#include "visual/trace.h"
#include "visual/views.h"

using namespace lab::visual;

namespace {
using test::ImGuiNull;
using test::count_rects;

void frame(const ViewModel& vm, UiState& ui, void (*view)(const ViewModel&, UiState&)) {
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(1600, 900));
  ImGui::Begin("test");
  view(vm, ui);
  ImGui::End();
  ImGui::Render();
}

}  // namespace

// The banks view is tested against the simulator's phases in test_visual_banks.cpp.

TEST_CASE("SM grid draws one header per SM of the model") {
  ImGuiNull ctx;
  UiState ui;
  ViewModel vm;
  for (uint32_t sms : {40u, 132u}) {
    vm.sm.gpu = "test";
    vm.sm.sm_count = sms;
    vm.sm.max_warps_per_sm = 64;
    vm.sm.sms.assign(sms, SmSnapshot{});
    vm.sm.sms[3].blocks.push_back(ResidentBlock{7, {WarpState::Issuing, WarpState::Barrier, WarpState::Memory}});
    frame(vm, ui, draw_sm_grid);
    CHECK(count_rects(IM_COL32(52, 84, 130, 255)) == int(sms));
    // One issuing warp slot (legend swatches are rounded and not counted).
    CHECK(count_rects(palette().warp_state[int(WarpState::Issuing)]) == 1);
  }
}

TEST_CASE("coalescing inspector: consecutive floats fill 4 sectors, a 128-byte stride touches 32 lines") {
  ImGuiNull ctx;
  UiState ui;
  ViewModel vm;
  WarpAccess& a = vm.global_access;
  a.valid = true;
  a.space = lab::ptx::Space::Global;
  a.access_bytes = 4;
  a.mask = 0xffffffffu;
  for (int l = 0; l < 32; ++l) a.lane_addr[l] = 0x1000 + 4 * l;
  a.sectors = a.ideal_sectors = 4;
  frame(vm, ui, draw_coalescing);
  // One used-bytes overlay per lane, drawn over the 4 fetched sectors; at the ideal nothing is waste.
  CHECK(count_rects(palette().sector_used) == 32);
  CHECK(count_rects(palette().sector_wasted) == 0);
  for (int l = 0; l < 32; ++l) a.lane_addr[l] = 0x1000 + 128 * l;
  a.sectors = 32;
  frame(vm, ui, draw_coalescing);
  CHECK(count_rects(palette().sector_wasted) == 32);  // one fetched sector per line
}

TEST_CASE("trace replay: placement, barrier states, stepping and the latest accesses") {
  lab::ptx::Module m;
  lab::ptx::Kernel k;
  k.name = "k";
  k.locs.resize(1);
  k.code.resize(4);
  k.code[0].op = lab::ptx::Op::Ld;
  k.code[1].op = lab::ptx::Op::BarSync;
  k.code[2].op = lab::ptx::Op::St;
  k.code[3].op = lab::ptx::Op::Exit;
  m.kernels.push_back(k);
  TraceContext ctx;
  ctx.module = &m;
  ctx.kernel = &m.kernels[0];
  ctx.sm_count = 2;
  ctx.blocks_per_sm = 1;
  ctx.grid[0] = 4;
  ctx.block[0] = 64;  // 2 warps
  ctx.matrices = {{"A", 0x1000, 64 * 4, 8, 8, 4}};
  std::vector<TraceEvent> ev;
  std::vector<std::array<uint64_t, 32>> lanes;
  for (uint32_t b = 0; b < 4; ++b) {
    uint32_t sm = b % 2;
    ev.push_back({lab::sim::WarpEvent::BlockPlaced, lab::ptx::Space::Generic, 0, false, b, sm});
    for (uint32_t w = 0; w < 2; ++w) {
      TraceEvent ld{lab::sim::WarpEvent::WarpInstr, lab::ptx::Space::Global, 4, false, b, sm, w, 0, 0xffffffffu, 1};
      ld.lanes = int32_t(lanes.size());
      lanes.emplace_back();
      for (int l = 0; l < 32; ++l) lanes.back()[l] = 0x1000 + 4 * l;
      ev.push_back(ld);
      TraceEvent bar{lab::sim::WarpEvent::WarpInstr, lab::ptx::Space::Generic, 0, false, b, sm, w, 1, 0xffffffffu};
      bar.op_flags = lab::ptx::kOpBarrier;  // as the simulator flags bar.sync
      ev.push_back(bar);
    }
    for (uint32_t w = 0; w < 2; ++w) {
      TraceEvent st{lab::sim::WarpEvent::WarpInstr, lab::ptx::Space::Shared, 4, true, b, sm, w, 2, 0xffffffffu, 0, 32, 1};
      st.lanes = int32_t(lanes.size());
      lanes.emplace_back();
      for (int l = 0; l < 32; ++l) lanes.back()[l] = 128 * l;
      ev.push_back(st);
      TraceEvent exit{lab::sim::WarpEvent::WarpInstr, lab::ptx::Space::Generic, 0, false, b, sm, w, 3, 0xffffffffu};
      exit.op_flags = lab::ptx::kOpExit;
      ev.push_back(exit);
    }
    ev.push_back({lab::sim::WarpEvent::BlockRetired, lab::ptx::Space::Generic, 0, false, b, sm});
  }
  TraceReplay r(ctx, ev, lanes);
  CHECK(r.size() == ev.size());
  // Key moments, in replay order: a full SM (1 block/SM), the first bank
  // conflict (32 wavefronts, ideal 1), the tail wave (4 blocks, 2 SMs).
  std::vector<std::string> names;
  for (const auto& mo : r.moments()) names.push_back(mo.name);
  REQUIRE(names.size() == 3);
  CHECK(names[0] == "a full SM");
  CHECK(names[1] == "first bank conflict");
  CHECK(names[2] == "the tail wave");
  CHECK(r.moments()[1].pane == "banks");
  ViewModel vm;
  // Wave 1 is blocks 0 and 1 interleaved: place 0, place 1, then 0's first load.
  r.seek(3);
  r.fill(vm);
  CHECK(vm.sm.blocks_placed == 2);
  CHECK(vm.sm.sms[0].blocks.size() == 1);
  CHECK(vm.sm.sms[1].blocks.size() == 1);
  CHECK(vm.sm.sms[0].blocks[0].warps[0] == WarpState::Memory);
  CHECK(vm.global_access.valid);
  CHECK(vm.global_access.buffer == "A");
  CHECK(vm.heat[0].count[0] == 1);
  // Step past the barrier of both blocks: warp 0 waits while warp 1 catches up.
  r.step_instr();  // block 1 load
  r.step_instr();  // block 0 warp 0 bar.sync
  r.fill(vm);
  CHECK(vm.sm.sms[0].blocks[0].warps[0] == WarpState::Barrier);
  r.step_barrier();
  r.fill(vm);
  CHECK(vm.sm.sms[0].blocks[0].warps[0] != WarpState::Barrier);
  CHECK(vm.sm.sms[0].blocks[0].warps[1] != WarpState::Barrier);
  // One wave further: blocks 2 and 3 placed.
  r.step_wave();
  r.step_instr();
  r.fill(vm);
  CHECK(vm.sm.blocks_placed >= 3);
  CHECK(vm.sm.wave() == 2);
  r.seek(r.size());
  r.fill(vm);
  CHECK(vm.sm.blocks_retired == 4);
  CHECK(vm.shared_access.valid);
  CHECK(vm.shared_access.wavefronts == 32);
  CHECK(vm.playback.finished);
  // Seeking back replays from the start.
  r.seek(1);
  r.fill(vm);
  CHECK(vm.sm.blocks_placed == 1);
  CHECK_FALSE(vm.global_access.valid);
}

TEST_CASE("the whole layout draws with an empty snapshot and with the help overlay") {
  ImGuiNull ctx;
  UiState ui;
  ViewModel vm;
  ui.show_help = true;
  ImGui::NewFrame();
  draw_lab(vm, ui);
  ImGui::Render();
  CHECK(ImGui::GetDrawData()->TotalVtxCount > 0);
  ui.panel = Panel::Banks;
  ImGui::NewFrame();
  draw_lab(vm, ui);
  ImGui::Render();
  CHECK(ImGui::GetDrawData()->CmdListsCount >= 1);
}

TEST_CASE("markdown renders through md4c") {
  ImGuiNull ctx;
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(600, 400));  // an auto-sized window is hidden on its first frame
  ImGui::Begin("md");
  CHECK(draw_markdown("# Title\n\nA *paragraph* with `code`.\n\n- one\n- two\n\n```\nx = 1;\n```\n"));
  ImGui::End();
  ImGui::Render();
  CHECK(ImGui::GetDrawData()->TotalVtxCount > 0);
}

TEST_CASE("markdown tables draw as tables: a row's cells side by side") {
  // Three rows of three short cells: as a table about three lines tall; as
  // one paragraph per cell (how they were drawn before, issue 28) nine.
  ImGuiNull ctx;
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(600, 400));
  ImGui::Begin("md table");
  const float y0 = ImGui::GetCursorPosY();
  CHECK(draw_markdown("| GPUs | step |  bytes |\n|---|---|---|\n| 1 | 0.0465 ms | 256,772 |\n| 4 | 0.0612 ms | 199,188 |\n"));
  const float height = ImGui::GetCursorPosY() - y0;
  const float line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::End();
  ImGui::Render();
  CHECK(height > 2.5f * line);
  CHECK(height < 6 * line);
}

TEST_CASE("program pane: memory bars keep one scale across the runs shown") {
  // ZeRO stage 0 then stage 3 (lesson 11): the second run's bars are drawn
  // against the first run's largest, so the saving shows as shorter bars.
  ImGuiNull ctx;
  UiState ui;
  auto run_with = [&](uint64_t bytes) {
    ViewModel vm;
    vm.program.gpu = "H100";
    vm.program.command = "gpulab run lessons/11-many-gpus/data_parallel.cu --gpus 2";
    for (int d = 0; d < 2; ++d) {
      ProgramRun::Device dev;
      dev.live_bytes = dev.peak_bytes = bytes;
      dev.predicted_s = 1e-5;
      vm.program.devices.push_back(dev);
    }
    vm.program.timeline_s = 1e-5;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(800, 600));
    ImGui::Begin("program");
    draw_program(vm, ui);
    ImGui::End();
    ImGui::Render();
  };
  run_with(256772);
  CHECK(ui.program_bytes_scale == 256772);
  run_with(100000);
  CHECK(ui.program_bytes_scale == 256772);  // not rescaled to the smaller run
  run_with(400000);
  CHECK(ui.program_bytes_scale == 400000);
}

TEST_CASE("panel names") {
  bool ok = false;
  CHECK(panel_from_name("banks", &ok) == Panel::Banks);
  CHECK(ok);
  panel_from_name("nope", &ok);
  CHECK_FALSE(ok);
}

TEST_CASE("demo script: beats advance with the clock, kernels in order, the whole script in its minutes") {
  ImGuiNull ctx;
  DemoScript demo(1.0);  // one minute for 4 kernels: 15 s each
  ViewModel vm;
  vm.launch.kernels = {"k0", "k1", "k2", "k3"};
  vm.launch.current_kernel = 0;
  vm.playback.total = 100;
  // 4 beats per kernel (the overview, two moments, the SM cycle by cycle): 3.75 s each.
  vm.moments = {{"m1", "c1", "coalescing", 10}, {"m2", "c2", "banks", 50}};
  // The chart the opening and the close show: a CPU point and the 4 GPU ones.
  PerfPoint cpu;
  cpu.label = "cpu", cpu.cpu = cpu.measured = true, cpu.gflops = 100;
  vm.comparison.versions.push_back(cpu);
  for (int k = 0; k < 4; ++k) {
    PerfPoint g;
    g.label = "k" + std::to_string(k), g.gflops = 1000.0 * (k + 1);
    vm.comparison.versions.push_back(g);
  }
  UiState ui;
  // The opening: the question on the chart and the roofline, the speed-up
  // (best GPU over best CPU, 40x here) in the banner.
  demo.update(0, vm, 4, false, false, ui);
  CHECK(ui.focus == std::vector<Panel>{Panel::Comparison, Panel::Roofline});
  CHECK(ui.banner.find("40x") != std::string::npos);
  CHECK(demo.beat() == -1);
  int last = 0;
  double t = 0;
  bool monotonic = true, cycles_beat = false;
  for (int frame = 0; frame < 800 && !demo.finished(); ++frame, t += 0.25) {
    ui.timeline_wanted = false;
    DemoScript::Action a = demo.update(frame ? 0.25 : 0, vm, 4, false, false, ui);
    if (a.select_kernel >= 0) {
      // The session answers with the new kernel's trace a frame later.
      vm.launch.current_kernel = a.select_kernel;
    }
    monotonic &= demo.kernel() >= last;
    last = demo.kernel();
    if (a.seek && demo.beat() > 0) CHECK(a.position == vm.moments[size_t(demo.beat() - 1)].position);
    // The last beat shows the SM grid from the cycle model's cycles,
    // which the script asked for from the kernel's first beat on.
    if (demo.beat() == 3) {
      cycles_beat = true;
      CHECK(ui.focus == std::vector<Panel>{Panel::SmGrid});
      CHECK_FALSE(ui.sm_placement);
    } else if (demo.beat() >= 0) {
      CHECK(ui.sm_placement);  // the replay's beats: the SM grid shows placement by wave, not time
    }
    if (demo.beat() >= 0 && !demo.finished()) CHECK(ui.timeline_wanted);
  }
  CHECK(cycles_beat);
  CHECK(monotonic);
  CHECK(demo.finished());
  CHECK(demo.kernel() == 3);
  CHECK(demo.elapsed() == doctest::Approx(60).epsilon(0.05));
  CHECK(t < 70);
  // It ends on the whole progression, the chart and the roofline again.
  CHECK(ui.focus == std::vector<Panel>{Panel::Comparison, Panel::Roofline});
  CHECK(ui.banner.find("whole progression") != std::string::npos);
  // Space pauses the script's clock, and again resumes it.
  DemoScript d3(1.0);
  d3.update(0, vm, 4, false, false, ui);
  d3.update(1.0, vm, 4, false, false, ui);
  const double shown_before = d3.elapsed();
  d3.toggle_pause();
  for (int i = 0; i < 20; ++i) d3.update(1.0, vm, 4, false, false, ui);
  CHECK(d3.elapsed() == doctest::Approx(shown_before));
  CHECK(ui.banner.find("paused") != std::string::npos);
  d3.toggle_pause();
  d3.update(1.0, vm, 4, false, false, ui);
  CHECK(d3.elapsed() > shown_before);
  // Page Down skips to the next beat at once.
  DemoScript d2(10.0);
  vm.launch.current_kernel = 0;
  d2.update(0, vm, 4, false, false, ui);
  d2.update(0.1, vm, 4, false, false, ui);
  int before = d2.beat();
  d2.update(0.1, vm, 4, true, false, ui);
  CHECK(d2.beat() == before + 1);
}

TEST_CASE("E writes the picture to the first free gpulab-picture-NNN.png, never over a file") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gpulab-pictures-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  CHECK(fs::path(next_picture_name(dir.string())).filename() == "gpulab-picture-001.png");
  std::ofstream(dir / "gpulab-picture-001.png") << "a student's picture";
  std::ofstream(dir / "gpulab-picture-002.png") << "another";
  CHECK(fs::path(next_picture_name(dir.string())).filename() == "gpulab-picture-003.png");
  fs::remove(dir / "gpulab-picture-001.png");
  CHECK(fs::path(next_picture_name(dir.string())).filename() == "gpulab-picture-001.png");
  fs::remove_all(dir);
}
