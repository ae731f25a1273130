// lab/sim/compiled.cpp: compile once, ask ptxas once, launch within limits.
#include "lab/sim/compiled.h"

#include <filesystem>
#include <mutex>
#include <optional>

#include "lab/ptx/parser.h"
#include "lab/sim/limits.h"
#include "lab/sim/run.h"

namespace lab::sim {

struct ResourceCache {
  std::once_flag once;
  std::optional<compile::ResourceUsage> usage;
  std::string error;
};

const compile::ResourceUsage* CompiledKernel::resources() const {
  if (!resource_cache || !module_ptr) return nullptr;
  ResourceCache& c = *resource_cache;
  std::call_once(c.once, [&] {
    try {
      for (const auto& u : compile::resource_usage(ptx, std::string(gpu->sm_arch)))
        if (u.kernel == kernel().name) c.usage = u;
      if (!c.usage) c.error = "ptxas reported nothing for kernel '" + kernel().name + "'";
    } catch (const std::exception& e) {
      // e.g. sm_90 PTX for a T4: the report falls back to the PTX's
      // declared shared memory and says so.
      c.error = e.what();
    }
  });
  return c.usage ? &*c.usage : nullptr;
}

std::string CompiledKernel::resources_error() const {
  resources();
  return resource_cache ? resource_cache->error : std::string("not compiled");
}

CompiledKernel make_compiled(std::string file, std::string ptx, ptx::Module module, size_t kernel_index,
                             const GpuModel& gpu) {
  CompiledKernel k;
  k.file = std::move(file);
  k.ptx = std::move(ptx);
  k.module_ptr = std::make_shared<const ptx::Module>(std::move(module));
  k.kernel_index = kernel_index;
  k.gpu = &gpu;
  k.resource_cache = std::make_shared<ResourceCache>();
  return k;
}

CompiledKernel compile_kernel(const KernelSource& src, const GpuModel& gpu) {
  std::string ptx_text;
  if (src.text.empty()) {
    ptx_text = load_ptx(src.file, gpu, src.defines);
  } else if (std::filesystem::path(src.file).extension() == ".ptx") {
    ptx_text = src.text;
  } else {
    compile::CompileOptions opts;
    opts.arch = std::string(gpu.ptx_target);
    opts.defines = src.defines;
    ptx_text = compile::compile_to_ptx(src.text, src.file, opts);
  }
  ptx::Module module = ptx::parse(ptx_text, src.file);
  size_t index = resolve_kernel(module, src.kernel, src.file);
  return make_compiled(src.file, std::move(ptx_text), std::move(module), index, gpu);
}

LaunchResult launch(const CompiledKernel& k, const LaunchConfig& cfg, const std::vector<uint8_t>& params,
                    GlobalMemory& memory, const SimOptions& options) {
  check_launch_limits(k.kernel(), cfg, *k.gpu, k.resources());
  SimOptions o = options;
  o.gpu = k.gpu;
  return launch(k.module(), k.kernel(), cfg, params, memory, o);
}

}  // namespace lab::sim
