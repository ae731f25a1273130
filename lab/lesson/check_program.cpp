// lab/lesson/check_program.cpp: the self-check of a program exercise: the
// student's file is built into the lesson's program and run (on several
// simulated GPUs for lesson 11's ring, lab/runtime/devices.h). The manifest's
// `checks` chooses the rules below; each lives in one function.
//
// Always: the program builds and runs clean on every run of the manifest.
// "sums": every step's summed gradients match a host sum ("verify step S
// max_error E" <= the tolerance). "loss": every step's loss matches the
// solution's on one GPU with the run's reference_args (lesson 11: the same
// global batch on one GPU; lesson 10: the whole batch at once, K = 1).
// "peak": no device's peak bytes (the runtime's count) above the solution's
// on the same run: lesson 10's accumulation must hold one micro-batch's
// activations, not the batch's. "links" (every run): no GPU sends or
// receives more bytes over its links than a ring does: K passes x (N - 1)
// steps x the largest chunk, ceil(n / N) floats, for the "ring passes K
// floats n" the program reports; only ring links (rank r to r + 1) carry
// bytes, each at least K x (N - 1) x the smallest chunk (host staging moves
// nothing over them).
//
// "links" and "peak" are what reject answers right for the wrong reason.
// Gathering every buffer on GPU 0, adding there and sending the sum back
// gives the ring's sums, but GPU 0's link then carries N - 1 whole buffers
// each way where a ring's carries 2 (N - 1) / N of one; the runtime counts
// each link's bytes by the line of the copy that moved them, so the failure
// names the line. Running the whole batch as one "micro-batch" gives the
// full batch's losses, but with the full batch's activations on the device.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lab/lesson/check.h"

namespace fs = std::filesystem;

namespace lab::lesson {
namespace {

ProgramRunner& runner() {
  static ProgramRunner r;
  return r;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// What one run printed, as the check reads it.
struct RunOutput {
  bool ok = false;
  std::string failure;                 // why not, for the student
  std::map<int, double> loss, verify;  // by step
  std::map<int, int> adamw_steps;      // by step (lesson 10's accumulation)
  int reserve_rows = 0;                // the most rows a "reserve rows R" line asked room for
  int passes = 0;
  long floats = 0;
  nlohmann::json devices;              // the runtime's summary (devices.cpp)
};

// The runs of one check, each a `gpulab run` process of its own and most
// of the check's time, run side by side on as many workers as the host has
// cores (at most 4): a program check needs four to six of them, independent
// of one another. Results are read in the order the rules need them; a check
// that returns at the first failure stops the runs not yet started (the
// destructor), and waits for those in progress.
class RunPool {
 public:
  std::shared_future<RunOutput> add(std::function<RunOutput()> run) {
    tasks_.push_back(std::make_unique<Task>());
    tasks_.back()->run = std::move(run);
    return tasks_.back()->done.get_future().share();
  }
  void start() {
    const size_t workers = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
    for (size_t w = 0; w < std::min(workers, tasks_.size()); ++w)
      threads_.emplace_back([this] {
        for (size_t i; (i = next_++) < tasks_.size();) {
          Task& t = *tasks_[i];
          if (stop_) {
            RunOutput skipped;
            skipped.failure = "not run: the check had already failed";
            t.done.set_value(std::move(skipped));
            continue;
          }
          try {
            t.done.set_value(t.run());
          } catch (...) {
            t.done.set_exception(std::current_exception());
          }
        }
      });
  }
  ~RunPool() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
  }

 private:
  struct Task {
    std::function<RunOutput()> run;
    std::promise<RunOutput> done;
  };
  std::vector<std::unique_ptr<Task>> tasks_;
  std::vector<std::thread> threads_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stop_{false};
};

std::string tail(const std::string& s, size_t n = 1500) { return s.size() > n ? "..." + s.substr(s.size() - n) : s; }

RunOutput run_once(const std::vector<std::string>& sources, const std::vector<std::string>& defines,
                   const ProgramRun& run, const sim::GpuModel& gpu) {
  RunOutput out;
  const std::string text = runner()(sources, defines, run, gpu);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    out.failure = fmt::format("gpulab run printed no JSON: {}", tail(text));
    return out;
  }
  if (j.contains("errors")) {  // a build error: nvcc's own words
    out.failure = j["errors"][0].value("message", "the program did not build");
    return out;
  }
  const std::string printed = j.value("output", "");
  // Copies and kernels on different GPUs that nothing orders: right here,
  // where every call finishes before it returns, but not promised on a GPU.
  const nlohmann::json races =
      j.value("devices", nlohmann::json::object()).value("stream_order_races", nlohmann::json::array());
  if (!races.empty()) {
    out.failure = fmt::format("on {} GPUs, {} stream-order race(s); the first: {}", run.gpus, races.size(),
                              races[0].get<std::string>());
    return out;
  }
  if (!j.value("ok", false)) {
    std::string why = fmt::format("the program exited with status {}", j.value("exit_code", -1));
    for (const auto& l : j.value("launches", nlohmann::json::array()))
      if (!l.value("ok", true) && !l["errors"].empty())
        why = fmt::format("launch #{} {} faulted: {}", l.value("launch", 0), l.value("kernel", ""),
                          l["errors"][0].value("message", ""));
    // The runtime's and the program's own words first: they say what went wrong.
    const std::string err = j.value("stderr", "");
    out.failure = !err.empty()
                      ? fmt::format("{} on {} GPUs:\n{}", why, run.gpus, tail(err, 800))
                      : fmt::format("{} on {} GPUs; its output ended:\n{}", why, run.gpus, tail(printed, 600));
    return out;
  }
  std::istringstream lines(printed);
  static const std::regex kLoss(R"(^step (\d+) loss (\S+))"), kVerify(R"(^verify step (\d+) max_error (\S+))"),
      kPasses(R"(^ring passes (\d+) floats (\d+))"), kAdamw(R"(^step (\d+) adamw_steps (\d+))"),
      kReserve(R"(^reserve rows (\d+))");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, kLoss)) out.loss[std::stoi(m[1])] = std::stod(m[2]);
    else if (std::regex_search(line, m, kVerify)) out.verify[std::stoi(m[1])] = std::stod(m[2]);
    else if (std::regex_search(line, m, kPasses)) out.passes = std::stoi(m[1]), out.floats = std::stol(m[2]);
    else if (std::regex_search(line, m, kAdamw)) out.adamw_steps[std::stoi(m[1])] = std::stoi(m[2]);
    else if (std::regex_search(line, m, kReserve)) out.reserve_rows = std::max(out.reserve_rows, std::stoi(m[1]));
  }
  out.devices = j.value("devices", nlohmann::json::object());
  if (out.loss.empty()) {
    out.failure = fmt::format("the program printed no \"step S loss L\" line:\n{}", tail(printed, 600));
    return out;
  }
  out.ok = true;
  return out;
}

