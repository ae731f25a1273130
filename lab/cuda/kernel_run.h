// lab/cuda/kernel_run.h: `gpulab sim --backend cuda`: one kernel file on the
// real GPU with the same --arg specs as the simulator. The inputs are made by
// the same code (sim::prepare_args), so both backends see identical data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lab/sim/run.h"

namespace lab::cuda {

struct GpuRunOutcome {
  std::string device;                        // the GPU's name
  std::string kernel;                        // name as found in the PTX
  double median_ms = 0, min_ms = 0;          // measured with events, L2 flushed
  int repeats = 0;
  std::vector<std::vector<uint8_t>> buffers; // per --arg: contents after the launch (empty for scalars)
};

// Throws lab::cuda::CudaError when no GPU can be used (with the reason), and
// the same request errors as sim::run_kernel.
GpuRunOutcome run_kernel_on_gpu(const sim::RunRequest& request);

}  // namespace lab::cuda
