// lab/sim/cycle/timed_launch.h: times one launch with the cycle model. The
// caller (launch.cpp) supplies `run_traced`, which executes one block in the
// interpreter while recording its trace; this file decides which blocks
// are timed (sample.h), asks for them in increasing block order, runs the
// slice model (engine.h) and scales to the whole grid.
#pragma once

#include <functional>
#include <memory>

#include "lab/ptx/module.h"
#include "lab/sim/cycle/result.h"
#include "lab/sim/cycle/trace.h"
#include "lab/sim/device.h"
#include "lab/sim/cycle/sample.h"
#include "lab/sim/launch.h"

namespace lab::sim::cycle {

using BlockRunner = std::function<void(uint64_t block, BlockTrace& trace)>;

// Told the sample's plan once it is made (the first timed block may already
// have run): plan.bandwidth_share is the part of the L2 and DRAM the slice's
// SMs have (plan.full: every block is timed on every SM).
using PlanListener = std::function<void(const SamplePlan& plan)>;

std::shared_ptr<CycleResult> time_launch(const ptx::Kernel& kernel, const LaunchConfig& cfg, const GpuModel& gpu,
                                         const TimingOptions& options, uint32_t shared_bytes_per_block,
                                         const BlockRunner& run_traced, const PlanListener& on_plan = {},
                                         const std::function<bool()>& stop = {});

}  // namespace lab::sim::cycle
