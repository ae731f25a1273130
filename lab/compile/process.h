// lab/compile/process.h: run a toolkit program (nvcc, ptxas) and capture
// what it prints.
#pragma once

#include <string>
#include <vector>

namespace lab::compile {

// Runs argv (argv[0] a path, no shell), returning its exit status (127 when
// it could not be started, 128 when it did not exit normally) and its
// stdout and stderr together in `output`.
int run_capture(const std::vector<std::string>& argv, std::string& output);

}  // namespace lab::compile
