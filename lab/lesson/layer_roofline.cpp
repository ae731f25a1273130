// lab/lesson/layer_roofline.cpp: the layer's points (layer_roofline.h).
#include "lab/lesson/layer_roofline.h"

#include <algorithm>

namespace lab::lesson {

LayerPoint layer_point(int batch, int in, int out, const sim::GpuModel& gpu) {
  LayerPoint p;
  p.batch = batch;
  p.flop = 2.0 * double(batch) * in * out;
  p.bytes = 2.0 * (double(batch) * in + double(in) * out + double(batch) * out);  // fp16: 2 bytes each
  p.intensity = p.flop / p.bytes;
  p.memory_bound = p.intensity * gpu.dram_bytes_per_s < gpu.fp16_tensor_flops;
  p.attainable = std::min(gpu.fp16_tensor_flops, p.intensity * gpu.dram_bytes_per_s);
  p.seconds = p.flop / p.attainable;
  return p;
}

std::vector<LayerPoint> layer_roofline(int in, int out, const sim::GpuModel& gpu) {
  std::vector<LayerPoint> v;
  for (int b = 1; b <= 4096; b *= 2) v.push_back(layer_point(b, in, out, gpu));
  return v;
}

}  // namespace lab::lesson
