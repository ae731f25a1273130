// tests/sim_harness.h: compile CUDA (NVRTC) or take PTX text, parse it and
// launch it in the simulator, for the exec and whole-kernel tests.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "lab/compile/nvrtc.h"
#include "lab/ptx/parser.h"
#include "lab/sim/compiled.h"

namespace simtest {

using namespace lab;

struct Program {
  sim::CompiledKernel compiled;  // the run path's value (lab/sim/compiled.h)
  sim::GlobalMemory memory;
  std::vector<uint8_t> params;
  const ptx::Kernel* kernel = nullptr;  // into compiled's module, which moves keep in place
  bool cooperative = false;             // run() launches as cudaLaunchCooperativeKernel

  static Program from_cuda(const std::string& source, const std::string& kernel_name,
                           const std::string& arch = "compute_80") {
    compile::CompileOptions opt;
    opt.arch = arch;
    std::string text = compile::compile_to_ptx(source, "test.cu", opt);
    const sim::GpuModel* gpu = &sim::default_gpu();
    for (const auto& g : sim::all_gpu_models())
      if (g.ptx_target == arch) gpu = &g;
    return from_ptx(text, kernel_name, *gpu);
  }
  // The kernel whose name contains `kernel_name` (tests name kernels loosely).
  static Program from_ptx(const std::string& text, const std::string& kernel_name,
                          const sim::GpuModel& gpu = sim::default_gpu()) {
    Program p;
    ptx::Module module = ptx::parse(text, "test.ptx");
    size_t index = module.kernels.size();
    for (size_t i = 0; i < module.kernels.size(); ++i)
      if (module.kernels[i].name == kernel_name || module.kernels[i].name.find(kernel_name) != std::string::npos)
        index = i;
    const bool found = index < module.kernels.size();
    p.compiled = sim::make_compiled("test.ptx", text, std::move(module), found ? index : 0, gpu);
    if (found) p.kernel = &p.compiled.kernel();
    return p;
  }

  template <class T>
  uint64_t buffer(const std::vector<T>& host, const std::string& name = "buf") {
    uint64_t a = memory.allocate(host.size() * sizeof(T), name);
    if (!host.empty()) memory.write(a, host.data(), host.size() * sizeof(T));
    return a;
  }
  template <class T>
  std::vector<T> read(uint64_t addr, size_t n) const {
    std::vector<T> out(n);
    memory.read(addr, out.data(), n * sizeof(T));
    return out;
  }
  // Appends one parameter at the next offset the kernel declares.
  template <class T>
  void arg(T v) {
    size_t idx = arg_count_++;
    uint32_t off = kernel && idx < kernel->params.size() ? kernel->params[idx].offset : uint32_t(params.size());
    if (params.size() < off + sizeof(T)) params.resize(off + sizeof(T));
    std::memcpy(params.data() + off, &v, sizeof(T));
  }
  sim::LaunchResult run(sim::Dim3 grid, sim::Dim3 block, uint32_t dyn_smem = 0, sim::SimOptions opt = {}) {
    sim::LaunchConfig cfg{grid, block, dyn_smem, cooperative};
    if (kernel && params.size() < kernel->param_bytes) params.resize(kernel->param_bytes);
    if (opt.threads == 0) opt.threads = 2;
    // The interpreter directly: ptxas's register count is not asked for
    // (limits.h checks shape and shared memory), which keeps the tests fast.
    return sim::launch(compiled.module(), *kernel, cfg, params, memory, opt);
  }

 private:
  size_t arg_count_ = 0;
};

}  // namespace simtest
