// lab/compile/nvrtc.h: CUDA C++ source -> PTX with NVRTC, and PTX -> the
// per-kernel resource usage ptxas reports (through nvJitLink). Neither needs
// a GPU or a driver.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab::compile {

struct CompileOptions {
  std::string arch = "compute_80";        // virtual architecture for the PTX
  std::vector<std::string> defines;       // "TILE=32" -> -DTILE=32
  std::vector<std::string> include_dirs;  // extra -I
  bool lineinfo = true;                   // .loc lines tie PTX back to the source
  bool use_cache = true;                  // reuse PTX compiled earlier from identical input
};

// A compile error the user caused: `log` is NVRTC's log (file:line: error ...).
struct CompileError : std::runtime_error {
  std::string file, log;
  CompileError(std::string file_, std::string log_)
      : std::runtime_error(file_ + ": compilation failed:\n" + log_), file(std::move(file_)), log(std::move(log_)) {}
};

// Compiles `source` (named `filename` in messages and .file lines) to PTX.
// Throws CompileError with NVRTC's log when the source does not compile.
std::string compile_to_ptx(const std::string& source, const std::string& filename,
                           const CompileOptions& options = {});
std::string compile_file_to_ptx(const std::string& path, const CompileOptions& options = {});

// What ptxas reports for one kernel compiled for a real architecture.
struct ResourceUsage {
  std::string kernel;
  int registers = 0;             // per thread
  int static_shared_bytes = 0;   // .shared declared in the kernel
  int local_bytes = 0;           // stack frame
  int spill_stores = 0, spill_loads = 0;
  int barriers = 0;
};

// Assembles `ptx` for `sm_arch` ("sm_80", "sm_90", ...) with nvJitLink and
// returns ptxas's numbers per kernel. Throws std::runtime_error on failure.
std::vector<ResourceUsage> resource_usage(const std::string& ptx, const std::string& sm_arch);

// Where cached PTX lives: $GPULAB_CACHE, else $XDG_CACHE_HOME/gpulab, else ~/.cache/gpulab.
std::string cache_dir();

}  // namespace lab::compile
