// lab/sim/limits.h: the one place a launch is held against what the GPU
// model allows, as the CUDA runtime refuses a launch before it starts:
// block shape and grid size (cudaErrorInvalidConfiguration), __launch_bounds__
// (.maxntid/.reqntid), shared memory per block, and registers per block
// (cudaErrorLaunchOutOfResources, "too many resources requested for launch").
// launch() calls it; callers that want the answer before they build
// arguments (lesson checks, `gpulab run`) may call it themselves.
#pragma once

#include "lab/compile/nvrtc.h"
#include "lab/ptx/module.h"
#include "lab/sim/launch.h"

namespace lab::sim {

// Throws LaunchError naming the kernel, the launch, the GPU model, the limit
// and the numbers. `resources` is ptxas's report for the kernel on `gpu`
// (compiled.h); without it the register limit cannot be checked and is not.
void check_launch_limits(const ptx::Kernel& kernel, const LaunchConfig& cfg, const GpuModel& gpu,
                         const compile::ResourceUsage* resources = nullptr);

}  // namespace lab::sim
