// visual/view_controls.cpp: the lesson text with its steps, the launch panel,
// the playback bar and the keyboard-shortcut overlay.
#include <GLFW/glfw3.h>  // key codes: ImGui 1.86 indexes io.KeysDown by the backend's codes
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "visual/screen_state.h"
#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

void draw_lesson(const ViewModel& vm, UiState& ui) {
  const LessonText& l = vm.lesson;
  if (l.steps.empty()) {
    ImGui::TextUnformatted("No lesson loaded. Try `gpulab view 01` or `gpulab lessons`.");
    return;
  }
  int n = int(l.steps.size());
  ui.lesson_step = std::clamp(ui.lesson_step, 0, n - 1);
  const LessonStep& s = l.steps[ui.lesson_step];
  if (ImGui::ArrowButton("prev", ImGuiDir_Left)) ui.lesson_step = std::max(0, ui.lesson_step - 1);
  ImGui::SameLine();
  ImGui::Text("step %d / %d", ui.lesson_step + 1, n);
  ImGui::SameLine();
  if (ImGui::ArrowButton("next", ImGuiDir_Right)) ui.lesson_step = std::min(n - 1, ui.lesson_step + 1);
  if (!s.run_label.empty()) {
    // Beside the arrows when it fits, else below them; "Run" alone (the
    // file in its tooltip) when even a line of its own is too narrow.
    const float pad = 2 * ImGui::GetStyle().FramePadding.x, gap = ImGui::GetStyle().ItemSpacing.x;
    const float full = ImGui::CalcTextSize(s.run_label.c_str()).x + pad;
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < full + gap) ImGui::NewLine();
    const bool shorten = ImGui::GetContentRegionAvail().x < full;
    if (ImGui::Button(shorten ? "Run" : s.run_label.c_str())) ui.run_target = s.run_target;
    if (shorten && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.run_label.c_str());
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.55f, 0.80f, 1.f, 1.f));
  ImGui::TextWrapped("%s", l.title.c_str());
  ImGui::PopStyleColor();
  ImGui::Separator();
  ImGui::BeginChild("lesson_text", ImVec2(0, 0), false);
  if (s.program) {
    // A program's run: the program pane draws it; the text gets its headline.
    const ProgramRun& P = vm.program;
    if (!P.devices.empty() && vm.launch.lesson_step == ui.lesson_step)
    {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.85f, 0.4f, 1.f));
      text_words(fmt::format("Ran on {} simulated {}: predicted GPU timeline {:.1f} us (the whole run)",
                             P.devices.size(), P.gpu, P.timeline_s * 1e6));
      ImGui::PopStyleColor();
    }
    else if (!P.status.empty())
      ImGui::TextColored(ImVec4(1.f, 0.85f, 0.4f, 1.f), "%s", P.status.rfind("error", 0) == 0 ? "the program failed (see its pane)" : "running this step's program...");
    ImGui::Separator();
  } else if (s.measure && vm.launch.lesson_step == ui.lesson_step) {
    // The numbers this step's text is about, as the simulator counted them for the whole run.
    LineHeat t;
    for (const auto& h : vm.source.line_totals) {
      t.warp_insts += h.warp_insts, t.sectors += h.sectors, t.requests += h.requests;
      t.shared_requests += h.shared_requests, t.conflicts += h.conflicts;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.85f, 0.4f, 1.f));
    // The simulator's counts of this step's run (not a GPU measurement; the time line says "predicted").
    text_words(fmt::format("This step's run, simulated: kernel {} in {}, {}", vm.launch.kernel, vm.launch.file,
                           vm.launch.gpu));
    ImGui::PopStyleColor();
    ImGui::TextWrapped("- %llu warp instructions", (unsigned long long)t.warp_insts);
    ImGui::TextWrapped("- %llu global requests, %llu sectors: %.1f sectors per request", (unsigned long long)t.requests,
                       (unsigned long long)t.sectors, t.sectors_per_request());
    ImGui::TextWrapped("- %llu shared requests, %llu bank conflicts", (unsigned long long)t.shared_requests,
                       (unsigned long long)t.conflicts);
    if (vm.launch.predicted_seconds > 0)
      ImGui::TextWrapped("- %.3g us %s", vm.launch.predicted_seconds * 1e6, vm.launch.predicted_note.c_str());
    shown("measured.instructions", double(t.warp_insts));
    shown("measured.global_requests", double(t.requests));
    shown("measured.sectors", double(t.sectors));
    shown("measured.sectors_per_request", t.sectors_per_request());
    shown("measured.shared_requests", double(t.shared_requests));
    shown("measured.bank_conflicts", double(t.conflicts));
    shown("measured.predicted_seconds", vm.launch.predicted_seconds);
    ImGui::Separator();
  } else if (s.measure) {
    ImGui::TextColored(ImVec4(1.f, 0.85f, 0.4f, 1.f), "running this step's kernel...");
  }
  if (!draw_markdown(s.markdown)) ImGui::TextWrapped("%s", s.markdown.c_str());
  ImGui::EndChild();
}

