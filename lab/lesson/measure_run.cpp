// lab/lesson/measure_run.cpp: manifest sizes and argument specs -> RunRequest.
#include "lab/lesson/measure_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace lab::lesson {

namespace {
sim::Dim3 dims_at(const std::vector<std::string>& e, const SizeVars& s) {
  sim::Dim3 d;
  if (e.size() > 0) d.x = uint32_t(eval_size(e[0], s));
  if (e.size() > 1) d.y = uint32_t(eval_size(e[1], s));
  if (e.size() > 2) d.z = uint32_t(eval_size(e[2], s));
  return d;
}

}  // namespace

MeasureRun measure_run(const Lesson& lesson, const Exercise& ex, const std::string& source, const std::string& kernel,
                       const std::string& gpu) {
  if (ex.sizes.empty()) throw ManifestError(lesson.manifest_path, "exercises." + ex.id + ".sizes", "no sizes to run at");
  return measure_run_at(lesson, ex, source, kernel, gpu, ex.sizes[std::min(ex.metric_size, ex.sizes.size() - 1)],
                        ex.geometry);
}

MeasureRun measure_run_at(const Lesson& lesson, const Exercise& ex, const std::string& source, const std::string& kernel,
                          const std::string& gpu, const SizeVars& sizes, const Geometry& geometry) {
  MeasureRun m;
  m.source = source;
  m.sizes = sizes;
  for (auto& [k, v] : m.sizes) m.sizes_text += fmt::format("{}{}={}", m.sizes_text.empty() ? "" : " ", k, v);
  sim::RunRequest& r = m.request;
  r.file = std::filesystem::path(source).is_absolute() ? source : lesson.path(source);
  r.kernel = kernel.empty() ? ex.kernel : kernel;
  r.gpu = &sim::gpu_model(gpu);
  r.defines = ex.defines;
  try {
    r.launch.grid = dims_at(geometry.grid, m.sizes);
    r.launch.block = dims_at(geometry.block, m.sizes);
    r.launch.dynamic_shared_bytes = uint32_t(eval_size(geometry.shared_bytes, m.sizes));
    for (size_t i = 0; i < ex.args.size(); ++i) {
      const ArgSpec& a = ex.args[i];
      if (a.role == ArgSpec::Role::Scalar) {
        // A scalar is a size expression ("N") or, for float types, a literal ("0.5").
        std::string value = a.value;
        try {
          value = std::to_string(eval_size(a.value, m.sizes));
        } catch (const SizeExprError&) {
          if (!sim::elem_is_float(a.type)) throw;
        }
        r.args.push_back(std::string(sim::elem_name(a.type)) + "=" + value);
        continue;
      }
      int64_t count = 1;
      std::vector<int64_t> extent;
      for (const auto& d : a.dims) extent.push_back(eval_size(d, m.sizes)), count *= extent.back();
      // Inputs get random values as `gpulab check` gives them (check.cpp:
      // floats in [-1, 1), integers in [0, 16): counts, bins, indices);
      // outputs start at zero. Integers over their whole range sent the
      // histogram's view out of bounds (issue 28).
      const char* init = a.role == ArgSpec::Role::Out ? "zero" : sim::elem_is_float(a.type) ? "rand" : "randint:16";
      r.args.push_back(fmt::format("{}[{}]={}", sim::elem_name(a.type), count, init));
      if (extent.size() == 2)
        m.matrices.push_back({a.name, i, uint32_t(extent[0]), uint32_t(extent[1])});
    }
  } catch (const SizeExprError& e) {
    throw ManifestError(lesson.manifest_path, "exercises." + ex.id, e.what());
  }
  return m;
}

}  // namespace lab::lesson
