// lab/cuda/kernel_run.cpp: one kernel file on the real GPU, inputs made as the simulator makes them.
#include "lab/cuda/kernel_run.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "lab/compile/nvrtc.h"
#include "lab/cuda/backend.h"
#include "lab/ptx/parser.h"

namespace lab::cuda {

GpuRunOutcome run_kernel_on_gpu(const sim::RunRequest& req) {
  Gpu gpu;  // throws CudaError with the reason when there is none
  GpuRunOutcome out;
  out.device = gpu.name();

  // The PTX for the GPU that is here (Gpu::ptx_target), or the given .ptx as it is.
  std::string ptx_text;
  if (std::filesystem::path(req.file).extension() == ".ptx") {
    std::ifstream in(req.file, std::ios::binary);
    if (!in) throw sim::RunError(fmt::format("{}: cannot open file", req.file));
    std::stringstream ss;
    ss << in.rdbuf();
    ptx_text = ss.str();
  } else {
    compile::CompileOptions co;
    co.arch = gpu.ptx_target();
    co.defines = req.defines;
    ptx_text = compile::compile_file_to_ptx(req.file, co);
  }
  ptx::Module module = ptx::parse(ptx_text, req.file);
  const ptx::Kernel& k = module.kernels[sim::resolve_kernel(module, req.kernel, req.file)];
  out.kernel = k.name;

  // Inputs exactly as the simulator would make them.
  std::vector<sim::ArgSpec> specs;
  for (const auto& a : req.args) specs.push_back(sim::parse_arg_spec(a));
  sim::GlobalMemory staging;
  sim::PreparedArgs prepared = sim::prepare_args(k, specs, staging);

  std::vector<uint64_t> device_ptr(specs.size(), 0);
  std::vector<void*> args(specs.size(), nullptr);
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].is_buffer) {
      uint64_t bytes = prepared.buffer_bytes[i];
      device_ptr[i] = gpu.alloc(bytes);
      gpu.upload(device_ptr[i], staging.host(prepared.buffer_address[i], bytes), bytes);
      args[i] = &device_ptr[i];
    } else {
      args[i] = prepared.params.data() + k.params[i].offset;  // the scalar's bytes, as packed
    }
  }
  void* fn = gpu.load_kernel(ptx_text, k.name);
  const uint32_t grid[3] = {req.launch.grid.x, req.launch.grid.y, req.launch.grid.z};
  const uint32_t block[3] = {req.launch.block.x, req.launch.block.y, req.launch.block.z};
  auto launch = [&] { gpu.launch(fn, grid, block, req.launch.dynamic_shared_bytes, args); };

  // One launch for the results the user reads back, then the timed ones
  // (kernels that accumulate into their outputs change them further).
  launch();
  gpu.synchronize();
  out.buffers.resize(specs.size());
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].is_buffer) {
      out.buffers[i].resize(prepared.buffer_bytes[i]);
      gpu.download(out.buffers[i].data(), device_ptr[i], prepared.buffer_bytes[i]);
    }
  GpuTiming t = gpu.time(launch);
  out.median_ms = t.median_ms;
  out.min_ms = t.min_ms;
  out.repeats = t.repeats;
  for (uint64_t p : device_ptr)
    if (p) gpu.free(p);
  return out;
}

}  // namespace lab::cuda
