// lab/lesson/measure_run.h: a lesson's kernel as one simulator run.
//
// A `measure` step of a lesson (and `gpulab view LESSON`) runs a source file
// (exercise, solution, template or the student's own) as one of the lesson's
// exercises at the exercise's metric size. This turns the manifest's launch
// geometry and argument specs into the same RunRequest `gpulab sim` builds,
// so the view reaches the lesson only through lab/lesson and runs the kernel
// through the simulator's one run path (lab/sim/run.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lab/lesson/manifest.h"
#include "lab/sim/run.h"

namespace lab::lesson {

struct MeasureRun {
  sim::RunRequest request;   // file (absolute), kernel, launch, --arg specs, defines, gpu
  std::string source;        // the file as the lesson names it ("solution.cu")
  SizeVars sizes;            // the exercise's metric size
  std::string sizes_text;    // "K=64 M=512 N=512"
  // Two-dimensional buffer arguments (A[M][K], ...), for heat maps.
  struct Matrix {
    std::string name;
    size_t arg = 0;          // index into request.args
    uint32_t rows = 0, cols = 0;
  };
  std::vector<Matrix> matrices;
};

// Throws ManifestError when the exercise's sizes or specs cannot be evaluated.
MeasureRun measure_run(const Lesson& lesson, const Exercise& ex, const std::string& source,
                       const std::string& kernel = "", const std::string& gpu = "H100");

// The same at the given sizes and launch geometry (a compare step's).
MeasureRun measure_run_at(const Lesson& lesson, const Exercise& ex, const std::string& source, const std::string& kernel,
                          const std::string& gpu, const SizeVars& sizes, const Geometry& geometry);

}  // namespace lab::lesson
