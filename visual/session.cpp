// visual/session.cpp: the worker loop. It takes the UI's commands, runs
// the chosen kernel (session_gemm.cpp, session_kernel.cpp), advances the
// playback clock and publishes a fresh ViewModel; the UI never waits on it.
#include <algorithm>
#include <chrono>

#include "lab/compile/nvrtc.h"
#include "lab/ptx/parser.h"
#include "visual/session_impl.h"

namespace lab::visual {

// One turn of the worker: apply the UI's commands, advance the playback clock, publish.
void play_tick(Session::Impl& I, std::chrono::steady_clock::time_point& last, bool& dirty) {
  std::vector<Session::Impl::Command> cmds;
  {
    std::lock_guard lock(I.cmd_mu);
    cmds.swap(I.commands);
  }
  for (auto [c, arg, pos] : cmds) {
    dirty = true;
    if (!I.replay) continue;
    switch (c) {
      case PlayCommand::Play: I.playing = true; break;
      case PlayCommand::Pause: I.playing = false; break;
      case PlayCommand::Toggle: I.playing = !I.playing; break;
      case PlayCommand::StepInstr: I.playing = false; I.replay->step_instr(); break;
      case PlayCommand::StepBarrier: I.playing = false; I.replay->step_barrier(); break;
      case PlayCommand::StepWave: I.playing = false; I.replay->step_wave(); break;
      case PlayCommand::Restart: I.replay->seek(0); break;
      case PlayCommand::Seek: I.replay->seek(uint64_t(arg * I.replay->size())); break;
      case PlayCommand::SeekTo: I.playing = false; I.replay->seek(std::min<uint64_t>(pos, I.replay->size())); break;
      case PlayCommand::None: break;
    }
  }
  auto now = std::chrono::steady_clock::now();
  double dt = std::chrono::duration<double>(now - last).count();
  last = now;
  if (I.playing && I.replay) {
    I.credit += dt * I.speed.load();
    uint64_t n = uint64_t(I.credit);
    I.credit -= double(n);
    for (uint64_t i = 0; i < n && I.replay->cursor() < I.replay->size(); ++i) I.replay->step_instr();
    if (I.replay->cursor() >= I.replay->size()) I.playing = false;
    dirty |= n > 0;
  }
  I.timeline_tick(dirty);
  I.program_tick(dirty);
  if (dirty) {
    ViewModel vm = I.base;
    if (I.replay) I.replay->fill(vm);
    else if (I.live) I.live->fill(vm);
    vm.playback.playing = I.playing;
    I.publish(std::move(vm));
    dirty = false;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(15));
}

Session::Session(SessionConfig cfg) : impl_(std::make_unique<Impl>()) {
  impl_->cfg = std::move(cfg);
  impl_->stop = &stop_;
  impl_->speed = impl_->cfg.speed;
  impl_->playing = impl_->cfg.autoplay;
  worker_ = std::thread([this] { run(); });
}

Session::~Session() {
  stop_ = true;
  if (worker_.joinable()) worker_.join();
  impl_->timeline_reset();
}

std::shared_ptr<const ViewModel> Session::snapshot() const {
  std::lock_guard lock(impl_->pub_mu);
  return impl_->published;
}

void Session::send(UiState& ui) {
  impl_->speed = ui.speed;
  if (ui.command != PlayCommand::None) {
    std::lock_guard lock(impl_->cmd_mu);
    impl_->commands.push_back({ui.command, ui.seek_fraction, ui.seek_position});
    ui.command = PlayCommand::None;
  }
  auto choose = [&](const std::string& name) {
    for (size_t i = 0; i < impl_->versions.size(); ++i)
      if (impl_->versions[i].name == name) select_version(int(i));
  };
  if (ui.run_target.rfind("step:", 0) == 0) impl_->want_step = std::stoi(ui.run_target.substr(5));
  else if (!ui.run_target.empty()) choose(ui.run_target);
  ui.run_target.clear();
  if (ui.timeline_wanted) impl_->timeline_wanted = true, ui.timeline_wanted = false;
  if (ui.launch_requested) {
    ui.launch_requested = false;
    request_launch(ui.kernel_choice, ui.gpu_choice, ui.size_choice, ui.backend_choice);
  }
}

void Session::select_version(int index) { impl_->want_version = index; }
void Session::select_step(int step) { impl_->want_step = step; }

void Session::request_launch(int version, int gpu, int size, int backend) {
  Impl::LaunchRequest r{version, gpu, size, backend == 1 ? "cuda" : "simulator"};
  std::lock_guard lock(impl_->req_mu);
  impl_->request = r;
}
int Session::version_count() const { return int(impl_->versions.size()); }

namespace {
// The CLI's exit code for what went wrong (lab/cli/command.h: 2 for source
// that does not compile or parse, 1 for a run that failed).
int error_exit_of(const std::exception& e) {
  return dynamic_cast<const compile::CompileError*>(&e) || dynamic_cast<const ptx::ParseError*>(&e) ? 2 : 1;
}
}  // namespace

void Session::run() {
  Impl& I = *impl_;
  auto fail = [&](const std::exception& e) {
    I.replay.reset();
    I.live.reset();
    I.base.playback.status = std::string("error: ") + e.what();
    I.base.playback.error_exit = error_exit_of(e);
  };
  if (!I.cfg.lesson_dir.empty()) {
    try {
      I.load_lesson();
    } catch (const std::exception& e) {
      fail(e);
    }
  }
  // A user's kernel, or a lesson whose steps run kernels: no GEMM progression.
  bool lesson_kernels = false;
  // A lesson that times the CPU GEMM (lesson 01) keeps the GEMM progression
  // and its CPU-against-GPU chart; its `gpulab sim` steps alone do not turn
  // the view over to single kernels.
  bool cpu_gemm_lesson = false;
  if (I.lesson)
    for (const auto& st : I.lesson->steps) cpu_gemm_lesson |= st.cpu_gemm > 0;
  if (I.lesson)
    for (size_t i = 0; i < I.lesson->steps.size(); ++i)
      lesson_kernels |= !I.lesson->steps[i].measure_file.empty() || I.program_step(int(i)) ||
                        (I.sim_step(int(i)) && !cpu_gemm_lesson);
  // Lesson 01 opened at a step that runs a kernel (`--step`) shows that
  // kernel, as every other lesson does (issue 28: it showed the progression
  // at step 1); opened at any other step, the progression and its CPU
  // chart, with the lesson text at the step asked for.
  if (I.lesson && cpu_gemm_lesson && I.cfg.lesson_step >= 0) {
    if (I.sim_step(I.cfg.lesson_step)) lesson_kernels = true;
    else I.base.lesson.open_step = I.cfg.lesson_step;
  }
  if (!I.cfg.file.empty() || lesson_kernels) {
    if (lesson_kernels) {
      int first = -1;
      for (size_t i = 0; i < I.lesson->steps.size() && first < 0; ++i)
        if (!I.lesson->steps[i].measure_file.empty() || I.program_step(int(i)) || I.sim_step(int(i))) first = int(i);
      I.want_step = I.cfg.lesson_step >= 0 ? I.cfg.lesson_step : first;
      I.base.lesson.open_step = I.want_step.load();
    }
    bool dirty = true;
    bool first_run = true;
    auto last = std::chrono::steady_clock::now();
    while (!stop_) {
      int want = lesson_kernels ? I.want_step.exchange(-1) : (first_run ? 0 : -1);
      if (want >= 0) {
        // A lesson step that runs no kernel keeps the last kernel on screen.
        if (lesson_kernels) want = std::min<int>(want, int(I.lesson->steps.size()) - 1);
        const std::optional<KernelRun> sim_run = lesson_kernels ? I.sim_step(want) : std::nullopt;
        bool runs = !lesson_kernels || !I.lesson->steps[size_t(want)].measure_file.empty() || sim_run;
        if (lesson_kernels && want != I.step_on_screen && I.program_step(want)) {
          I.start_program(want);  // a step's CUDA program: the program pane (session_program.cpp)
          I.step_on_screen = want;
          dirty = true;
        } else if (lesson_kernels && want != I.step_on_screen && !runs &&
                   !I.lesson->steps[size_t(want)].command.empty()) {
          // A step that runs `gpulab occupancy`: the calculator takes its numbers;
          // `gpulab train`: the comparison chart, CPU step against GPU step.
          try {
            if (I.train_step(want)) {
              I.step_on_screen = want;
              I.publish(I.base);  // as below
            } else if (I.occupancy_step(want)) {
              I.step_on_screen = want;
              I.publish(I.base);  // and once more below: the step is shown whole from the second state on
            }
          } catch (const std::exception& e) {
            fail(e);
          }
          dirty = true;
        } else if (runs && want != I.step_on_screen) {
          try {
            I.prepare_kernel(!lesson_kernels ? I.user_kernel() : sim_run ? *sim_run : I.lesson_kernel(want));
            I.step_on_screen = lesson_kernels ? want : -1;
            if (I.replay && I.cfg.start_fraction > 0)
              I.replay->seek(uint64_t(I.cfg.start_fraction * I.replay->size()));
          } catch (const std::exception& e) {
            fail(e);
          }
          dirty = true;
        }
        // The step's before/after, when it has one: the comparison chart
        // (after the kernel above, whose own point the chart would show).
        // The kernel goes on screen first (its trace opens at the step's
        // moment); the before/after, seconds of sampled runs, follows.
        if (lesson_kernels && want < int(I.lesson->steps.size()) && I.lesson->steps[size_t(want)].compare) {
          I.publish(I.base);
          I.compare_step(want);
        }
        // Lesson 07's batch step: the roofline pane draws the layer's bound at each batch.
        if (lesson_kernels && want < int(I.lesson->steps.size()) && I.lesson->steps[size_t(want)].layer_in > 0) {
          const auto& st = I.lesson->steps[size_t(want)];
          I.layer_charts(st.layer_in, st.layer_out);
          I.step_on_screen = want;
          I.publish(I.base);  // and once more below, as the command steps: the picture waits for the second state
        }
        first_run = false;
        dirty = true;  // publish the step, even one that runs nothing
        ready_ = true;
        charts_ready_ = true;
      }
      play_tick(I, last, dirty);
    }
    I.program_join();
    return;
  }
  try {
    I.versions = gemm::load_gemm_versions();
  } catch (const std::exception& e) {
    I.base.playback.status = std::string("cannot load the GEMM progression: ") + e.what();
    I.publish(I.base);
    ready_ = true;
    charts_ready_ = true;
    return;
  }
  I.version = std::min<int>(2, int(I.versions.size()) - 1);
  for (size_t i = 0; i < I.versions.size(); ++i)
    if (I.versions[i].name == I.cfg.version || I.versions[i].kernel == I.cfg.version) I.version = int(i);
  I.want_version = I.version;
  auto last = std::chrono::steady_clock::now();
  bool dirty = true;
  while (!stop_) {
    int want = I.want_version.exchange(-1);
    std::optional<Impl::LaunchRequest> req;
    {
      std::lock_guard lock(I.req_mu);
      req.swap(I.request);
    }
    if (req) {
      I.apply_request(*req);
      charts_ready_ = false;  // a new GPU model needs its own predictions
      want = I.version;
    }
    if (want >= 0 && want < int(I.versions.size())) {
      I.version = want;
      try {
        I.prepare();
        if (I.replay && I.cfg.start_fraction > 0) I.replay->seek(uint64_t(I.cfg.start_fraction * I.replay->size()));
      } catch (const std::exception& e) {
        I.replay.reset();
        I.live.reset();
        I.base.playback.status = std::string("error: ") + e.what();
        I.base.playback.error_exit = error_exit_of(e);
      }
      if (!I.backend_note.empty())
        I.base.playback.status = I.base.playback.status.empty() ? I.backend_note
                                                                : I.backend_note + "; " + I.base.playback.status;
      ready_ = true;
      dirty = true;
    } else if (ready_ && !charts_ready_) {
      bool all = false;
      if (I.predict_next(&all)) dirty = true;  // more versions on the roofline
      if (all) charts_ready_ = true;
    }
    play_tick(I, last, dirty);
  }
  if (I.predictor.joinable()) I.predictor.join();
}


}  // namespace lab::visual
