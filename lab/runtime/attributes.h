// lab/runtime/attributes.h: every cudaDeviceAttr a program can ask of a
// simulated device, in one place. cudaDeviceGetAttribute answers from it and
// cudaGetDeviceProperties fills its fields from it, so the two never
// disagree. Values come from the GPU model (lab/sim/device.cpp, cited
// there), from what the lab's runtime serves (an attribute that announces a
// feature is 1 only where the feature is served: docs/run.md), or are the
// documented value of a device with no such feature (0).
#pragma once

#include <driver_types.h>

#include <optional>

#include "lab/sim/device.h"

namespace lab::runtime {

// The attribute's value for device number `device` of model `g`, or nullopt
// for a value CUDA marks reserved (or one this toolkit does not define).
std::optional<int> device_attribute(const sim::GpuModel& g, int device, cudaDeviceAttr attr);

// cudaGetDeviceProperties: every field of `prop` the toolkit defines, from
// device_attribute where an attribute carries it.
void device_properties(const sim::GpuModel& g, int device, cudaDeviceProp* prop);

}  // namespace lab::runtime
