// lab/sim/run.h: one kernel file, end to end, on the one run path
// (compiled.h): compile, build arguments from specs, launch in the simulator.
// `gpulab sim`, `gpulab view FILE.cu` and the lesson runner all go through
// here, so a kernel behaves the same wherever it is run.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/ptx/module.h"
#include "lab/sim/arg_spec.h"
#include "lab/sim/compiled.h"
#include "lab/sim/device.h"
#include "lab/sim/launch.h"
#include "lab/sim/limits.h"

namespace lab::sim {

// A problem with the request itself (bad kernel name, limits exceeded, ...):
// the CLI answers it with exit code 2. Compile, parse and argument errors
// arrive as their own exception types, also exit code 2.
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunRequest {
  std::string file;                  // .cu (compiled with NVRTC) or .ptx
  std::string kernel;                // name as written in the source
  LaunchConfig launch;
  std::vector<std::string> args;     // --arg specs, in parameter order
  const GpuModel* gpu = &default_gpu();  // resolved once, by the caller (CLI --gpu)
  std::vector<std::string> defines;  // -D for NVRTC
  SimOptions options;
};

// One run of a compiled kernel on arguments made from specs.
struct RunOutcome {
  CompiledKernel compiled;
  std::vector<ArgSpec> specs;
  PreparedArgs args;
  std::unique_ptr<GlobalMemory> memory;
  LaunchResult result;
  const ptx::Kernel& kernel() const { return compiled.kernel(); }
};

// Throws RunError, compile::CompileError, ptx::ParseError or ArgSpecError for
// problems with the request; a fault inside the kernel is in result.errors.
RunOutcome run_kernel(const RunRequest& request);

// Steps of compile_kernel (compiled.h).
std::string load_ptx(const std::string& file, const GpuModel& gpu, const std::vector<std::string>& defines);
// Finds `name` in the module: exactly, or as a C++-mangled name (_Z<len><name>...).
// Throws RunError listing the kernels the file does have.
size_t resolve_kernel(const ptx::Module& module, const std::string& name, const std::string& file);

}  // namespace lab::sim
