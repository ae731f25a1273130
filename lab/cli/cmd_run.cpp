// gpulab run: an ordinary CUDA program (host code + kernels, one or more .cu
// files) built with nvcc and run with every CUDA runtime call served by the
// lab (lab/runtime, docs/run.md): each launch is simulated like `gpulab sim`.
//
//   gpulab run PROGRAM.cu [more.cu ...] [-- program args]
//     --gpu MODEL  --check  --report  --json  --max-steps N  --backend sim|cuda  -D NAME=VALUE  -l LIB
//     --gpus N  --link nvlink|pcie   (N simulated GPUs of the model, and what joins them: lab/runtime/devices.h)
//
// Exit codes: 0 the program exited 0 and every launch ran clean; 1 a launch
// faulted or a check found a problem, or the program exited non-zero or
// crashed; 2 a usage or build error (including runtime calls the lab does
// not serve).
#include <algorithm>
#include <csignal>
#include <cerrno>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lab/cli/command.h"
#include "lab/program/build.h"
#include "lab/cli/signal_scope.h"
#include "lab/sim/device.h"

namespace lab::cli {
using namespace lab::program;  // building a program (lab/program/build.h)
namespace {
namespace fs = std::filesystem;

struct RunArgs {
  std::vector<std::string> positional;  // sources (then, without `--`, the program's arguments)
  std::vector<std::string> after_dashes;  // the program's arguments after `--`
  std::string gpu = "H100", backend = "sim";
  std::vector<std::string> defines, include_dirs, libraries, host_flags;
  bool check = false, report = false, json = false;
  uint64_t max_steps = 0;
  int gpus = 1;
  bool gpus_given = false;  // --gpus on the command line (even 1): the device table is printed
  std::string link = "nvlink";
};

bool is_source(const std::string& s) {
  std::string ext = fs::path(s).extension().string();
  return ext == ".cu" || ext == ".cpp" || ext == ".cc" || ext == ".cxx";
}

// The running program, for signals sent to gpulab (a terminal's hang-up, a
// `kill`, a check that gave up): passed on, so the program does not outlive
// the command that started it.
volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_forwarded = 0;
extern "C" void forward_signal(int sig) {
  g_forwarded = sig;
  if (g_child > 0) kill(pid_t(g_child), sig);
}

// Runs the program; its stdout goes to `stdout_path` when given (for --json).
int run_program(const std::string& exe, const std::vector<std::string>& args, const std::string& stdout_path,
                std::string& how_it_ended) {
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    if (!stdout_path.empty()) {
      int fd = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) dup2(fd, 1);
    }
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(exe.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    std::perror(exe.c_str());
    _exit(127);
  }
  g_child = pid;
  int status = 0;
  {
    SignalScope forward(forward_signal);  // Ctrl-C reaches the program through the terminal too; once is enough
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  g_child = 0;
  if (WIFSIGNALED(status)) {
    how_it_ended = fmt::format("the program was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
    // The commonest cause in a CUDA program: host code reading or writing
    // device memory, which crashes on a GPU too (only managed memory is the
    // host's to touch).
    if (WTERMSIG(status) == SIGSEGV)
      how_it_ended += "; if the host dereferenced a cudaMalloc pointer (or managed memory after cudaFree), copy "
                      "with cudaMemcpy first or allocate with cudaMallocManaged (device memory is not the host's, on "
                      "a GPU as in the lab)";
    return 128 + WTERMSIG(status);
  }
  int rc = WEXITSTATUS(status);
  how_it_ended = rc ? fmt::format("the program exited with status {}", rc) : "the program exited with status 0";
  return rc;
}

// The report file: one line per launch, then the runtime's device summary
// (lab/runtime/devices.cpp), the line with "devices", at exit.
std::vector<nlohmann::json> read_launches(const std::string& path, nlohmann::json& summary) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.contains("devices")) summary = std::move(j);
    else out.push_back(std::move(j));
  }
  return out;
}

