// lab/sim/cycle/summary.h: the cycle model's result in the report's terms:
// the predicted time and bound, Nsight-style JSON and the text lines with
// the top stall reasons. report.cpp calls these; nothing else computes them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/sim/cycle/result.h"
#include "lab/sim/device.h"
#include "lab/sim/timing.h"

namespace lab::sim::cycle {

// Replaces the prediction's time, bound and limiter with the cycle model's;
// keeps the analytic c_* terms as the roofline's bounds.
void apply_prediction(Prediction& p, const CycleResult& r, const GpuModel& gpu);

// What a launch paced by the block scheduler (limiter "block_scheduler") is
// told, in the explanation and the text report alike.
std::string block_scheduler_advice(const GpuModel& gpu);

// Waiting states (everything but `selected`) by share of warp-cycles, largest first.
std::vector<std::pair<Stall, double>> top_stalls(const std::array<uint64_t, kStallCount>& stall);

nlohmann::json cycle_json(const CycleResult& r);           // `predicted.cycle_model`
nlohmann::json stall_json(const std::array<uint64_t, kStallCount>& stall);  // {name: warp-cycles}
std::string cycle_text(const CycleResult& r, size_t top = 4);  // indented lines for KernelReport::text

}  // namespace lab::sim::cycle
