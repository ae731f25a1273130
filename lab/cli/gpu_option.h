// lab/cli/gpu_option.h: `--gpu MODEL` for every subcommand. The name is
// resolved here, at the edge, once: an unknown name is the same usage error
// (exit 2, the same text) from every command, and the engine below receives
// a resolved `const sim::GpuModel&`.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "lab/sim/device.h"

namespace lab::cli {

// Adds --gpu to `cmd`, storing the name in `name` (default kept as set) and
// refusing an unknown one while the command line is parsed.
CLI::Option* add_gpu_option(CLI::App* cmd, std::string& name, const std::string& help);

// The model a validated --gpu names.
inline const sim::GpuModel& resolved_gpu(const std::string& name) { return sim::gpu_model(name); }

}  // namespace lab::cli
