// lab/compile/nvrtc_call.h: one NVRTC compile in the calling process, with
// nothing else around it (no cache, no helper): what the helper process
// (lab/nvrtc_helper/main.cpp) runs, and compile_to_ptx where the helper is
// absent.
#pragma once

#include <string>
#include <vector>

namespace lab::compile {

struct NvrtcOutcome {
  bool created = false;  // NVRTC could make a program (false: the toolkit is broken or absent)
  bool ok = false;       // it compiled: `ptx` holds the PTX
  std::string ptx;
  std::string log;       // NVRTC's log, trailing newlines and NULs removed
};

NvrtcOutcome nvrtc_compile(const std::string& source, const std::string& filename,
                           const std::vector<std::string>& args);

}  // namespace lab::compile
