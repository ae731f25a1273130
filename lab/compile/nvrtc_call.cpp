// lab/compile/nvrtc_call.cpp: nvrtc_compile (nvrtc_call.h).
#include "lab/compile/nvrtc_call.h"

#include <nvrtc.h>

namespace lab::compile {

NvrtcOutcome nvrtc_compile(const std::string& source, const std::string& filename,
                           const std::vector<std::string>& args) {
  NvrtcOutcome out;
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, source.c_str(), filename.c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS) return out;
  out.created = true;
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  const nvrtcResult rc = nvrtcCompileProgram(prog, int(argv.size()), argv.data());
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  out.log.assign(log_size, '\0');
  if (log_size > 1) nvrtcGetProgramLog(prog, out.log.data());
  while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) out.log.pop_back();
  if (rc != NVRTC_SUCCESS) {
    if (out.log.empty()) out.log = nvrtcGetErrorString(rc);
    nvrtcDestroyProgram(&prog);
    return out;
  }
  size_t ptx_size = 0;
  nvrtcGetPTXSize(prog, &ptx_size);
  out.ptx.assign(ptx_size, '\0');
  nvrtcGetPTX(prog, out.ptx.data());
  nvrtcDestroyProgram(&prog);
  while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  out.ok = true;
  return out;
}

}  // namespace lab::compile
