// lab/compile/process.h: run a toolkit program (nvcc, ptxas) and capture
// what it prints.
#pragma once

#include <string>
#include <vector>

namespace lab::compile {

// Runs argv (argv[0] a path, no shell), returning its exit status (127 when
// it could not be started, 128 when it did not exit normally) and its
// stdout and stderr together in `output`. With `fixed_layout` the program
// starts with address space randomisation off and an 8 MiB stack limit, so
// it finds its memory at the same addresses on every run (gpulab-nvrtc:
// lab/nvrtc_helper/main.cpp says why).
int run_capture(const std::vector<std::string>& argv, std::string& output, bool fixed_layout = false);

}  // namespace lab::compile