// Rule "sums": every step's summed gradients within the tolerance of a host sum.
std::string rule_sums(const ProgramRun& run, const RunOutput& got, double tol, SizeResult& sr) {
  for (const auto& [step, err] : got.verify) {
    sr.max_error = std::max(sr.max_error, std::isnan(err) ? INFINITY : err);
    if (!(err <= tol))
      return fmt::format(
          "on {} GPUs, step {}: a GPU's summed gradients are off by {:.3g} (relative; tolerance {:.0e}) from the sum "
          "of every GPU's gradient. After ring_reduce_scatter rank r's chunk r must hold the sum over all ranks; after "
          "ring_all_gather every rank must hold every chunk.",
          run.gpus, step, err, tol);
  }
  if (got.verify.size() != got.loss.size())
    return fmt::format("on {} GPUs the program printed no \"verify\" line for each step: run it with "
                       "the manifest's arguments (\"{}\")", run.gpus, run.args);
  return "";
}

// Rule "loss": every step's loss the reference's (the solution on one GPU
// with the run's reference_args). Where the program counts AdamW's steps, a
// count other than one a step is named as the reason.
std::string rule_loss(const ProgramRun& run, const RunOutput& got, const RunOutput& ref, double tol) {
  const std::string whose = run.reference_args.empty()
                                ? "one GPU on the same global batch has"
                                : fmt::format("the whole batch at once (`-- {}`) has", run.reference_args);
  for (const auto& [step, loss] : ref.loss) {
    auto it = got.loss.find(step);
    const double diff = it == got.loss.end() ? INFINITY : std::fabs(it->second - loss);
    if (diff <= tol * std::max(1.0, std::fabs(loss))) continue;
    std::string msg = fmt::format("on {} GPU{}, step {}: loss {} where {} {:.6f}", run.gpus, run.gpus > 1 ? "s" : "",
                                  step, it == got.loss.end() ? "missing" : fmt::format("{:.6f}", it->second), whose,
                                  loss);
    auto a = got.adamw_steps.find(step);
    if (a != got.adamw_steps.end() && a->second > 1)
      msg += fmt::format(
          ". AdamW stepped {} times in this step, once per micro-batch: each micro-batch's gradient was taken at "
          "weights the one before had already moved, so these are {} small steps, not one step of the batch. Add "
          "the micro-batches' gradients up (accumulate = 1 after the first) and step once.",
          a->second, a->second);
    else if (a != got.adamw_steps.end() && a->second == 0)
      msg += ". AdamW never stepped: call adamw_step() once, after the micro-batches.";
    return msg;
  }
  return "";
}

