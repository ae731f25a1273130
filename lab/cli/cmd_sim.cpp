// gpulab sim: run any kernel file in the simulator (the bring-your-own-kernel
// command). Its options, JSON fields and exit codes are a contract; see
// README "Run your own kernel".
#include <cmath>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lab/cuda/kernel_run.h"
#include "lab/cli/command.h"
#include "lab/cli/gpu_option.h"
#include "lab/cli/sim_output.h"
#include "lab/compile/nvrtc.h"
#include "lab/cuda/backend.h"
#include "lab/ptx/parser.h"
#include "lab/sim/device.h"
#include "lab/sim/launch_progress.h"
#include "lab/sim/run.h"

namespace lab::cli {
namespace {

struct SimArgs {
  std::string file, kernel, grid = "1", block = "1", gpu = "H100", dump_dir, backend = "sim";
  std::vector<std::string> args, defines;
  uint32_t smem = 0;
  bool json = false, check = false, sample = false;
  std::string timing = "sampled";
  uint32_t slice_sms = 0;
  uint64_t max_steps = 0;
  unsigned threads = 0;
  double time_limit = 0;
};

// What --check looks for, and what it does not: the same list as README
// "Kernel checks", beside compute-sanitizer's tools.
constexpr const char* kDetectors = R"(Kernel checks (--check), beside compute-sanitizer's tools:
  out-of-bounds       (memcheck) global accesses outside every buffer and into the gaps between them (exact
                      bounds), or into a buffer cudaFree gave back (gpulab run --check); shared accesses
                      outside the block's window, local accesses outside the frame; also an index into one
                      __shared__ array or __device__ variable that lands in another (memcheck cannot see
                      this). Not: a pointer into one buffer that runs into the next one without a gap
                      (buffers are 256-byte aligned with guard gaps, so only gaps are caught).
  misaligned          (memcheck) an address not a multiple of the access size. Always on.
  race                (racecheck) accesses of different warps that nothing orders (read-after-write,
                      write-after-read, write-after-write). What orders them: a barrier both pass
                      (__syncthreads(); a named barrier with a thread count orders only its threads), an
                      mbarrier handoff, a lock's release and acquire (a fence then an atomic, an atomic then
                      a fence, .release/.acquire). Lanes of one warp that read what another lane wrote
                      (atomically or not), or overwrite what it read, with no __syncwarp() (Volta's
                      independent thread scheduling); a cp.async destination used before its wait_group;
                      lanes storing different values to one address in one instruction. Global memory
                      (racecheck has no such check): plain loads and stores of different blocks, or of
                      unordered warps of a block, to the same word; the report names both threads and
                      lines. Not checked: atomics (never race with each other), a strong access beside an
                      atomic/.acquire/.release one (flag spins, cooperative-groups tile barriers), storing
                      the value already there, kernels with __threadfence() (across blocks), and global
                      accesses between lanes of one warp.
  barrier-divergence  (synccheck) threads that skip a __syncthreads() and run on past it while others wait
                      there (both lines named); warps of a block waiting at different __syncthreads() calls;
                      lanes of one warp at different barriers; a barrier that can never complete. Not a
                      finding: threads that exit before a barrier, whole warps or some lanes of one (PTX
                      ISA: bar.sync waits only for threads that have not exited).
  invalid-mask        (synccheck) shfl/vote/match/redux/__syncwarp whose member mask names exited or absent
                      lanes, or does not match the lanes executing it.
  uninitialized-read  (initcheck) shared memory nothing in the block wrote; bytes of a buffer created with
                      =uninit that no thread wrote. Not: registers or local memory.
  hang                (no compute-sanitizer tool: a GPU just hangs) a warp that issues more than --max-steps
                      instructions (default 1e7), or a launch running past --time-limit seconds; the report
                      names the loop's lines. Always on.
Exit status: 0 clean, 1 a finding or fault, 2 usage/compile/argument errors, 130 stopped by Ctrl-C.)";

// The per-warp instruction budget when --max-steps is not given: about 2-3 s
// of one spinning warp on this interpreter, 30x the longest warp of the GEMM
// progression at 4096^3.
constexpr uint64_t kDefaultMaxSteps = 10'000'000;

