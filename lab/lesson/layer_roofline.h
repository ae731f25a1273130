// lab/lesson/layer_roofline.h: lesson 07's layer on the roofline. One layer
// Y[B][out] = X[B][in] * W[in][out] in fp16 with fp32 accumulation: its
// FLOPs and the fewest bytes that must cross DRAM (X, W and Y once each),
// and the roofline's bound min(peak, intensity * bandwidth) with the GPU
// model's published figures. The lesson runner prints it as a table and
// the view draws it (visual/session_perf.cpp).
#pragma once

#include <vector>

#include "lab/sim/device.h"

namespace lab::lesson {

struct LayerPoint {
  int batch = 0;
  double flop = 0, bytes = 0;
  double intensity = 0;      // FLOP per DRAM byte
  double attainable = 0;     // FLOP/s the roofline allows
  double seconds = 0;        // flop / attainable: the bound on the time
  bool memory_bound = false;
};

// Batch sizes 1, 2, 4, ..., 4096 on `gpu`'s fp16 tensor peak and DRAM bandwidth.
std::vector<LayerPoint> layer_roofline(int in, int out, const sim::GpuModel& gpu);

// One batch size's point.
LayerPoint layer_point(int batch, int in, int out, const sim::GpuModel& gpu);

}  // namespace lab::lesson
