// lab/gemm/gemm_sim.h: one GPU GEMM version run in the simulator on a
// GemmProblem: compile (NVRTC), parse, place A, B, C in simulated global
// memory (C poisoned with NaN when beta == 0), launch with the manifest's
// geometry, read C back.
#pragma once

#include <string>
#include <vector>

#include "lab/gemm/gemm_problem.h"
#include "lab/gemm/gemm_registry.h"
#include "lab/ptx/module.h"
#include "lab/sim/compiled.h"
#include "lab/sim/global_memory.h"
#include "lab/sim/tensor_map.h"

#include <array>

namespace lab::gemm {

struct SimGemmRun {
  sim::CompiledKernel compiled;
  sim::LaunchConfig launch;
  sim::LaunchResult result;
  std::vector<float> C;
  // Set when the simulator (parser or interpreter) does not implement an
  // instruction the kernel uses yet: the run says nothing about the kernel.
  bool unsupported = false;
  std::string unsupported_reason;
  const ptx::Kernel& kernel() const { return compiled.kernel(); }
};

// Throws for problems with the request (compile errors, launch limits).
// The model is options.gpu (nullptr: the default), resolved by the caller.
SimGemmRun simulate_gemm(const GemmVersion& v, GemmProblem& problem, const sim::SimOptions& options);

// The param buffer for (M, N, K, alpha, A, B, beta, C) laid out by `kernel`'s
// param offsets. Asserts the kernel has that signature.
// A, B (fp32 or fp16 as the version takes them) and C (poisoned) placed in
// simulated memory, and the version's parameters for them: the 8 of every
// version, then for a TMA version the tensor maps of A and B the lab encodes.
struct GemmBuffers {
  uint64_t a = 0, b = 0, c = 0;
  uint64_t elem = 4;  // bytes per element of A and B
};
GemmBuffers place_gemm_operands(const GemmVersion& v, const GemmProblem& p, sim::GlobalMemory& mem);
std::vector<uint8_t> gemm_params(const GemmVersion& v, const ptx::Kernel& kernel, const GemmProblem& p,
                                 const GemmBuffers& buffers);

// TMA versions take the tensor maps of A and B after those (`maps`).
using TensorMapBytes = std::array<uint8_t, sim::kTensorMapBytes>;
std::vector<uint8_t> pack_gemm_params(const ptx::Kernel& kernel, int M, int N, int K, float alpha, uint64_t A,
                                      uint64_t B, float beta, uint64_t C, const std::vector<TensorMapBytes>& maps = {});

}  // namespace lab::gemm
