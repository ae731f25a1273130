// lab/runtime/gpulab_api.h: the lab's own entry points in libgpulab_cudart.so,
// for the libraries the lab stands in for (libgpulab_cublas, lab/cublas).
//
// A plain C ABI with a gpulab_ prefix (exports.map exports gpulab_* beside
// cuda*): the stand-in libraries link to the one runtime library the program
// uses and share its context (memory, streams, the model clock, the launch
// report), without linking the simulator a second time.
#pragma once

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

// Compiles the CUDA C++ file `path` with NVRTC for the simulated GPU's
// virtual architecture, with -D`defines[i]`, and registers its PTX as a
// module of the context; *module names it to gpulab_launch_lab_kernel.
// Compiled once per (path, defines) per process (and cached on disk).
// cudaErrorInvalidSource when it does not compile (said on stderr).
cudaError_t gpulab_compile_lab_module(const char* path, const char* const* defines, int define_count, int* module);

// Launches the extern "C" kernel `kernel` of `module` as the program's own
// launches are launched (cycle model, --report/--json, --check, sticky
// faults), named `report_name` in the reports. `args` as for cudaLaunchKernel.
cudaError_t gpulab_launch_lab_kernel(int module, const char* kernel, const char* report_name, dim3 grid, dim3 block,
                                     void** args, size_t shared, cudaStream_t stream);

// The simulated GPU's compute capability as a number (90 for sm_90): which of
// the lab's kernels the model can run (tensor-core instructions need 70 / 80).
int gpulab_compute_capability(void);

#ifdef __cplusplus
}
#endif
