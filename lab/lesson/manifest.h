// lab/lesson/manifest.h: a lesson as its lesson.toml describes it.
//
// A lesson folder lessons/NN-topic/ holds lesson.toml, README.md (the text),
// exercise*.cu (the student's working files), *.template (their pristine
// copies, for `gpulab reset`) and solution*.cu. The manifest says which
// kernels the lesson runs, and for each exercise how to launch it, on which
// sizes, against which CPU reference, and which efficiency criteria it must
// meet. Loading validates everything a check will need, so a bad manifest
// fails when it is loaded, with the file and the field named.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/lesson/size_expr.h"
#include "lab/sim/arg_spec.h"

namespace lab::lesson {

// A lesson file the author got wrong: names the file and the field.
struct ManifestError : std::runtime_error {
  std::string file, field;
  ManifestError(std::string file_, std::string field_, const std::string& what)
      : std::runtime_error(file_ + ": " + field_ + ": " + what), file(std::move(file_)), field(std::move(field_)) {}
};

struct Geometry {
  std::vector<std::string> grid{"1"}, block{"1"};  // 1 to 3 size expressions each
  std::string shared_bytes = "0";                  // dynamic shared memory
};

// One launch of a before/after comparison: a file run with the exercise's
// arguments and geometry, unless it gives its own (a previous lesson's
// kernel may launch its own way; the kernels of an unfused chain each take
// their own buffers).
struct CompareLaunch {
  std::string file;    // relative to the lesson folder
  std::string kernel;  // "" = the exercise's kernel
  std::optional<Geometry> geometry;
  std::vector<std::string> args;  // "" = the exercise's (or the compare's) arguments
  // > 0: at most this many resident blocks per SM (as if each block claimed
  // that share of the SM): the same kernel at lower occupancy.
  uint32_t max_blocks_per_sm = 0;
};
// One side: a kernel, or a chain of launches whose times and counts add up.
struct CompareSide {
  std::string label;   // what the table calls it: "coalesced (lesson 3)"
  std::vector<CompareLaunch> launches;
};

// A lesson's claim as a measurement: two kernels on one problem, at a size
// that fills the GPU, with the speed-up (before's predicted time / after's)
// the lesson states. `gpulab lesson` prints both, with the counters that
// explain the difference, and fails the step when the lab's ratio leaves
// [expect_min, expect_max] or the step's text does not cite it (runner.cpp).
struct Compare {
  std::string exercise;  // whose arguments (and default geometry) both kernels take
  // Without an exercise: the arguments ("in f32 x[N]", ...) and launch of a
  // demo kernel the lesson runs outside any exercise.
  std::vector<std::string> args;
  Geometry geometry;
  CompareSide before, after;
  SizeVars size;
  double expect_min = 0, expect_max = 0;
};

// One step of `gpulab lesson ID`: text to show, and/or a command to run
// (a gpulab command line the student can type themselves).
struct Step {
  std::string title;
  std::string text;     // markdown, shown as is; from the README when `section` is given
  std::string section;  // a "## " heading of the README whose text this step shows
  int cpu_gemm = 0;     // > 0: time every CPU GEMM version on an n x n x n problem
  SizeVars cpu_conv;    // N, C, H, W, K: time every CPU 3x3 convolution (lab/cpu/conv.h) on that layer
  std::string measure_exercise, measure_file, measure_kernel;  // run a file as that exercise and show the simulator's counts
  SizeVars measure_size;  // the size it runs at; empty: the exercise's metric size
  int layer_in = 0, layer_out = 0;  // > 0: roofline table of Y = X*W over batch sizes
  std::optional<Compare> compare;    // a measured before/after
  std::string command;  // e.g. "gpulab sim lessons/.solutions/03-coalescing/solution.cu --kernel ..."; "" for none
  int expect_exit = 0;  // the command's exit status when it shows a refusal on purpose (gpulab's usage errors: 2)
  // The view panes that make this step's point, comma-separated
  // ("coalescing,source"); `gpulab view LESSON` shows them. "" = the lesson's default.
  std::string view;
};

// One kernel parameter, from a spec like "in f32 A[M][K]", "out f32 C[M][N]",
// "inout f32 X[N]", "i32 N" or "f32 alpha=0.5".
struct ArgSpec {
  enum class Role { In, Out, InOut, Scalar };
  Role role = Role::Scalar;
  sim::ElemType type = sim::ElemType::F32;  // lab/sim/arg_spec.h's types: f32 f16 bf16 f64 i32 u32 ...
  std::string name;
  std::vector<std::string> dims;   // size expressions; product = element count
  std::string value;               // scalar: size expression or a float literal
  std::string text;                // as written, for messages
  int elem_bytes() const;
};

// A kernel to compare against (for ratio criteria): same args as the exercise.
struct Baseline {
  std::string file;    // relative to the lesson folder
  std::string kernel;
  Geometry geometry;
};

// Every criterion is measured on the simulator's per-instruction counters at
// the metric size; see criteria.cpp for the exact definitions. Per-instruction
// criteria judge each PTX instruction apart (a cheap broadcast on the same
// source line cannot dilute a strided load); totals are size expressions, so
// issuing fewer lanes per request (more requests) cannot game an average.
enum class Metric {
  MaxSectorsPerGlobalLoad,      // worst global load instruction: sectors / requests (atomics count: they read)
  MaxSectorsPerGlobalStore,     // worst global store instruction (atomics count: they write)
  MaxGlobalLoadSectors,         // total, size expression
  MaxGlobalStoreSectors,        // total, size expression
  MaxGlobalLoadRequests,        // total warp-level load instructions, size expression
  MaxGlobalStoreRequests,       // total, size expression
  MaxMemoryTrafficBytes,        // global + local sectors x 32, loads and stores, before any cache; size expression
  MaxDramBytes,                 // L2 model's DRAM bytes + local-memory sectors x 32; size expression
  MaxSharedLoadRequests,        // total, size expression
  MaxSharedWavefronts,          // total, size expression
  MaxBankConflicts,             // shared wavefronts beyond the conflict-free ideal, whole kernel
  MinSharedLoadsPerGlobalLoad,  // shared load requests / global load requests (on-chip reuse)
  MinWarpEfficiency,            // active lanes / (32 x warp instructions)
  MaxBusiestWarpVsMean,         // busiest warp's instructions / mean over the grid's warps
  MinTensorCoreMacShare,        // multiply-adds on tensor cores / all multiply-adds
  MinOccupancy,                 // theoretical occupancy from the machine model
  MaxPredictedTimeRatio,        // predicted time / a baseline's predicted time
  MaxShufflesPerWarp,           // shfl.sync warp instructions per warp of the grid: a tree over 32 lanes is 5, a chain 31
};
const char* metric_name(Metric m);
std::optional<Metric> metric_from_name(const std::string& name);
std::string known_metrics();
bool is_total_metric(Metric m);  // its limit is a size expression

struct Criterion {
  Metric metric{};
  double value = 0;                 // the limit, for numeric criteria
  std::string value_expr;           // the limit as a size expression (totals)
  std::string baseline;             // for ratio criteria: a [exercises.baselines] key, or "solution"
  std::string why;                  // one sentence: what to change when it fails
  // Global load/store totals of one buffer argument only ("W": W once means
  // W once, however little the others cost); its index among the args
  // (= the kernel's parameter index). Accesses whose buffer the PTX does not
  // show count against every buffer's limit.
  std::string buffer;
  int buffer_param = -1;
};

// A program exercise's run: `gpulab run PROGRAM FILE --gpus N --link L -- ARGS`.
struct ProgramRun {
  int gpus = 1;
  std::string link = "nvlink";
  std::string args;        // the program's arguments, split at spaces
  // The solution's run whose losses this run's must equal: these arguments
  // on one GPU (lesson 10: the whole batch at once, K = 1); empty: `args`.
  std::string reference_args;
};

struct Exercise {
  std::string id;          // unique within the lesson, e.g. "coalesced-gemm"
  std::string title;
  std::string file;        // the student's file, relative to the lesson folder
  std::string template_file;
  std::string solution;
  std::string kernel;
  Geometry geometry;
  std::vector<ArgSpec> args;
  std::vector<SizeVars> sizes;
  size_t metric_size = 0;  // index into sizes at which criteria are measured
  // Where max_predicted_time_ratio is judged: a size that fills the GPU,
  // timed on the blocks the cycle model samples (check.cpp); empty: the
  // metric size. A small metric size keeps the counters quick to gather,
  // but the GPU is nearly empty there and time shows latency, not the idea.
  SizeVars time_size;
  // The second size the criteria are judged at, drawn at check time from
  // these (check.cpp): an attempt efficient only at the metric size fails at
  // the other. Each is as large as the metric size's effect needs, and the
  // reference passes at every one (tests/test_lesson_judge_sizes.cpp), so the
  // draw never makes an honest kernel's verdict flaky.
  std::vector<SizeVars> judge_sizes;
  std::string reference;   // CPU reference name (see reference.h)
  std::optional<double> tolerance;  // else by output precision
  std::vector<Criterion> criteria;
  std::vector<std::pair<std::string, Baseline>> baselines;
  std::vector<std::string> hints;
  std::vector<std::string> defines;  // extra -D for compiling
  std::vector<std::string> nonnegative;  // input buffers filled with |uniform| (e.g. Adam's second moment, a mean of squares)
  // A program exercise (lesson 11): the student's file is host code built
  // into the lesson's program, which runs on several simulated GPUs; no
  // kernel, args, sizes or reference. check_program.cpp says what it checks.
  std::string program;     // relative to the lesson folder
  std::vector<ProgramRun> runs;  // correctness on each; the last also measures the links
  // Which of check_program.cpp's rules apply: "sums", "loss", "links"
  // (lesson 11's ring, the default), "peak" (lesson 10's accumulation).
  std::vector<std::string> checks = {"sums", "loss", "links"};
};

struct Lesson {
  std::string id;          // the folder name, e.g. "03-coalescing"
  std::string title;
  std::string dir;         // absolute or as found
  std::string manifest_path;
  std::string readme;      // file name of the text
  std::vector<Step> steps;
  std::vector<Exercise> exercises;

