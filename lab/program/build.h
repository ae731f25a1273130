// lab/program/build.h: builds an ordinary CUDA program for `gpulab run`.
//
// nvcc compiles the host code and embeds each kernel's PTX (uncompressed,
// for the GPU model's virtual architecture) in the fat binary; the program
// is linked against the lab's libgpulab_cudart.so instead of NVIDIA's
// runtime (docs/run.md says why), and against libgpulab_cublas.so, the lab's
// cuBLAS stand-in, when it calls cuBLAS. Each source is compiled to an object of
// its own, cached by its content and the headers it includes with "...",
// then the objects are linked: an edit recompiles the edited file alone.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace lab::program {

struct ProgramBuild {
  std::vector<std::string> sources;   // .cu / .cpp files
  std::string ptx_arch;               // "compute_90"
  bool for_real_gpu = false;          // --backend cuda: NVIDIA's runtime, no lab library
  std::vector<std::string> defines;   // -D
  std::vector<std::string> include_dirs;  // -I, searched for "..." headers too (cache keys)
  std::vector<std::string> libraries; // -l: cublas / cublasLt map to the lab's cuBLAS stand-in (build.cpp)
  std::vector<std::string> host_flags;    // -Xcompiler, nvcc passes them to the host compiler
};

// A build that failed because of the program: `message` is what to show
// (nvcc's own output, or the runtime calls the lab does not serve).
struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Returns the path of the executable (reused when nothing changed). Throws
// BuildError for the program's errors and std::runtime_error for the lab's.
std::string build_program(const ProgramBuild& build);

// The directory of the running gpulab binary (libgpulab_cudart.so is there).
std::string gpulab_dir();

}  // namespace lab::program
