// lab/bench/published.h: the lab's predictions held against timings that
// others published for kernels the lab can run as they are written
// (`gpulab validate --published FILE --mirror DIR`, docs/fidelity.md
// "Published measurements").
//
// The data file (docs/fidelity/published.json) names, per table, the source
// (title, URL), the GPU, the repository and commit the kernels come from, and
// per kernel: the files, the kernel's name, the launch, the --arg specs and
// the published figure with its unit. The kernel sources are never copied
// into the lab: they are read from a local snapshot of the repository
// (`git show COMMIT:PATH` in DIR/<owner>+<name>/repo) into a temporary
// directory at run time, with their #include lines blanked (host headers),
// host code outside the "keep" line ranges blanked, and line numbers kept.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lab::bench {

struct PublishedOptions {
  std::string file;            // the data file
  std::string mirror;          // folder holding repository snapshots
  std::vector<std::string> only_tables;  // table ids; empty = all
  std::vector<std::string> only_kernels; // kernel labels; empty = all
  unsigned threads = 0;        // simulator workers
  // Sampling: at most this many blocks are simulated per kernel (whole rows
  // of the grid, first rows first); their counters are scaled to the grid
  // and the unchanged machine model predicts the full launch. 0: full runs.
  uint64_t sample_blocks = 0;
  // Measure each kernel on this machine's GPU as well (`--gpu-backend cuda`):
  // the same wrapper, inputs and full launch, timed with CUDA events (median,
  // L2 flushed). The table's figures stay model against published; the
  // measured time is reported beside them. With measure_only the simulator is
  // not run at all (a GPU lease is short).
  bool measure_on_gpu = false;
  bool measure_only = false;
  std::function<void(const std::string&)> progress;
};

struct PublishedRow {
  std::string table, label, kernel;
  double published_ms = 0;          // converted to milliseconds
  std::string published_text;       // as published: "309.0 GFLOP/s"
  std::optional<double> predicted_ms;
  std::string bound;                // the model's limiter
  uint64_t blocks_simulated = 0, blocks_total = 0;
  double sim_seconds = 0;
  std::string note;                 // why there is no prediction
  std::optional<double> measured_ms;  // on this machine's GPU (measure_on_gpu)
  std::string measured_device;
  std::string measured_note;        // why the GPU run failed
};

struct PublishedTable {
  std::string id, title, url, gpu, size, conversion, repo, commit;
  std::vector<PublishedRow> rows;
  // Over the rows with a prediction:
  int n = 0;
  double mape = 0;                  // mean |pred - pub| / pub, percent
  double spearman = 0;              // rank correlation of the times
  double relative_mape = 0;         // the same error on each kernel's time / the table's fastest
};

struct PublishedReport {
  std::vector<PublishedTable> tables;
  std::string command;
};

PublishedReport run_published(const PublishedOptions& o);
std::string format_published_markdown(const PublishedReport& r);
nlohmann::json published_json(const PublishedReport& r);

// Exposed for tests.
double spearman_rho(const std::vector<double>& a, const std::vector<double>& b);
// Milliseconds from a published figure: "ms", "us", "s" directly; "GFLOP/s" /
// "TFLOP/s" with `flops`; "GB/s" with `bytes`. Throws std::invalid_argument.
double published_to_ms(double value, const std::string& unit, double flops, double bytes);

}  // namespace lab::bench
