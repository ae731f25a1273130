// lab/cli/sim_output.h: the JSON object and the readable report of `gpulab sim`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "lab/sim/run.h"

namespace lab::cli {

struct SimReport {
  nlohmann::json json;
  std::string text;
};

SimReport build_sim_report(const sim::RunOutcome& run, const sim::RunRequest& req);

}  // namespace lab::cli
