// lab/runtime/lab_kernels.cpp: kernels the lab launches on the program's
// behalf (libgpulab_cublas, lab/cublas), on the same context and the same
// launch path as the program's own kernels.
//
// Why through the context and not a simulator of their own: a cuBLAS call is
// kernel launches on a GPU, so its time belongs on the device's timeline
// (cudaEventElapsedTime around a cublasSgemm must include it), its launches
// belong in --report/--json, --check must see its reads and writes (the
// stream-order check too), and a fault inside it must become the program's
// sticky error. All of that is what Context::launch_entry already does.
//
// The kernels are CUDA C++ files of the lab compiled with NVRTC for the
// simulated GPU's virtual architecture (the same compile `gpulab sim` runs,
// cached on disk by lab/compile), each (file, defines) once per process.
#include <cstdio>

#include <fmt/format.h>

#include "lab/compile/nvrtc.h"
#include "lab/ptx/parser.h"
#include "lab/runtime/context.h"

namespace lab::runtime {

cudaError_t Context::compile_lab_module(const std::string& cuda_path, const std::vector<std::string>& defines,
                                        size_t* module) {
  std::string key = cuda_path;
  for (const auto& d : defines) key += " -D" + d;
  {
    std::lock_guard lock(mutex_);
    if (auto it = lab_modules_.find(key); it != lab_modules_.end()) {
      *module = it->second;
      return cudaSuccess;
    }
  }
  std::string ptx;
  try {
    compile::CompileOptions o;
    o.arch = std::string(gpu_->ptx_target);
    o.defines = defines;
    ptx = compile::compile_file_to_ptx(cuda_path, o);
  } catch (const std::exception& e) {
    // The lab's own source failed to compile: a bug of the lab, or a lab
    // folder that is not the one this library was built from.
    std::fprintf(stderr, "gpulab: cannot compile the lab's kernel file %s (%s): %s\n", cuda_path.c_str(), key.c_str(),
                 e.what());
    return result(cudaErrorInvalidSource);
  }
  if (cudaError_t e = load_lab_ptx(std::move(ptx), key, module)) return e;
  std::lock_guard lock(mutex_);
  lab_modules_[key] = *module;
  return cudaSuccess;
}

cudaError_t Context::load_lab_ptx(std::string ptx, const std::string& name, size_t* module) {
  auto m = std::make_unique<ModuleEntry>();
  try {
    m->module = ptx::parse(ptx, name);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpulab: cannot parse the lab's PTX for %s: %s\n", name.c_str(), e.what());
    return result(cudaErrorInvalidPtx);
  }
  m->ptx = std::move(ptx);
  m->loaded = true;  // no fat binary behind it: load_module finds it ready
  std::lock_guard lock(mutex_);
  modules_.push_back(std::move(m));
  *module = modules_.size() - 1;
  return cudaSuccess;
}

cudaError_t Context::launch_lab_kernel(size_t module, const std::string& kernel_name, const std::string& report_name,
                                       dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  if (sticky_) return result(sticky_);
  flush_printf();
  if (!valid_stream(stream)) return result(cudaErrorInvalidResourceHandle);
  if (module >= modules_.size() || !modules_[module]->loaded) return result(cudaErrorInvalidResourceHandle);
  ModuleEntry& m = *modules_[module];
  const ptx::Kernel* kernel = m.module.find_kernel(kernel_name);
  if (!kernel) {
    std::fprintf(stderr, "gpulab: the lab's kernel '%s' is not in its module (%s)\n", kernel_name.c_str(),
                 report_name.c_str());
    return result(cudaErrorInvalidDeviceFunction);
  }
  KernelEntry& k = lab_kernels_[{module, kernel_name}];
  if (!k.compiled) {
    k.module = module;
    k.device_name = kernel_name;
    k.max_dynamic_shared = gpu_->shared_per_block_optin;  // the lab's launches size their own shared memory
    k.compiled = sim::make_compiled(report_name, m.ptx, m.module, size_t(kernel - m.module.kernels.data()), *gpu_);
  }
  return launch_entry(k, &k.compiled->kernel(), report_name, grid, block, args, shared, stream);
}

}  // namespace lab::runtime