// Rule "peak": the most bytes any device held, at most the solution's on the
// same run (the runtime's per-device peak, lab/runtime/devices.cpp).
CriterionResult rule_peak(const std::string& path, const ProgramRun& run, const RunOutput& got, const RunOutput& ref) {
  auto peak = [](const RunOutput& o) {
    double most = 0;
    for (const auto& d : o.devices.value("devices", nlohmann::json::array()))
      most = std::max(most, d.value("peak_bytes", 0.0));
    return most;
  };
  CriterionResult c;
  c.name = "max_gpu_peak_bytes";
  c.evaluated = true;
  c.measured = peak(got);
  c.limit = peak(ref);
  c.ok = c.measured <= c.limit;
  if (c.ok) {
    c.message = fmt::format("the device's peak was {:.0f} bytes, within the solution's {:.0f} for the same run (`-- {}`)",
                            c.measured, c.limit, run.args);
    return c;
  }
  // The runtime does not count allocations by call site: the line named is
  // the checked file's first reserve_rows call, the one that asks for room.
  std::vector<std::string> src = lines_of(path);
  for (size_t i = 0; i < src.size(); ++i)
    if (src[i].find("reserve_rows(") != std::string::npos) {
      c.file = path;
      c.line = unsigned(i + 1);
      c.source_line = src[i];
      break;
    }
  c.message = fmt::format(
      "the device's peak was {:.0f} bytes, {:.0f} above the solution's {:.0f} for the same run (`-- {}`){}. The losses "
      "are right, but the memory is the whole batch's: a micro-batch of batch_rows() / K rows needs room for only "
      "those rows' activations, which is what accumulation saves. Reserve room for one micro-batch and run K of them.",
      c.measured, c.measured - c.limit, c.limit, run.args,
      got.reserve_rows ? fmt::format("; room was reserved for {} rows", got.reserve_rows) : std::string());
  return c;
}

