// lab/compile/sass.h: the SASS ptxas makes of PTX, read back with nvdisasm:
// each shared-memory load's width and source line. The cycle model times
// loads as ptxas vectorises them (lab/sim/cycle/decode.h, merge_shared_loads);
// `gpulab validate --sass` holds its widths against these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lab::compile {

// nvdisasm: $GPULAB_NVDISASM, else the toolkit's, else the copy
// `.ci/bootstrap` installs into the repository's .tools/ folder from
// NVIDIA's nvidia-cuda-nvdisasm wheel; "" when none is there.
std::string nvdisasm_path();

struct SassSharedLoad {
  std::string file;   // as the line table names it
  uint32_t line = 0;  // 0: no line information
  uint32_t bytes = 0; // per lane: LDS 4, LDS.64 8, LDS.128 16, LDS.U8 1 ...
};

// The LDS instructions of `kernel` in the SASS ptxas makes of `ptx` for
// `sm_arch` (with line information), in program order. Throws
// std::runtime_error naming the tool when ptxas or nvdisasm fails or is
// missing.
std::vector<SassSharedLoad> sass_shared_loads(const std::string& ptx, const std::string& sm_arch,
                                              const std::string& kernel);

// The parser alone, over nvdisasm -g -c output.
std::vector<SassSharedLoad> parse_sass_shared_loads(const std::string& disassembly, const std::string& kernel);

}  // namespace lab::compile
