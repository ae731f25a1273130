// visual/app.cpp: setup, context, style, backends, loop, cleanup, in that
// order, as Dear ImGui's own examples lay them out.
#include "visual/app.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

#include "visual/demo_script.h"
#include "visual/screen_state.h"
#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

bool display_available() {
  const char* d = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (d && *d) || (w && *w);
}

float text_pixels(float base, int w, int h, float scale) {
  float f = std::clamp(std::min(float(w) / 1600.f, float(h) / 900.f), 0.75f, 3.f);
  return std::round(std::clamp(base * f * scale, 9.f, 96.f));
}

namespace {
// A scalable font: DejaVu Sans where the system has it (crisp at projector
// sizes), else ImGui's built-in ProggyClean at the same pixel size.
void build_font(float px) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  static const char* paths[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                "/usr/share/fonts/TTF/DejaVuSans.ttf",
                                "/usr/share/fonts/dejavu/DejaVuSans.ttf"};
  ImFont* f = nullptr;
  for (const char* p : paths)
    if (!f && std::filesystem::exists(p)) f = io.Fonts->AddFontFromFileTTF(p, px);
  if (!f) {
    ImFontConfig fc;
    fc.SizePixels = px;
    io.Fonts->AddFontDefault(&fc);
  }
}

// Sizes (padding, spacing, scrollbars) follow the text: the style of a
// 15-pixel font, scaled.
void apply_sizes(float px, bool high_contrast) {
  ImGui::GetStyle() = ImGuiStyle();  // from the default sizes, so that repeated calls do not compound
  apply_theme(high_contrast);
  ImGui::GetStyle().ScaleAllSizes(px / 15.f);
  set_ui_scale(px / 15.f);
}

bool write_text_atomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!(f << text)) return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}
}  // namespace