// With several GPUs (or --gpus given), after the program: each device's predicted timeline and memory,
// and each link's bytes.
std::string device_table(const nlohmann::json& s) {
  std::string t =
      s["devices"].size() == 1
          ? std::string("\n1 simulated GPU; times are PREDICTIONS\n")
          : fmt::format("\n{} simulated GPUs joined by {} ({:.0f} GB/s one direction, {:.1f} us a copy); times are "
                        "PREDICTIONS\n",
                        s["devices"].size(), s.value("link", ""), s.value("link_bytes_per_s", 0.0) / 1e9,
                        s.value("link_latency_s", 0.0) * 1e6);
  t += fmt::format("  {:>6} {:>14} {:>14} {:>14} {:>14} {:>14} {:>9}\n", "device", "predicted", "peer copies",
                   "waiting", "live bytes", "peak bytes", "launches");
  for (const auto& d : s["devices"])
    t += fmt::format("  {:>6} {:>11.4f} ms {:>11.4f} ms {:>11.4f} ms {:>14} {:>14} {:>9}\n", d.value("device", 0),
                     d.value("predicted_seconds", 0.0) * 1e3, d.value("copy_seconds", 0.0) * 1e3,
                     d.value("wait_seconds", 0.0) * 1e3, d.value("live_bytes", uint64_t{0}), d.value("peak_bytes", uint64_t{0}),
                     d.value("launches", 0));
  for (const auto& l : s["links"])
    t += fmt::format("  link {} -> {}: {} bytes in {} copies\n", l.value("src", 0), l.value("dst", 0),
                     l.value("bytes", uint64_t{0}), l.value("copies", uint64_t{0}));
  return t;
}

std::string dims(const nlohmann::json& d) {
  return fmt::format("{}x{}x{}", d[0].get<uint64_t>(), d[1].get<uint64_t>(), d[2].get<uint64_t>());
}

// The per-launch table of --report.
std::string launch_table(const std::vector<nlohmann::json>& launches, const std::string& gpu) {
  std::string t = fmt::format("\n{} launch{} simulated as the {} (times are PREDICTIONS of the machine model)\n",
                              launches.size(), launches.size() == 1 ? "" : "es", gpu);
  // The kernel column fits the longest name up to 80 characters: a cuBLAS
  // call's launch is named after the call and its kernel
  // ("cublasSgemm (lab GEMM: gemm_07_warptile)"), and both halves matter.
  size_t width = 24;
  for (const auto& l : launches)
    if (!l.is_discarded()) width = std::max(width, std::min<size_t>(80, l.value("kernel", "").size()));
  t += fmt::format("  {:>3}  {:<{}} {:>12} {:>11} {:>12} {:<8} {:>10} {:>9}  {}\n", "#", "kernel", width, "grid",
                   "block", "predicted", "bound", "sectors/req", "conflicts", "status");
  for (const auto& l : launches) {
    if (l.is_discarded()) continue;
    const auto& p = l.value("predicted", nlohmann::json::object());
    std::string time = p.contains("time_ms") ? fmt::format("{:.4f} ms", p["time_ms"].get<double>()) : "-";
    std::string status = l.value("ok", false) ? "ok" : "ERROR";
    if (!l.value("ok", false) && !l["errors"].empty()) status += " " + l["errors"][0].value("kind", "");
    std::string name = l.value("kernel", "");
    if (name.size() > width) name = name.substr(0, width - 3) + "...";
    t += fmt::format("  {:>3}  {:<{}} {:>12} {:>11} {:>12} {:<8} {:>10.2f} {:>9}  {}\n", l.value("launch", 0), name,
                     width, dims(l["grid"]), dims(l["block"]), time, p.value("bound", "-"),
                     l.value("sectors_per_request", 0.0), l.value("bank_conflicts", uint64_t{0}), status);
  }
  // The runtime's count of cudaMalloc bytes (lab/runtime/context.h), as of the last launch.
  if (!launches.empty() && !launches.back().is_discarded() && launches.back().contains("device_peak_bytes"))
    t += fmt::format("  device memory: {} bytes live at the last launch, peak {} bytes (cudaMalloc, as asked for)\n",
                     launches.back()["device_live_bytes"].get<uint64_t>(),
                     launches.back()["device_peak_bytes"].get<uint64_t>());
  return t;
}