  std::string path(const std::string& rel) const { return dir + "/" + rel; }
  const Exercise* find_exercise(const std::string& id) const;
  // The exercise as step `s` measures it: its own, run at the step's size when
  // the step names one (a view that needs a full GPU, such as the timeline).
  Exercise measured_exercise(const Step& s) const;
};

// Loads and validates lessons/<dir>/lesson.toml. Throws ManifestError.
Lesson load_lesson(const std::string& dir);
// The same, with the manifest's text given (lab/lesson/shipped.h: the lab's
// own copy) instead of read from dir/lesson.toml; files are still found in dir.
Lesson load_lesson_text(const std::string& dir, const std::string& manifest_text);

// The text under the "## `heading`" line of a markdown document, up to the
// next "## " heading; "" when there is no such heading.
std::string markdown_section(const std::string& markdown, const std::string& heading);

// Every lesson folder under `root` (folders with a lesson.toml), sorted by name.
std::vector<Lesson> load_lessons(const std::string& root);

// The folder of the lesson `target` names: a lesson folder itself, or the
// first folder under `root` (in order) whose name starts with it ("01",
// "01-why-gpus"). "" when none does. Only the lessons part scans the folder.
std::string find_lesson_dir(const std::string& root, const std::string& target);

// Parses one argument spec; throws std::invalid_argument with what is wrong.
ArgSpec parse_arg_spec(const std::string& text);

}  // namespace lab::lesson
