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
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

#include "visual/theme.h"
#include "visual/views.h"

namespace lab::visual {

bool display_available() {
  const char* d = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (d && *d) || (w && *w);
}

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
  if (opt.demo && !shot) {
    monitor = glfwGetPrimaryMonitor();
    if (const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr) w = mode->width, h = mode->height;
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
  ImFontConfig fc;
  fc.SizePixels = opt.demo ? 22.f : 15.f;
  io.Fonts->AddFontDefault(&fc);
  apply_theme(opt.demo);

  // 3. Backends.
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");

  UiState ui;
  ui.presenter = opt.demo;
  ui.speed = opt.session.speed;
  ui.panel = panel_from_name(opt.panel);
  int frame = 0, frames_after_ready = 0;
  std::vector<double> ui_ms, interval_ms;  // the UI's own work; frame start to frame start (with rendering)
  std::chrono::steady_clock::time_point last_t0;
  auto demo_clock = std::chrono::steady_clock::now();
  int demo_version = -1;
  int exit_code = 0;

  // 4. Loop: poll, new frame, build windows, render, swap.
  while (!glfwWindowShouldClose(window)) {
    glfwPollEvents();
    auto t0 = std::chrono::steady_clock::now();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (shot) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no hover tooltips in pictures
    ImGui::NewFrame();
    std::shared_ptr<const ViewModel> vm = session.snapshot();
    int before_step = ui.lesson_step;
    draw_lab(*vm, ui);
    if (opt.demo) {
      // Presenter mode: Page Up/Down (lesson steps) pick the kernel; the
      // script advances by itself every 40 seconds.
      int n = std::max(1, session.version_count());
      auto now = std::chrono::steady_clock::now();
      if (std::chrono::duration<double>(now - demo_clock).count() > 40 && vm->playback.finished) ++ui.lesson_step;
      ui.lesson_step = std::clamp(ui.lesson_step, 0, n - 1);
      if (ui.lesson_step != demo_version) {
        demo_version = ui.lesson_step;
        demo_clock = now;
        if (before_step != ui.lesson_step || frame > 0) session.select_version(ui.lesson_step);
        ui.command = PlayCommand::Play;
      }
    }
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
    if (shot) {
      // Count frames only once the trace is ready, so the picture shows it.
      // The perf charts wait for every version's predicted point.
      bool charts = ui.panel == Panel::All || ui.panel == Panel::Roofline || ui.panel == Panel::Comparison;
      if (session.ready() && (!charts || session.charts_ready()) && vm->serial > 1) ++frames_after_ready;
      if (frames_after_ready >= opt.frames) {
        if (!write_framebuffer_png(opt.screenshot, fw, fh)) {
          std::fprintf(stderr, "gpulab view: could not write %s\n", opt.screenshot.c_str());
          exit_code = 2;
        } else {
          std::printf("wrote %s (%dx%d)\n", opt.screenshot.c_str(), fw, fh);
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

  // 5. Cleanup.
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}

}  // namespace lab::visual