// Rule "links" (every run): no GPU above a ring's traffic.
CriterionResult rule_links(const std::string& path, const ProgramRun& run, const RunOutput& last) {
  const int N = run.gpus;
  CriterionResult c;
  c.name = "max_gpu_link_bytes";
  c.evaluated = true;
  const long chunk = N > 0 ? (last.floats + N - 1) / N : 0;
  c.limit = double(last.passes) * double(N - 1) * double(chunk) * 4.0;
  std::vector<double> sent(size_t(N), 0), received(size_t(N), 0);
  const nlohmann::json links = last.devices.value("links", nlohmann::json::array());
  for (const auto& l : links) {
    const int s = l.value("src", 0), d = l.value("dst", 0);
    if (s >= 0 && s < N) sent[size_t(s)] += l.value("bytes", 0.0);
    if (d >= 0 && d < N) received[size_t(d)] += l.value("bytes", 0.0);
  }
  int busiest = 0;
  bool by_receive = false;
  for (int g = 0; g < N; ++g) {
    if (sent[size_t(g)] > c.measured) c.measured = sent[size_t(g)], busiest = g, by_receive = false;
    if (received[size_t(g)] > c.measured) c.measured = received[size_t(g)], busiest = g, by_receive = true;
  }
  c.ok = c.measured <= c.limit;
  // The line of the student's file that moved a link's bytes, when there is one.
  const std::string name = fs::path(path).filename().string();
  auto name_site = [&](const nlohmann::json& l) {
    for (const auto& site : l.value("sites", nlohmann::json::array()))
      if (fs::path(site.value("file", "")).filename().string() == name && site.contains("line")) {
        c.file = path;
        c.line = site.value("line", 0u);
        std::vector<std::string> src = lines_of(path);
        if (c.line && c.line <= src.size()) c.source_line = src[c.line - 1];
        return;
      }
  };
  if (c.ok) {
    // Only the ring's links carry bytes: rank r sends to rank r + 1. An
    // all-to-all moves as many bytes over links a ring never uses.
    for (const auto& l : links) {
      const int s = l.value("src", 0), d = l.value("dst", 0);
      if (l.value("bytes", 0.0) <= 0 || N < 2 || d == (s + 1) % N) continue;
      c.ok = false;
      c.measured = l.value("bytes", 0.0);
      name_site(l);
      c.message = fmt::format(
          "on {} GPUs GPU {} sent {:.0f} bytes to GPU {}, which is not its ring neighbour (GPU {}): a ring passes "
          "chunks only from each rank to the next, so the N links work at once, one hop each. Send to (rank + 1) "
          "mod N and receive from (rank - 1) mod N.",
          N, s, c.measured, d, (s + 1) % N);
      return c;
    }
    // And each of them carries its share: at least the ring's bytes with the
    // smallest chunk. Nothing over the links means the data went another way
    // (through host memory: cudaMemcpy to and from the host is not a ring).
    const double floor_bytes = double(last.passes) * double(N - 1) * double(N > 0 ? last.floats / N : 0) * 4.0;
    for (int g = 0; g < N && N >= 2; ++g) {
      double b = 0;
      for (const auto& l : links)
        if (l.value("src", -1) == g && l.value("dst", -1) == (g + 1) % N) b += l.value("bytes", 0.0);
      if (b >= floor_bytes) continue;
      c.ok = false;
      c.measured = b;
      c.message = fmt::format(
          "on {} GPUs the link from GPU {} to GPU {} carried {:.0f} bytes, less than a ring's {:.0f} ({} passes x "
          "(N - 1) x {} floats): the sums are right, but the chunks did not travel between neighbours over the "
          "links. Move them with cudaMemcpyPeer(Async) from rank r to rank r + 1, not through host memory.",
          N, g, (g + 1) % N, b, floor_bytes, last.passes, N > 0 ? last.floats / N : 0);
      return c;
    }
    c.message = fmt::format("on {} GPUs the busiest GPU's link carried {:.0f} bytes, within a ring's {:.0f} "
                            "({} passes x (N - 1) x {} floats), over ring links only", N, c.measured, c.limit,
                            last.passes, chunk);
    return c;
  }
  // The line that moved the most of the busiest GPU's bytes, in the checked file when it is there.
  double most = -1;
  for (const auto& l : links) {
    if ((by_receive ? l.value("dst", -1) : l.value("src", -1)) != busiest) continue;
    for (const auto& site : l.value("sites", nlohmann::json::array())) {
      const bool ours = fs::path(site.value("file", "")).filename().string() == name;
      const double b = site.value("bytes", 0.0) + (ours ? 1e18 : 0.0);  // the student's lines first
      if (b > most && site.contains("line")) {
        most = b;
        c.file = ours ? path : site.value("file", "");
        c.line = site.value("line", 0u);
      }
    }
  }
  if (c.line && c.file == path) {
    std::vector<std::string> src = lines_of(path);
    if (c.line <= src.size()) c.source_line = src[c.line - 1];
  }
  c.message = fmt::format(
      "on {} GPUs GPU {} {} {:.0f} bytes over its links, {:.1f}x a ring's {:.0f} ({} passes x (N - 1) x {} floats). "
      "The sums are right, but the bytes are not a ring's: a ring sends each GPU's 1/N chunk to its "
      "neighbour at every step, so all N links work at once and each carries 2 (N - 1) / N of the buffer. "
      "Look for a copy that moves more than one chunk, or a GPU that every copy goes through.",
      N, busiest, by_receive ? "received" : "sent", c.measured, c.measured / std::max(1.0, c.limit), c.limit,
      last.passes, chunk);
  return c;
}

}  // namespace

bool set_program_runner(ProgramRunner r) {
  runner() = std::move(r);
  return true;
}