namespace {
void combo(const char* label, const std::vector<std::string>& items, int& choice, const std::string& current) {
  if (items.empty()) {
    ImGui::Text("%s: %s", label, current.c_str());
    return;
  }
  choice = std::clamp(choice, 0, int(items.size()) - 1);
  if (ImGui::BeginCombo(label, items[choice].c_str())) {
    for (int i = 0; i < int(items.size()); ++i)
      if (ImGui::Selectable(items[i].c_str(), i == choice)) choice = i;
    ImGui::EndCombo();
  }
}
}  // namespace

void draw_launch_panel(const ViewModel& vm, UiState& ui) {
  const LaunchInfo& L = vm.launch;
  if (L.current_kernel >= 0 && ui.synced_serial != uint64_t(L.current_kernel + 1)) {
    // A new launch: the combos show what is on screen.
    ui.synced_serial = uint64_t(L.current_kernel + 1);
    ui.kernel_choice = L.current_kernel;
    if (L.current_gpu >= 0) ui.gpu_choice = L.current_gpu;
    if (L.current_size >= 0) ui.size_choice = L.current_size;
  }
  float w = ImGui::GetContentRegionAvail().x;
  ImGui::PushItemWidth(w * 0.6f);
  combo("kernel", L.kernels, ui.kernel_choice, L.kernel);
  combo("GPU model", L.gpus, ui.gpu_choice, L.gpu);
  combo("problem size", L.sizes, ui.size_choice, L.problem);
  combo("backend", L.backends, ui.backend_choice, L.backend);
  ImGui::PopItemWidth();
  if (ImGui::Button("Run", ImVec2(w * 0.3f, 0))) ui.launch_requested = true;
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().panel_text_dim));
  ImGui::BeginGroup();  // the file and its problem, broken at spaces beside the button
  text_words(L.file);
  ImGui::EndGroup();
  ImGui::PopStyleColor();
  ImGui::Text("grid (%u,%u,%u)  block (%u,%u,%u)", L.grid[0], L.grid[1], L.grid[2], L.block[0], L.block[1], L.block[2]);
  ImGui::Text("%u registers/thread, %u B shared/block", L.registers, L.shared_bytes);
  if (L.predicted_seconds > 0) {
    ImGui::TextWrapped("time: %.3g us, %s (a prediction, not a measurement)", L.predicted_seconds * 1e6,
                       L.predicted_note.c_str());
  } else if (!L.predicted_note.empty()) {
    ImGui::TextWrapped("time: %s", L.predicted_note.c_str());
  }
  shown("kernel.predicted_seconds", L.predicted_seconds);
}