int run(const RunArgs& a) {
  auto fail = [&](const std::string& message) {
    if (a.json) std::puts(nlohmann::json({{"ok", false}, {"errors", {{{"kind", "build"}, {"message", message}}}}}).dump(2).c_str());
    else std::fprintf(stderr, "gpulab run: %s\n", message.c_str());
    return kExitUsage;
  };
  ProgramBuild build;
  size_t i = 0;
  for (; i < a.positional.size() && is_source(a.positional[i]); ++i) build.sources.push_back(a.positional[i]);
  std::vector<std::string> program_args(a.positional.begin() + long(i), a.positional.end());
  program_args.insert(program_args.end(), a.after_dashes.begin(), a.after_dashes.end());
  if (build.sources.empty())
    return fail("give the program's .cu file(s) first: gpulab run PROGRAM.cu [more.cu ...] [-- args]");
  const sim::GpuModel* gpu = nullptr;
  try {
    gpu = &sim::gpu_model(a.gpu);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  build.ptx_arch = std::string(gpu->ptx_target);
  build.for_real_gpu = a.backend == "cuda";
  build.defines = a.defines;
  build.include_dirs = a.include_dirs;
  build.libraries = a.libraries;
  build.host_flags = a.host_flags;
  std::string exe;
  try {
    exe = build_program(build);
  } catch (const std::exception& e) {
    return fail(e.what());
  }

  if (build.for_real_gpu) {
    // NVIDIA's runtime on the real GPU: the same program, untouched (untested
    // where no driver exists, as on the lab's build machine).
    std::string how;
    int rc = run_program(exe, program_args, "", how);
    if (rc) std::fprintf(stderr, "gpulab run: %s\n", how.c_str());
    return rc ? kExitKernelFault : kExitOk;
  }

  char report_tmpl[] = "/tmp/gpulab-run-XXXXXX";
  int fd = mkstemp(report_tmpl);
  if (fd < 0) return fail("cannot create a temporary file for the launch report");
  close(fd);
  const std::string report_path = report_tmpl, stdout_path = a.json ? report_path + ".out" : "";
  setenv("GPULAB_RUN_GPU", std::string(gpu->name).c_str(), 1);
  setenv("GPULAB_RUN_CHECK", a.check ? "1" : "0", 1);
  setenv("GPULAB_RUN_REPORT", report_path.c_str(), 1);
  setenv("GPULAB_RUN_MAX_STEPS", std::to_string(a.max_steps).c_str(), 1);
  setenv("GPULAB_RUN_GPUS", std::to_string(a.gpus).c_str(), 1);
  setenv("GPULAB_RUN_LINK", a.link.c_str(), 1);
  std::string how;
  int rc = run_program(exe, program_args, stdout_path, how);
  nlohmann::json summary;
  std::vector<nlohmann::json> launches = read_launches(report_path, summary);
  std::remove(report_path.c_str());
  if (const int sig = g_forwarded) {
    // Stopped from outside: the program got the signal too; leave no files
    // behind, then end the way the signal says.
    if (!stdout_path.empty()) std::remove(stdout_path.c_str());
    std::fprintf(stderr, "gpulab run: stopped by signal %d (%s); the program was stopped too\n", sig, strsignal(sig));
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return 128 + sig;
  }

  bool launches_ok = true;
  for (const auto& l : launches) launches_ok &= !l.is_discarded() && l.value("ok", false);
  // --check: copies and kernels on different GPUs that CUDA does not order (lab/runtime/stream_order.h).
  const uint64_t races = summary.is_object() ? summary.value("stream_order_race_count", uint64_t(0)) : 0;
  launches_ok = launches_ok && races == 0;
  const int exit_code = rc == 0 && launches_ok ? kExitOk : kExitKernelFault;
  if (a.json) {
    std::ifstream in(stdout_path);
    std::stringstream out;
    out << in.rdbuf();
    std::remove(stdout_path.c_str());
    nlohmann::json j = {{"program", build.sources}, {"backend", "sim"}, {"gpu", std::string(gpu->name)},
                        {"exit_code", rc}, {"ok", exit_code == kExitOk}, {"output", out.str()},
                        {"launches", launches}};
    if (!summary.is_null()) j["devices"] = summary;
    std::puts(j.dump(2).c_str());
  } else {
    if (a.report) std::fputs(launch_table(launches, std::string(gpu->name)).c_str(), stdout);
    // Several GPUs, or --gpus given: the table lesson 11's README cites, one GPU's row included.
    if ((a.gpus > 1 || a.gpus_given) && !summary.is_null()) std::fputs(device_table(summary).c_str(), stdout);
    if (rc) std::fprintf(stderr, "gpulab run: %s\n", how.c_str());
    else if (races)
      std::fprintf(stderr, "gpulab run: %llu stream-order race(s) between GPUs (see above): correct here, where every "
                           "call finishes before it returns, but not promised on GPUs\n", static_cast<unsigned long long>(races));
    else if (!launches_ok) std::fprintf(stderr, "gpulab run: a launch faulted or a check found a problem (see above)\n");
  }
  return exit_code;
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Build an ordinary CUDA program (main() + kernels) and run it on the simulator");
  cmd->add_option("program", a->positional, "PROGRAM.cu [more.cu ...] [-- program arguments]")->required();
  cmd->add_option("--gpu", a->gpu, "GPU model: T4, A100, RTX4090, H100, H200");
  cmd->add_flag("--check", a->check, "kernel checks on every launch: out-of-bounds, races, barrier divergence, ...");
  cmd->add_flag("--report", a->report, "after the program: a table of every launch (predicted time, bound, sectors, conflicts)");
  cmd->add_flag("--json", a->json, "print one JSON object: the program's output and every launch");
  cmd->add_option("--max-steps", a->max_steps, "instructions a thread may execute before it is reported as a hang");
  cmd->add_option("--backend", a->backend, "sim (default) | cuda (NVIDIA's runtime on a real GPU)")
      ->check(CLI::IsMember({"sim", "cuda"}));
  cmd->add_option("-D,--define", a->defines, "preprocessor definition, NAME=VALUE");
  cmd->add_option("-I,--include", a->include_dirs, "a folder of headers, as nvcc -I (e.g. cuda-samples' Common)");
  cmd->add_option("-l,--library", a->libraries,
                  "a library to link, as nvcc -l: cublas / cublasLt are the lab's cuBLAS stand-in (linked anyway when "
                  "the program calls cuBLAS); m, dl, pthread, ... pass through");
  cmd->add_option("-X,--Xcompiler", a->host_flags, "a flag for the host compiler, as nvcc -Xcompiler (--Xcompiler=-fopenmp)");
  cmd->add_option("--gpus", a->gpus, "simulated GPUs of the --gpu model (cudaSetDevice 0 .. N-1)")
      ->check(CLI::Range(1, 64))
      ->each([a](const std::string&) { a->gpus_given = true; });
  cmd->add_option("--link", a->link, "what joins them: nvlink (every pair, through an NVSwitch) | pcie")
      ->check(CLI::IsMember({"nvlink", "pcie"}));
  cmd->callback([a, &rc] {
    a->after_dashes = passthrough_args();
    rc = run(*a);
  });
});

}  // namespace
}  // namespace lab::cli
