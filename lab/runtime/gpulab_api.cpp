// lab/runtime/gpulab_api.cpp: gpulab_api.h's C entry points, thin wrappers
// over lab::runtime::Context (lab_kernels.cpp does the work).
#include "lab/runtime/gpulab_api.h"

#include <string>
#include <vector>

#include "lab/runtime/context.h"

using lab::runtime::Context;

extern "C" {

cudaError_t gpulab_compile_lab_module(const char* path, const char* const* defines, int define_count, int* module) {
  if (!path || !module || define_count < 0) return Context::get().result(cudaErrorInvalidValue);
  std::vector<std::string> d;
  for (int i = 0; i < define_count; ++i) d.emplace_back(defines[i]);
  size_t index = 0;
  cudaError_t e = Context::get().compile_lab_module(path, d, &index);
  if (e == cudaSuccess) *module = int(index);
  return e;
}

cudaError_t gpulab_launch_lab_kernel(int module, const char* kernel, const char* report_name, dim3 grid, dim3 block,
                                     void** args, size_t shared, cudaStream_t stream) {
  if (module < 0 || !kernel) return Context::get().result(cudaErrorInvalidValue);
  return Context::get().launch_lab_kernel(size_t(module), kernel, report_name ? report_name : kernel, grid, block,
                                          args, shared, stream);
}

int gpulab_compute_capability(void) {
  const auto& g = Context::get().gpu();
  return g.cc_major * 10 + g.cc_minor;
}

}  // extern "C"
