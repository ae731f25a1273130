// gpulab sim: run any kernel file in the simulator (the bring-your-own-kernel
// command). Its options, JSON fields and exit codes are a contract; see
// README "Run your own kernel".
#include <cstdio>
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
#include "lab/sim/run.h"

namespace lab::cli {
namespace {

struct SimArgs {
  std::string file, kernel, grid = "1", block = "1", gpu = "H100", dump_dir, backend = "sim";
  std::vector<std::string> args, defines;
  uint32_t smem = 0;
  bool json = false, check = false;
  uint64_t max_steps = 0;
  unsigned threads = 0;
};

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
  std::filesystem::create_directories(dir);
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
    std::filesystem::rename(tmp, path);
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
  req.options.max_steps = a.max_steps;
  req.options.threads = a.threads;
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
    std::string why;
    if (a.backend == "cuda" || (a.backend == "auto" && cuda::cuda_available(&why))) {
      if (a.backend == "auto") std::fprintf(stderr, "gpulab sim: --backend auto: a GPU is present, running on it\n");
      return run_on_gpu(a, req);
    }
    if (a.backend == "auto") std::fprintf(stderr, "gpulab sim: --backend auto: no GPU (%s); simulating\n", why.c_str());
    sim::RunOutcome run = sim::run_kernel(req);
    if (!a.dump_dir.empty()) dump_buffers(read_back(run), run.specs, a.dump_dir);
    SimReport report = build_sim_report(run, req);
    if (a.json) {
      std::puts(report.json.dump(2).c_str());
    } else {
      std::fputs(run.result.printf_output.c_str(), stdout);  // the kernel's printf, in warp order
      std::fputs(report.text.c_str(), stdout);
    }
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
                  "TYPE[COUNT]=zero|iota|fill:V|rand|rand:SEED|uninit|@PATH");
  cmd->add_option("--smem", a->smem, "dynamic shared memory per block, bytes");
  add_gpu_option(cmd, a->gpu, "GPU model");
  cmd->add_option("--backend", a->backend, "sim (default) | cuda (the real GPU) | auto (the GPU when present)")
      ->check(CLI::IsMember({"sim", "cuda", "auto"}));
  cmd->add_option("--dump", a->dump_dir, "write each buffer argument after the launch to DIR/argK.bin");
  cmd->add_option("-D,--define", a->defines, "preprocessor definition for the kernel source, NAME=VALUE");
  cmd->add_flag("--json", a->json, "print one JSON object");
  cmd->add_flag("--check", a->check, "kernel checks: out-of-bounds, races, barrier divergence, ...");
  cmd->add_option("--max-steps", a->max_steps, "instructions a thread may execute before it is reported as a hang");
  cmd->add_option("--threads", a->threads, "worker threads (default: all cores)");
  cmd->callback([a, &rc] { rc = run_sim(*a); });
});

}  // namespace
}  // namespace lab::cli