int run_app(const AppOptions& opt) {
  // 1. Setup: GLFW and a GL 3.3 core context.
  if (!display_available()) return kNoDisplay;
  // The simulation starts first, at normal priority; then this thread, which
  // builds and renders the frames, takes the lowest CPU priority, and the GL
  // driver's threads created below inherit it. Without GPU rendering (Xvfb's
  // llvmpipe spends ~40 ms of CPU on a 1600x900 frame) the simulator's threads
  // come first and the view does not slow them (issue 6: by 20% at most).
  Session session(opt.session);
  setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)), 19);
  glfwSetErrorCallback([](int, const char* msg) { std::fprintf(stderr, "gpulab view: GLFW: %s\n", msg); });
  if (!glfwInit()) return kNoDisplay;
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  const bool shot = !opt.screenshot.empty();
  if (shot) glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
  int w = opt.width, h = opt.height;
  GLFWmonitor* monitor = nullptr;
  if (opt.demo && !opt.size_given) {
    // The demo fills the screen; its pictures are taken at the screen's size too.
    GLFWmonitor* m = glfwGetPrimaryMonitor();
    if (const GLFWvidmode* mode = m ? glfwGetVideoMode(m) : nullptr) w = mode->width, h = mode->height;
    if (!shot) monitor = m;
  }
  GLFWwindow* window = glfwCreateWindow(w, h, opt.demo ? "GPU Lab: demo" : "GPU Lab", monitor, nullptr);
  if (!window) {
    glfwTerminate();
    return kNoDisplay;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(shot ? 0 : 1);

  // 2. Context and style.
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is fixed; nothing to save
  UiState ui;
  ui.text_scale = std::clamp(opt.scale, 0.5f, 4.f);
  // Slides want text at least 3% of the screen's height: 28 px at 900
  // (34 px at 1080, 67 px at 2160) in the demo and whenever the
  // projector layout is on screen (projector_layout_on); the six-pane desk
  // layout keeps 15 px at 900. Chosen every frame: a lesson step with
  // panes opens the projector layout, one without them the six panes.
  auto base_px_now = [&] {
    return opt.demo || projector_layout_on(ui) ? 28.f : 15.f;
  };
  float base_px = opt.demo ? 28.f : 15.f;

  float font_px = text_pixels(base_px, w, h, ui.text_scale);
  build_font(font_px);
  apply_sizes(font_px, opt.demo);

  // 3. Backends.
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");

  ui.presenter = opt.demo;
  ui.projector = opt.demo || opt.projector;
  // --projector outside a lesson (the progression, a kernel of your own): no
  // step chooses the panes, so the SM grid and the source, large (P toggles
  // the six panes; a pane key shows that one).
  if (opt.projector && !opt.demo && opt.session.lesson_dir.empty()) ui.focus = {Panel::SmGrid, Panel::Source};
  ui.lesson_auto_seek = opt.session.start_fraction <= 0;
  ui.cycle_open_fraction = opt.session.start_fraction;  // --at opens the cycle cursor there too
  if (opt.warp >= 0) ui.pinned_side = 0, ui.pinned_slot = opt.warp;
  ui.speed = opt.session.speed;
  ui.timeline_playing = opt.session.autoplay;  // --play starts the timeline's cycle clock too
  ui.panel = panel_from_name(opt.panel);
  int frame = 0, frames_after_ready = 0;
  std::vector<double> ui_ms, interval_ms;  // the UI's own work; frame start to frame start (with rendering)
  std::chrono::steady_clock::time_point last_t0, ready_t0;
  bool was_ready = false;
  DemoScript demo(opt.demo_minutes);
  std::chrono::steady_clock::time_point export_note_until;
  // demo --pictures: each beat's picture, taken once the script's clock has
  // run kBeatSettle into it (its panes drawn, a replay under way; the
  // opening's chart with its GPU points, which the clock waits for), and the list of them.
  constexpr double kBeatSettle = 1.5;
  int beat_on_screen = -1, beat_pictures = 0;
  bool beat_taken = false;
  std::string beat_list;
  int exit_code = 0;

  // 4. Loop: poll, new frame, build windows, render, swap.
  while (!glfwWindowShouldClose(window)) {
    glfwPollEvents();
    auto t0 = std::chrono::steady_clock::now();
    // The text follows the window and the chosen size ([ and ]): rebuild the
    // font between frames when its pixel size changes.
    int ww, wh;
    glfwGetWindowSize(window, &ww, &wh);
    base_px = base_px_now();
    float want_px = text_pixels(base_px, ww, wh, ui.text_scale);
    if (want_px != font_px) {
      font_px = want_px;
      build_font(font_px);
      ImGui_ImplOpenGL3_DestroyFontsTexture();
      ImGui_ImplOpenGL3_CreateFontsTexture();
      apply_sizes(font_px, opt.demo);
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (shot || !opt.pictures.empty()) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no hover tooltips in pictures
    ImGui::NewFrame();
    begin_frame_state();
    std::shared_ptr<const ViewModel> vm = session.snapshot();
    if (opt.demo) {
      // The lecture script: it picks the kernel, the moment and the panes.
      double dt = frame ? std::chrono::duration<double>(t0 - last_t0).count() : 0;
      bool next = ImGui::IsKeyPressed(GLFW_KEY_PAGE_DOWN), prev = ImGui::IsKeyPressed(GLFW_KEY_PAGE_UP);
      // Space pauses the script's clock (and, as everywhere, the replay).
      if (ImGui::IsKeyPressed(GLFW_KEY_SPACE)) demo.toggle_pause();
      demo.hold(!opt.pictures.empty() && !beat_taken);  // each beat's picture before the next beat
      DemoScript::Action a = demo.update(dt, *vm, session.version_count(), next, prev, ui);
      if (a.select_kernel >= 0 && (frame > 0 || a.select_kernel != vm->launch.current_kernel))
        session.select_version(a.select_kernel);
      if (a.seek) ui.command = PlayCommand::SeekTo, ui.seek_position = a.position;
      session.send(ui);
      if (a.play) ui.command = PlayCommand::Play;
      ui.lesson_step = demo.kernel();
    }
    draw_lab(*vm, ui);
    const bool cycles_wanted = ui.timeline_wanted;  // a pane drew (or waits for) the cycle model's timing
    shown("window.width", double(ww));
    shown("window.height", double(wh));
    shown("window.text_pixels", double(font_px));
    shown("window.text_height", double(ImGui::GetTextLineHeight()));
    if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE) && !ui.show_help) glfwSetWindowShouldClose(window, 1);
    session.send(ui);
    ImGui::Render();
    auto t1 = std::chrono::steady_clock::now();
    ui.ui_ms = float(std::chrono::duration<double, std::milli>(t1 - t0).count());
    ui_ms.push_back(ui.ui_ms);
    if (frame > 0) interval_ms.push_back(std::chrono::duration<double, std::milli>(t0 - last_t0).count());
    last_t0 = t0;
    int fw, fh;
    glfwGetFramebufferSize(window, &fw, &fh);
    glViewport(0, 0, fw, fh);
    glClearColor(0.06f, 0.07f, 0.08f, 1.f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++frame;
    if (ui.export_wanted) {
      // The picture as drawn, for slides; never over an existing file.
      ui.export_wanted = false;
      const std::string path = next_picture_name(".");
      if (!path.empty() && write_framebuffer_png(path, fw, fh)) {
        std::printf("wrote %s (%dx%d)\n", path.c_str(), fw, fh);
        ui.export_note = "wrote " + path;
      } else {
        ui.export_note = path.empty() ? "E: gpulab-picture-001..999.png all exist here: move them first"
                                      : "E: could not write " + path;
      }
      export_note_until = t0 + std::chrono::seconds(4);
    }
    if (!ui.export_note.empty() && t0 > export_note_until) ui.export_note.clear();
    if (opt.demo && !opt.pictures.empty()) {
      const int key = demo.beat_key();
      if (key != beat_on_screen) beat_on_screen = key, beat_taken = false;
      const double settle = std::min(kBeatSettle, 0.6 * demo.beat_seconds());  // short beats (a short --minutes) too
      if (key >= 0 && !beat_taken && demo.beat_clock() >= settle) {
        beat_taken = true;
        char name[32];
        std::snprintf(name, sizeof name, "beat-%02d.png", ++beat_pictures);
        const std::string path = (std::filesystem::path(opt.pictures) / name).string();
        const int at = int(demo.elapsed());
        char line[64];
        std::snprintf(line, sizeof line, "%s  %d:%02d  ", name, at / 60, at % 60);
        beat_list += line + (ui.banner.empty() ? std::string("(no caption)") : ui.banner) + "\n";
        if (!write_framebuffer_png(path, fw, fh) ||
            !write_text_atomically((std::filesystem::path(opt.pictures) / "beats.txt").string(), beat_list)) {
          std::fprintf(stderr, "gpulab demo: could not write %s (does the folder exist?)\n", path.c_str());
          exit_code = 2;
          glfwSetWindowShouldClose(window, 1);
        } else {
          std::printf("wrote %s\n", path.c_str());
        }
      }
      if (demo.finished() && !shot) glfwSetWindowShouldClose(window, 1);  // the whole lecture's pictures: done
    }
    if (shot) {
      // Count frames only once the trace is ready, so the picture shows it.
      // The perf charts wait for every version's predicted point.
      bool charts = (ui.panel == Panel::All && !ui.projector) || ui.panel == Panel::Roofline ||
                    ui.panel == Panel::Comparison;
      // The panes that draw cycles (timeline, SM grid, block) wait for the
      // cycle model's two timings (or its reason why not).
      // The demo's pictures do not wait: its script moves on by its clock.
      bool timeline = cycles_wanted && !opt.demo;
      bool timed = !timeline || (vm->timeline && (vm->timeline->ready() || vm->timeline->status.rfind("no timeline", 0) == 0));
      // The program pane waits for its program's run (or its error).
      bool program = ui.panel == Panel::Program || std::find(ui.focus.begin(), ui.focus.end(), Panel::Program) != ui.focus.end();
      bool ran = !program || !vm->program.devices.empty() || vm->program.status.rfind("error", 0) == 0;
      // A text-only lesson step (ui.story_only) waits for nothing: its text is the picture.
      bool ready = ui.story_only ||
                   (session.ready() && (!charts || session.charts_ready()) && timed && ran && vm->serial > 1);
      if (ready && !was_ready) was_ready = true, ready_t0 = t0;
      if (ready) ++frames_after_ready;
      bool take = opt.shot_after_seconds > 0
                      ? was_ready && std::chrono::duration<double>(t0 - ready_t0).count() >= opt.shot_after_seconds
                      : frames_after_ready >= opt.frames;
      take |= opt.demo && demo.finished();  // a whole demo: the picture of its end, then exit
      if (take) {
        if (!write_framebuffer_png(opt.screenshot, fw, fh)) {
          std::fprintf(stderr, "gpulab view: could not write %s\n", opt.screenshot.c_str());
          exit_code = 2;
        } else {
          std::printf("wrote %s (%dx%d)\n", opt.screenshot.c_str(), fw, fh);
        }
        if (!opt.state.empty()) {
          if (write_text_atomically(opt.state, frame_state_json() + "\n")) std::printf("wrote %s\n", opt.state.c_str());
          else std::fprintf(stderr, "gpulab view: could not write %s\n", opt.state.c_str()), exit_code = 2;
        }
        // The picture shows the failure; the exit status says it too (issue
        // 29: a kernel that did not compile exited 0).
        if (exit_code == 0 && vm->playback.error_exit) {
          std::fprintf(stderr, "gpulab view: %s\n", vm->playback.status.c_str());
          exit_code = vm->playback.error_exit;
        }
        glfwSetWindowShouldClose(window, 1);
      }
    }
    glfwSwapBuffers(window);
    // At most ~60 frames a second: without vsync (Xvfb, screenshots) the loop
    // would otherwise take a core from the simulation it shows.
    std::this_thread::sleep_until(t0 + std::chrono::microseconds(16667));
  }
  if (opt.fps && !ui_ms.empty()) {
    std::vector<double> s(ui_ms.begin() + std::min<size_t>(ui_ms.size() - 1, 5), ui_ms.end());
    std::sort(s.begin(), s.end());
    std::printf("UI work per frame over %zu frames: median %.2f ms, p95 %.2f ms, max %.2f ms\n", s.size(),
                s[s.size() / 2], s[size_t(s.size() * 0.95)], s.back());
    if (interval_ms.size() > 6) {
      std::vector<double> f(interval_ms.begin() + 5, interval_ms.end());
      std::sort(f.begin(), f.end());
      std::printf("frame interval (work + GL rendering + the ~60 Hz cap): median %.2f ms, p95 %.2f ms, max %.2f ms\n",
                  f[f.size() / 2], f[size_t(f.size() * 0.95)], f.back());
    }
  }
  if (opt.demo) std::printf("demo: %.1f s of script shown, kernel %d, %s\n", demo.elapsed(), demo.kernel() + 1,
                            demo.finished() ? "finished" : "not finished");

  // 5. Cleanup.
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}

}  // namespace lab::visual