void draw_playback(const ViewModel& vm, UiState& ui) {
  const Playback& pb = vm.playback;
  bool live = pb.live;
  ImGui::BeginDisabled(live);
  if (ImGui::Button("|<")) ui.command = PlayCommand::Restart;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("restart (R)");
  ImGui::SameLine();
  if (ImGui::Button(pb.playing ? "Pause" : "Play ", ImVec2(ImGui::CalcTextSize("Pause").x + px(16), 0)))
    ui.command = PlayCommand::Toggle;
  ImGui::SameLine();
  if (ImGui::Button("Step")) ui.command = PlayCommand::StepInstr;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("one warp instruction (Right or N)");
  ImGui::SameLine();
  if (ImGui::Button("Barrier")) ui.command = PlayCommand::StepBarrier;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("to the next barrier phase (B)");
  ImGui::SameLine();
  if (ImGui::Button("Wave")) ui.command = PlayCommand::StepWave;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("to the next wave of blocks (W)");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(px(170));
  ImGui::SliderFloat("##speed", &ui.speed, 1.f, 1e6f, "%.0f instr/s", ImGuiSliderFlags_Logarithmic);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("playback speed (+ / -)");
  ImGui::SameLine();
  float frac = pb.total ? float(double(pb.cursor) / double(pb.total)) : 0.f;
  // What follows the slider on this line, measured, so that nothing is cut
  // at the right edge at projector text sizes (issue 28): the counts, "?",
  // and the moments' buttons; the slider takes the rest.
  char stats[128];
  std::snprintf(stats, sizeof stats, "%s%.2f M warp instr  sim %.2f s  UI %.1f ms", live && !pb.finished ? "LIVE  " : "",
                pb.warp_insts / 1e6, pb.sim_seconds, ui.ui_ms);
  const ImGuiStyle& st = ImGui::GetStyle();
  const size_t buttons = 1 + (live ? 0 : vm.moments.size());
  const float buttons_w = float(buttons + 1) * st.ItemSpacing.x +
                          float(buttons) * (ImGui::CalcTextSize("M0").x + 2 * st.FramePadding.x) + px(8);
  // With large text the counts shorten, then give way, before the slider
  // goes below a few numbers' width (the bar is never cut at the right edge).
  const float slider_min = ImGui::CalcTextSize("000000/000000").x + 2 * st.FramePadding.x;
  if (ImGui::GetContentRegionAvail().x - buttons_w - ImGui::CalcTextSize(stats).x < slider_min)
    std::snprintf(stats, sizeof stats, "%.2fM instr", pb.warp_insts / 1e6);
  if (ImGui::GetContentRegionAvail().x - buttons_w - ImGui::CalcTextSize(stats).x < slider_min) stats[0] = 0;
  const float reserve = ImGui::CalcTextSize(stats).x + buttons_w;
  const float slider_w = std::max(px(100), ImGui::GetContentRegionAvail().x - reserve);
  ImGui::SetNextItemWidth(slider_w);
  char label[64];
  std::snprintf(label, sizeof label, live ? "%llu / %llu blocks done" : "%llu / %llu events",
                (unsigned long long)pb.cursor, (unsigned long long)pb.total);
  if (ImGui::CalcTextSize(label).x > slider_w - 2 * st.FramePadding.x)  // too narrow: the numbers alone
    std::snprintf(label, sizeof label, "%llu/%llu", (unsigned long long)pb.cursor, (unsigned long long)pb.total);
  if (ImGui::SliderFloat("##timeline", &frac, 0.f, 1.f, label)) {
    ui.command = PlayCommand::Seek;
    ui.seek_fraction = frac;
  }
  ImGui::EndDisabled();
  if (stats[0]) {
    ImGui::SameLine();
    ImGui::TextUnformatted(stats);
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("?")) ui.show_help = !ui.show_help;
  if (!ui.export_note.empty()) {
    ImGui::SameLine();
    ImGui::TextUnformatted(ui.export_note.c_str());
  }
  if (!pb.status.empty()) {
    // The whole note where it fits, else a marker whose tooltip holds it (never cut at the edge).
    ImGui::SameLine();
    const bool fits = ImGui::CalcTextSize(pb.status.c_str()).x <= ImGui::GetContentRegionAvail().x;
    ImGui::TextColored(ImVec4(1.f, 0.75f, 0.3f, 1.f), "%s", fits ? pb.status.c_str() : "(note)");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", pb.status.c_str());
  }
  // Moments of this trace: one button each (the demo's beats, by hand).
  if (!vm.moments.empty() && !live) {
    for (size_t i = 0; i < vm.moments.size(); ++i) {
      ImGui::SameLine();
      char id[48];
      std::snprintf(id, sizeof id, "M%zu", i + 1);
      if (ImGui::SmallButton(id)) {
        ui.command = PlayCommand::SeekTo;
        ui.seek_position = vm.moments[i].position;
        bool ok = false;
        Panel p = panel_from_name(vm.moments[i].pane, &ok);
        if (ok) ui.focus = {p, Panel::Source};
      }
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s: %s", vm.moments[i].name.c_str(), vm.moments[i].caption.c_str());
    }
  }
}

