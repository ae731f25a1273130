// lab/train/fit.h: "Will it fit?", the memory half of lesson 10 for
// `gpulab train`: the device bytes a run counted, group by group, against
// schedule.h's formula and the GPU model's capacity; a checkpointed or
// accumulated run beside its plain baseline; the same per-parameter and
// per-layer formula for a 7B-parameter model on every GPU model; and what to
// do when a step does not fit.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/cpu/mlp_task.h"
#include "lab/sim/device.h"

namespace lab::train {

using MemoryGroups = std::vector<std::pair<std::string, uint64_t>>;

// The counted groups (train.cu's "memory GROUP BYTES" lines) and the
// runtime's peak, beside the formula; `ok` false when they disagree.
std::string memory_text(const MemoryGroups& counted, uint64_t peak, const mlp::Shape& shape, const mlp::Plan& plan,
                        const sim::GpuModel& gpu, bool& ok);

// `run` (checkpointed or accumulated) against `base` (the same shape,
// plain): activations and peak bytes, losses, the predicted GPU step and the
// measured CPU step. Fills `out` and sets `ok` false when the losses part
// ways (exactly equal for checkpointing, 1e-5 for accumulation).
std::string trade_text(const nlohmann::json& run, const nlohmann::json& base, const mlp::Plan& plan,
                       nlohmann::json& out, bool& ok);

// The same formula for a transformer of `params` parameters (the shape of a
// 7B model unless told otherwise), on every GPU model the lab knows.
nlohmann::json fit_table(double params);
std::string fit_text(const nlohmann::json& table);

// Before any run, by the formula: empty when the step fits; else why not,
// group by group, and what to do. Two limits: the GPU model's capacity (the
// refusal the runtime would give at the first cudaMalloc past it, said
// before the simulator backs a single buffer), and this machine's memory,
// which backs the simulated device's (and the CPU step's) buffers.
// `out_of_memory`: the GPU model's limit, not this machine's.
std::string fit_refusal(const mlp::Shape& shape, const mlp::Plan& plan, const sim::GpuModel& gpu, bool& out_of_memory);

// The formula for lesson 10's own step (this shape and plan) against one GPU
// model, without running it: `gpulab train --fit --batch B --gpu T4`.
nlohmann::json step_fit(const mlp::Shape& shape, const mlp::Plan& plan, const sim::GpuModel& gpu);
std::string step_fit_text(const nlohmann::json& step);

// What to say when the runtime refused one of train.cu's allocations anyway.
std::string refusal_text(const mlp::Shape& shape, const mlp::Plan& plan, const sim::GpuModel& gpu);

}  // namespace lab::train
