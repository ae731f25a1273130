// lab/sim/compiled.h: the one run path below every client.
//
//   compile_kernel(source, gpu)          -> CompiledKernel (PTX, module, kernel, ptxas resources)
//   launch(compiled, cfg, params, mem)   -> LaunchResult   (limits checked with the model's numbers)
//   build_report(compiled, cfg, metrics) -> KernelReport   (report.h)
//
// `gpulab sim`, `check`, `bench`, `validate`, `view` and the tests hold a
// CompiledKernel; nobody sends the PTX back down to ptxas on their own. The
// GPU model is resolved once by the caller (the CLI's --gpu, a lesson) and
// travels with the value.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lab/compile/nvrtc.h"
#include "lab/ptx/module.h"
#include "lab/sim/device.h"
#include "lab/sim/launch.h"

namespace lab::sim {

struct KernelSource {
  std::string file;                  // .cu (NVRTC) or .ptx (as it is); names the source in messages
  std::string kernel;                // as written in the source; C++-mangled names are found too
  std::vector<std::string> defines;  // -D for NVRTC
  // When set, the source itself (CUDA C++, or PTX when `file` ends in .ptx)
  // and `file` is only its name: tests and views compile text they hold.
  std::string text;
};

struct ResourceCache;  // compiled.cpp: ptxas's answer, computed on first use

// One compiled kernel for one GPU model. Copies share the module and the
// resources (both immutable once made), so pointers into module() stay valid.
struct CompiledKernel {
  std::string file;
  std::string ptx;
  std::shared_ptr<const ptx::Module> module_ptr;
  size_t kernel_index = 0;
  const GpuModel* gpu = &default_gpu();
  std::shared_ptr<ResourceCache> resource_cache;

  const ptx::Module& module() const { return *module_ptr; }
  const ptx::Kernel& kernel() const { return module_ptr->kernels[kernel_index]; }
  // ptxas's report for kernel() on gpu->sm_arch (registers, static shared
  // memory, spills), run once on first use; nullptr when ptxas cannot
  // assemble this PTX for the model (resources_error() says why).
  const compile::ResourceUsage* resources() const;
  std::string resources_error() const;
};

// Compiles (NVRTC, for gpu.ptx_target) or reads the PTX, parses it and finds
// the kernel. Throws RunError (missing file, no such kernel: run.h),
// compile::CompileError or ptx::ParseError.
CompiledKernel compile_kernel(const KernelSource& source, const GpuModel& gpu);

// A CompiledKernel from PTX already parsed (tests that pick a kernel
// themselves; `gpulab run` taking PTX from a fat binary).
CompiledKernel make_compiled(std::string file, std::string ptx, ptx::Module module, size_t kernel_index,
                             const GpuModel& gpu);

// Launches `k` as the GPU model would: the launch limits (limits.h, with
// ptxas's register count) first, then launch() in launch.h. options.gpu is
// ignored: the model is the one `k` was compiled for.
LaunchResult launch(const CompiledKernel& k, const LaunchConfig& cfg, const std::vector<uint8_t>& params,
                    GlobalMemory& memory, const SimOptions& options = {});

}  // namespace lab::sim