void draw_help_overlay(const ViewModel& vm, UiState& ui) {
  if (!ui.show_help) return;
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.95f);
  if (ImGui::Begin("Keyboard shortcuts", &ui.show_help, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse)) {
    static const char* keys[][2] = {
        {"Space", "play / pause"},
        {"Right, N", "step one warp instruction"},
        {"B", "step to the next barrier phase"},
        {"W", "step to the next wave of blocks"},
        {"R", "restart"},
        {"+ / -", "faster / slower"},
        {"Page Down / Page Up", "next / previous lesson step (demo: next / previous moment)"},
        {"1 .. 9, 0", "show one view full window; 0: all views"},
        {"T", "the cycle timeline (one SM, 1 block vs full occupancy) full window"},
        {"[ / ]", "smaller / larger text"},
        {"P", "projector layout (the step's panes, large) / all views"},
        {"E", "export the picture on screen (for slides): gpulab-picture-NNN.png in the current folder"},
        {"H, F1", "this help"},
        {"Esc", "close help; quit"},
    };
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
      for (auto& k : keys) {
        ImGui::TableNextColumn();
        ImGui::TextColored(ImVec4(0.55f, 0.80f, 1.f, 1.f), "%s", k[0]);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(k[1]);
      }
      ImGui::EndTable();
    }
    ImGui::Separator();
    ImGui::TextUnformatted("Colours: ");
    warp_state_legend();
  }
  ImGui::End();
}

void handle_shortcuts(UiState& ui) {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  auto pressed = [](int key) { return ImGui::IsKeyPressed(key); };
  if (pressed(GLFW_KEY_SPACE)) ui.command = PlayCommand::Toggle;
  if (pressed(GLFW_KEY_RIGHT) || pressed(GLFW_KEY_N)) ui.command = PlayCommand::StepInstr;
  if (pressed(GLFW_KEY_B)) ui.command = PlayCommand::StepBarrier;
  if (pressed(GLFW_KEY_W)) ui.command = PlayCommand::StepWave;
  if (pressed(GLFW_KEY_R)) ui.command = PlayCommand::Restart;
  if (pressed(GLFW_KEY_EQUAL) || pressed(GLFW_KEY_KP_ADD)) ui.speed = std::min(1e6f, ui.speed * 2);
  if (pressed(GLFW_KEY_MINUS) || pressed(GLFW_KEY_KP_SUBTRACT)) ui.speed = std::max(1.f, ui.speed / 2);
  if (!ui.presenter) {  // the demo's script takes Page Up/Down itself
    if (pressed(GLFW_KEY_PAGE_DOWN)) ++ui.lesson_step;
    if (pressed(GLFW_KEY_PAGE_UP)) ui.lesson_step = std::max(0, ui.lesson_step - 1);
  }
  if (pressed(GLFW_KEY_H) || pressed(GLFW_KEY_F1)) ui.show_help = !ui.show_help;
  if (pressed(GLFW_KEY_LEFT_BRACKET)) ui.text_scale = std::max(0.5f, ui.text_scale / 1.15f);
  if (pressed(GLFW_KEY_RIGHT_BRACKET)) ui.text_scale = std::min(4.f, ui.text_scale * 1.15f);
  if (pressed(GLFW_KEY_P)) ui.projector = !ui.projector;
  if (pressed(GLFW_KEY_E)) ui.export_wanted = true;
  if (pressed(GLFW_KEY_T)) ui.panel = ui.panel == Panel::Timeline ? Panel::All : Panel::Timeline;
  if (pressed(GLFW_KEY_ESCAPE) && ui.show_help) ui.show_help = false;
  static const Panel by_digit[] = {Panel::All, Panel::SmGrid, Panel::Block, Panel::Memory, Panel::Coalescing,
                                   Panel::Banks, Panel::Source, Panel::Roofline, Panel::Comparison, Panel::Occupancy};
  for (int d = 0; d <= 9; ++d)
    if (pressed(GLFW_KEY_0 + d)) ui.panel = by_digit[d];
}

}  // namespace lab::visual