CheckReport check_program_exercise(const Lesson& lesson, const Exercise& ex, const CheckOptions& opts,
                                   CheckReport rep) {
  const std::string path = rep.file;
  auto fail = [&](std::string stage, std::string msg) {
    rep.stage = std::move(stage);
    rep.message = std::move(msg);
    rep.passed = false;
    return rep;
  };
  if (!runner()) return fail("launch", "this exercise runs a program on simulated GPUs: check it with `gpulab check`");
  auto checks = [&](const char* name) { return std::find(ex.checks.begin(), ex.checks.end(), name) != ex.checks.end(); };
  const std::vector<std::string> sources = {lesson.path(ex.program), path},
                                 solution = {lesson.path(ex.program), lesson.path(ex.solution)};
  const double tol = ex.tolerance.value_or(1e-5);

  // Every run the rules below read, started before the first is read: the
  // student's runs and the solution's (each of those once, by GPUs,
  // arguments and link), in the order the rules read them.
  RunPool pool;
  std::vector<std::shared_future<RunOutput>> got_runs;
  using RunKey = std::tuple<int, std::string, std::string>;  // GPUs, arguments, link
  std::map<RunKey, std::shared_future<RunOutput>> refs;
  auto add_reference = [&](int gpus, const std::string& args, const ProgramRun& like) {
    auto key = RunKey{gpus, args, like.link};
    if (!refs.count(key)) {
      ProgramRun r = like;
      r.gpus = gpus;
      r.args = args;
      refs[key] = pool.add([&, r] { return run_once(solution, ex.defines, r, *opts.gpu); });
    }
    return refs[key];
  };
  // With --solution the checked file is the solution: the student's run is
  // the solution's with the same arguments, one command, run once.
  const bool checking_solution = sources == solution;
  for (const ProgramRun& run : ex.runs) {
    got_runs.push_back(checking_solution ? add_reference(run.gpus, run.args, run)
                                         : pool.add([&, run] { return run_once(sources, ex.defines, run, *opts.gpu); }));
    if (checks("loss")) add_reference(1, run.reference_args.empty() ? run.args : run.reference_args, run);
    if (checks("peak")) add_reference(run.gpus, run.args, run);
  }
  pool.start();
  auto reference = [&](int gpus, const std::string& args, const ProgramRun& like) -> const RunOutput& {
    return refs.at(RunKey{gpus, args, like.link}).get();
  };

  std::optional<CriterionResult> links;       // the last run's, once every run has held
  std::optional<CriterionResult> first_peak;  // the first run's, once every run has held
  for (size_t i = 0; i < ex.runs.size(); ++i) {
    const ProgramRun& run = ex.runs[i];
    SizeResult sr;
    sr.sizes = {{"gpus", run.gpus}};
    const RunOutput& got = got_runs[i].get();
    if (!got.ok) {
      sr.message = got.failure;
      rep.sizes.push_back(sr);
      return fail(got.failure.rfind("nvcc", 0) == 0 ? "compile" : "launch", got.failure);
    }
    if (checks("sums")) sr.message = rule_sums(run, got, tol, sr);
    if (sr.message.empty() && checks("loss")) {
      const RunOutput& ref = reference(1, run.reference_args.empty() ? run.args : run.reference_args, run);
      if (!ref.ok) return fail("launch", "the lesson's program on one GPU: " + ref.failure);
      sr.message = rule_loss(run, got, ref, tol);
    }
    sr.ok = sr.message.empty();
    rep.sizes.push_back(sr);
    if (!sr.ok) return fail("correctness", sr.message);
    if (checks("peak")) {
      const RunOutput& ref = reference(run.gpus, run.args, run);
      if (!ref.ok) return fail("launch", "the lesson's program with the solution: " + ref.failure);
      CriterionResult c = rule_peak(path, run, got, ref);
      if (!c.ok) {
        rep.criteria.push_back(std::move(c));
        return fail("criteria", "right losses, but not a micro-batch's memory: see max_gpu_peak_bytes");
      }
      if (&run == &ex.runs.front()) first_peak = std::move(c);  // the lesson's own configuration, reported
    }
    // Every criterion holds on every run: a ring right for one GPU count and
    // a gather for another is not a ring.
    if (checks("links")) {
      links = rule_links(path, run, got);
      if (!links->ok) {
        rep.criteria.push_back(std::move(*links));
        return fail("criteria", "correct sums, but not a ring's traffic: see max_gpu_link_bytes");
      }
    }
  }
  if (first_peak) rep.criteria.push_back(std::move(*first_peak));
  if (links) rep.criteria.push_back(std::move(*links));
  rep.stage = "passed";
  rep.passed = true;
  rep.message = checks("links") ? "the gradients are summed right on every run, and no GPU's link carries more than a "
                                  "ring's share"
                                : "the losses are the reference's at every step, within the memory it needs";
  return rep;
}

}  // namespace lab::lesson
