// lab/sim/run.h: one kernel file, end to end: compile (or read PTX), parse,
// find the kernel, build arguments from specs, launch in the simulator.
// `gpulab sim`, `gpulab view FILE.cu` and the lesson runner all go through
// here, so a kernel behaves the same wherever it is run.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/ptx/module.h"
#include "lab/sim/arg_spec.h"
#include "lab/sim/launch.h"

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
  std::string gpu = "H100";
  std::vector<std::string> defines;  // -D for NVRTC
  SimOptions options;
};

struct RunOutcome {
  std::string ptx;
  ptx::Module module;
  size_t kernel_index = 0;
  std::vector<ArgSpec> specs;
  PreparedArgs args;
  std::unique_ptr<GlobalMemory> memory;
  LaunchResult result;
  const ptx::Kernel& kernel() const { return module.kernels[kernel_index]; }
};

// Throws RunError, compile::CompileError, ptx::ParseError or ArgSpecError for
// problems with the request; a fault inside the kernel is in result.errors.
RunOutcome run_kernel(const RunRequest& request);

// Steps of run_kernel, for callers that launch more than once.
std::string load_ptx(const std::string& file, const std::string& gpu, const std::vector<std::string>& defines);
// Finds `name` in the module: exactly, or as a C++-mangled name (_Z<len><name>...).
// Throws RunError listing the kernels the file does have.
size_t resolve_kernel(const ptx::Module& module, const std::string& name, const std::string& file);
// Checks a launch against the GPU model's limits (block size, dimensions,
// shared memory). Throws RunError naming the limit and the GPU.
void check_launch_limits(const ptx::Kernel& kernel, const LaunchConfig& cfg, const std::string& gpu);
// Registers per thread ptxas allocates for `kernel` on the GPU model's
// architecture (the cycle model's occupancy); 0 when ptxas cannot tell.
int ptxas_registers(const std::string& ptx, const std::string& gpu, const std::string& kernel);

}  // namespace lab::sim