// Ctrl-C during a launch: the first one stops the launch cleanly (blocks
// already handed out finish their quantum), the second one kills.
std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);
}

sim::Dim3 parse_dim(const std::string& text, const char* what) {
  sim::Dim3 d;
  uint64_t v[3] = {1, 1, 1};
  size_t start = 0;
  int n = 0;
  while (n < 3) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    char* end = nullptr;
    unsigned long long x = std::strtoull(part.c_str(), &end, 10);
    if (part.empty() || *end || x == 0 || x > 0xffffffffull)
      throw sim::RunError(fmt::format("--{} '{}': expected X[,Y[,Z]] with positive integers", what, text));
    v[n++] = x;
    if (comma == std::string::npos) break;
    start = comma + 1;
    if (n == 3) throw sim::RunError(fmt::format("--{} '{}': at most three dimensions", what, text));
  }
  d.x = uint32_t(v[0]); d.y = uint32_t(v[1]); d.z = uint32_t(v[2]);
  return d;
}

// Writes buffers[K] to DIR/argK.bin (scalars have no entry), each atomically.
void dump_buffers(const std::vector<std::vector<uint8_t>>& buffers, const std::vector<sim::ArgSpec>& specs,
                  const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw sim::RunError(fmt::format("--dump '{}': cannot create the folder ({}); give a folder you can write to", dir,
                                    ec.message()));
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!specs[i].is_buffer) continue;
    const auto& bytes = buffers[i];
    std::string path = fmt::format("{}/arg{}.bin", dir, i);
    std::string tmp = path + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary);
      out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
      if (!out) throw sim::RunError(fmt::format("--dump: cannot write '{}'", tmp));
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw sim::RunError(fmt::format("--dump: cannot write '{}' ({})", path, ec.message()));
  }
}

std::vector<std::vector<uint8_t>> read_back(const sim::RunOutcome& run) {
  std::vector<std::vector<uint8_t>> out(run.specs.size());
  for (size_t i = 0; i < run.specs.size(); ++i)
    if (run.specs[i].is_buffer) {
      out[i].resize(run.args.buffer_bytes[i]);
      run.memory->read(run.args.buffer_address[i], out[i].data(), out[i].size());
    }
  return out;
}

// The real GPU: results and a measured time; the simulator's counters are
// not collected here (use --backend sim, or `gpulab validate` to compare).
int run_on_gpu(const SimArgs& a, const sim::RunRequest& req) {
  cuda::GpuRunOutcome g = cuda::run_kernel_on_gpu(req);
  if (!a.dump_dir.empty()) {
    std::vector<sim::ArgSpec> specs;
    for (const auto& s : req.args) specs.push_back(sim::parse_arg_spec(s));
    dump_buffers(g.buffers, specs, a.dump_dir);
  }
  nlohmann::json j = {{"kernel", g.kernel}, {"backend", "cuda"}, {"gpu", g.device},
                      {"grid", {req.launch.grid.x, req.launch.grid.y, req.launch.grid.z}},
                      {"block", {req.launch.block.x, req.launch.block.y, req.launch.block.z}},
                      {"ok", true}, {"errors", nlohmann::json::array()},
                      {"metrics", {{"time_ms", g.median_ms}, {"min_ms", g.min_ms}, {"repeats", g.repeats},
                                   {"measured", true}}}};
  if (a.json) std::puts(j.dump(2).c_str());
  else
    std::printf("kernel %s  grid %ux%ux%u  block %ux%ux%u  on %s\n  MEASURED time %.4f ms (median of %d, min %.4f ms)\n",
                g.kernel.c_str(), req.launch.grid.x, req.launch.grid.y, req.launch.grid.z, req.launch.block.x,
                req.launch.block.y, req.launch.block.z, g.device.c_str(), g.median_ms, g.repeats, g.min_ms);
  return kExitOk;
}

