// lab/bench/sass_widths.h: `gpulab validate --sass FILE --kernel K`: the
// shared loads the cycle model times, line by line, beside the LDS
// instructions ptxas makes of the same PTX for the GPU model's architecture
// (read back with nvdisasm). The model times loads as ptxas vectorises them
// (docs/timing-model.md, "Shared loads as ptxas emits them"); this is where
// that rule is held to ptxas itself, on any kernel.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lab/sim/device.h"

namespace lab::bench {

struct SassLineWidths {
  uint32_t line = 0;
  // bytes per lane -> static instructions: the PTX's loads, the model's
  // issued loads (merged, a loop ptxas unrolls counted per iteration), the SASS's LDS.
  std::map<uint32_t, uint32_t> ptx, model, sass;
  // The model issues the widths the SASS has (counts differ where ptxas
  // unrolls a loop partly: the widths do not).
  bool agrees() const;
};

struct SassWidthsReport {
  std::string file, kernel, sm_arch, gpu;
  std::vector<SassLineWidths> lines;  // source lines of `file` with shared loads, in order
  bool agrees() const;                // every line (true when there are none)
};

// Throws std::runtime_error (a compile error, a kernel the file lacks,
// nvdisasm missing) with a message naming the file and kernel.
SassWidthsReport compare_sass_widths(const std::string& file, const std::string& kernel, const sim::GpuModel& gpu,
                                     const std::vector<std::string>& defines = {});

std::string format_sass_widths(const SassWidthsReport& r);

}  // namespace lab::bench
