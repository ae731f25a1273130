// lab/nvrtc_helper/main.cpp: gpulab-nvrtc, one NVRTC compile in a process of
// its own, started by compile_to_ptx (lab/compile/nvrtc.cpp) with address
// space randomisation off.
//
// Why a process: NVRTC's PTX for one source is not always the same. Its
// optimiser orders some work by heap address, so the same kernel compiled in
// two processes (or twice in one) can come out as different, equally valid
// PTX: kernels/gemm/07_warptile.cu, compiled 12 times for compute_90a with
// CUDA 13.0, gave one PTX 10 times and, twice, one with an extra
// `ld.shared.v2.f32` inside a `ld.shared.v4.f32`'s bytes (ptxas makes the
// same SASS of both; the lab's model, timing the PTX, saw 6% less time).
// Compiled alone in a fresh process with a fixed address layout, the heap
// addresses, and so the PTX, are the same every time.
//
// Usage: gpulab-nvrtc SOURCE NAME OUT -- NVRTC-OPTIONS...
//   compiles the file SOURCE (named NAME in the PTX and the log), writes the
//   PTX to OUT and exits 0; prints NVRTC's log and exits 1 when the source
//   does not compile, 2 when NVRTC cannot start, 3 on bad usage or files.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lab/compile/nvrtc_call.h"

int main(int argc, char** argv) {
  if (argc < 5 || std::string(argv[4]) != "--") {
    std::fprintf(stderr, "usage: gpulab-nvrtc SOURCE NAME OUT -- NVRTC-OPTIONS...\n");
    return 3;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "gpulab-nvrtc: cannot read %s\n", argv[1]);
    return 3;
  }
  std::stringstream source;
  source << in.rdbuf();
  std::vector<std::string> args(argv + 5, argv + argc);
  const lab::compile::NvrtcOutcome r = lab::compile::nvrtc_compile(source.str(), argv[2], args);
  if (!r.created) return 2;
  if (!r.ok) {
    std::fputs(r.log.c_str(), stdout);
    return 1;
  }
  std::ofstream out(argv[3], std::ios::binary);
  out << r.ptx;
  if (!out.flush()) {
    std::fprintf(stderr, "gpulab-nvrtc: cannot write %s\n", argv[3]);
    return 3;
  }
  return 0;
}