int run_sim(const SimArgs& a) {
  sim::RunRequest req;
  req.file = a.file;
  req.kernel = a.kernel;
  req.args = a.args;
  req.gpu = &resolved_gpu(a.gpu);  // validated while parsing
  req.defines = a.defines;
  req.options.check = a.check;
  req.options.max_steps = a.max_steps ? a.max_steps : kDefaultMaxSteps;
  req.options.threads = a.threads;
  req.options.timing.sample_only = a.sample;
  req.options.timing.slice_sms = a.slice_sms;
  req.options.timing.mode = a.timing == "full" ? sim::TimingMode::Full
                            : a.timing == "off" ? sim::TimingMode::Off
                                                : sim::TimingMode::Sampled;
  req.options.time_limit_s = a.time_limit;
  req.options.cancel = &g_interrupted;
  auto fail_usage = [&](const std::string& kind, const std::string& message) {
    if (a.json) {
      nlohmann::json j = {{"kernel", a.kernel}, {"backend", "sim"}, {"gpu", a.gpu}, {"ok", false},
                          {"errors", {{{"kind", kind}, {"message", message}}}}};
      std::puts(j.dump(2).c_str());
    } else {
      std::fprintf(stderr, "gpulab sim: %s\n", message.c_str());
    }
    return kExitUsage;
  };
  try {
    req.launch.grid = parse_dim(a.grid, "grid");
    req.launch.block = parse_dim(a.block, "block");
    req.launch.dynamic_shared_bytes = a.smem;
    {
      std::error_code ec;
      if (std::filesystem::is_directory(a.file, ec))
        throw sim::RunError(fmt::format("'{}' is a folder; give the kernel's .cu or .ptx file", a.file));
      if (!a.dump_dir.empty() && std::filesystem::exists(a.dump_dir, ec) && !std::filesystem::is_directory(a.dump_dir, ec))
        throw sim::RunError(fmt::format("--dump '{}': that is a file, not a folder; give a folder (it is created if missing) "
                                        "and each buffer is written there as argK.bin",
                                        a.dump_dir));
    }
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    if (a.threads > cores)
      std::fprintf(stderr, "gpulab sim: --threads %u: this machine has %u cores and blocks are CPU work, so %u workers run\n",
                   a.threads, cores, cores);
    std::string why;
    if (a.backend == "cuda" || (a.backend == "auto" && cuda::cuda_available(&why))) {
      if (a.backend == "auto") std::fprintf(stderr, "gpulab sim: --backend auto: a GPU is present, running on it\n");
      return run_on_gpu(a, req);
    }
    if (a.backend == "auto") std::fprintf(stderr, "gpulab sim: --backend auto: no GPU (%s); simulating\n", why.c_str());
    // Counted in double: a grid at the GPU's limits has more threads than 2^64.
    const double blocks = double(req.launch.grid.x) * req.launch.grid.y * req.launch.grid.z;
    const double per_block = double(req.launch.block.count());
    const sim::GpuModel& g = *req.gpu;
    // A launch the GPU refuses is refused by the run below; no warning first.
    const bool launchable = req.launch.grid.x <= g.max_grid_dim[0] && req.launch.grid.y <= g.max_grid_dim[1] &&
                            req.launch.grid.z <= g.max_grid_dim[2] && per_block <= g.max_threads_per_block;
    sim::LaunchProgress progress;
    progress.tty = isatty(STDERR_FILENO) && !a.json;
    progress.who = "gpulab sim";
    if (launchable && blocks * per_block >= double(uint64_t(1) << 24)) {
      std::fprintf(stderr,
                   "gpulab sim: a big launch: %.0f blocks x %.0f threads = %.0f threads (%.0f warps); the simulator runs "
                   "roughly 1e7-1e8 thread instructions a second per core, so this can take long. Ctrl-C stops it.\n",
                   blocks, per_block, blocks * per_block, blocks * std::ceil(per_block / 32));
      req.options.progress = std::ref(progress);
    }
    std::signal(SIGINT, on_sigint);
    sim::RunOutcome run = sim::run_kernel(req);
    std::signal(SIGINT, SIG_DFL);
    if (run.result.cancelled) {
      std::fprintf(stderr, "\ngpulab sim: stopped by Ctrl-C after %llu of %llu blocks; the results below are partial\n",
                   (unsigned long long)run.result.metrics.blocks, (unsigned long long)req.launch.grid.count());
    }
    if (!a.dump_dir.empty()) dump_buffers(read_back(run), run.specs, a.dump_dir);
    SimReport report = build_sim_report(run, req);
    if (a.json) {
      std::puts(report.json.dump(2).c_str());
    } else {
      std::fputs(run.result.printf_output.c_str(), stdout);  // the kernel's printf, in warp order
      std::fputs(report.text.c_str(), stdout);
    }
    if (run.result.cancelled) return 130;
    return run.result.ok ? kExitOk : kExitKernelFault;
  } catch (const compile::CompileError& e) {
    return fail_usage("compile", e.what());
  } catch (const ptx::ParseError& e) {
    return fail_usage("ptx", e.what());
  } catch (const sim::ArgSpecError& e) {
    return fail_usage("argument", e.what());
  } catch (const sim::LaunchError& e) {
    return fail_usage("launch", e.what());
  } catch (const cuda::CudaError& e) {
    return fail_usage("backend", e.what());
  } catch (const std::exception& e) {
    return fail_usage("usage", e.what());
  }
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  auto a = std::make_shared<SimArgs>();
  auto* cmd = app.add_subcommand("sim", "Run a CUDA kernel (.cu or .ptx) in the simulator and report what it did");
  cmd->add_option("file", a->file, "kernel source (.cu) or PTX (.ptx)")->required();
  cmd->add_option("--kernel", a->kernel, "kernel name")->required();
  cmd->add_option("--grid", a->grid, "grid size X[,Y[,Z]]");
  cmd->add_option("--block", a->block, "block size X[,Y[,Z]]");
  cmd->add_option("--arg", a->args,
                  "one per kernel parameter, in order: i32=5 u32= i64= u64= f32=1.5 f64= | "
                  "TYPE[COUNT]=zero|iota|fill:V|rand|rand:SEED|randint:N|uninit|@PATH");
  cmd->add_option("--smem", a->smem, "dynamic shared memory per block, bytes");
  add_gpu_option(cmd, a->gpu, "GPU model");
  cmd->add_option("--backend", a->backend, "sim (default) | cuda (the real GPU) | auto (the GPU when present)")
      ->check(CLI::IsMember({"sim", "cuda", "auto"}));
  cmd->add_option("--dump", a->dump_dir, "write each buffer argument after the launch to DIR/argK.bin");
  cmd->add_option("-D,--define", a->defines, "preprocessor definition for the kernel source, NAME=VALUE");
  cmd->add_flag("--json", a->json, "print one JSON object");
  cmd->add_flag("--check", a->check, "kernel checks: out-of-bounds, races, barrier divergence, ...");
  cmd->add_option("--max-steps", a->max_steps,
                  "instructions a warp may issue before it is reported as a hang (default 1e7, a few seconds)");
  cmd->add_option("--time-limit", a->time_limit, "seconds the launch may run before it is reported as a hang (default: none)")
      ->check(CLI::Validator(
          [](std::string& v) {
            // A number of seconds above zero: refuses -1, 0, nan and inf (CLI::PositiveNumber lets nan by).
            char* end = nullptr;
            const double d = std::strtod(v.c_str(), &end);
            return end && *end == 0 && std::isfinite(d) && d > 0 ? std::string()
                                                                 : "--time-limit takes seconds above zero, e.g. 5";
          },
          "SECONDS"));
  cmd->add_option("--threads", a->threads, "worker threads (default and most: all cores)");
  cmd->add_option("--timing", a->timing,
                  "cycle model: sampled (default: a slice of SMs and waves, scaled), full (every block, slow), off")
      ->check(CLI::IsMember({"sampled", "full", "off"}));
  cmd->add_flag("--sample", a->sample,
                "run ONLY the blocks the cycle model times (fast prediction; outputs and metrics are incomplete)");
  cmd->add_option("--slice-sms", a->slice_sms, "SMs in the sampled slice (default 8)")->check(CLI::PositiveNumber);
  cmd->footer(kDetectors);
  cmd->callback([a, &rc] { rc = run_sim(*a); });
});

}  // namespace
}  // namespace lab::cli
