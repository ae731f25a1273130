#include "lab/cli/sim_output.h"

#include <optional>

#include <fmt/format.h>

#include "lab/compile/nvrtc.h"
#include "lab/sim/device.h"
#include "lab/sim/report.h"

namespace lab::cli {

static nlohmann::json dim_json(const sim::Dim3& d) { return {d.x, d.y, d.z}; }

static nlohmann::json error_json(const sim::KernelError& e) {
  nlohmann::json j = {{"kind", e.kind}, {"message", e.message}, {"count", e.count}};
  if (!e.file.empty()) j["file"] = e.file;
  if (e.line) j["line"] = e.line;
  if (e.ptx_line) j["ptx_line"] = e.ptx_line;
  j["block"] = dim_json(e.block);
  j["thread"] = dim_json(e.thread);
  nlohmann::json threads = nlohmann::json::array();  // the first few offenders
  for (const auto& o : e.offenders) threads.push_back({{"block", dim_json(o.block)}, {"thread", dim_json(o.thread)}});
  j["threads"] = threads;
  return j;
}

SimReport build_sim_report(const sim::RunOutcome& run, const sim::RunRequest& req) {
  const auto& res = run.result;
  const auto& m = res.metrics;
  SimReport r;
  nlohmann::json errors = nlohmann::json::array();
  for (const auto& e : res.errors) errors.push_back(error_json(e));
  nlohmann::json metrics = {
      {"thread_instructions", m.total_thread_insts()},
      {"warp_instructions", m.total_warp_insts()},
      {"blocks", m.blocks},
      {"warps", m.warps},
      {"threads", m.threads},
      {"sim_seconds", m.sim_seconds},
      {"sim_cpu_seconds", m.sim_cpu_seconds},
  };
  r.json = {{"kernel", run.kernel().name}, {"backend", "sim"}, {"gpu", std::string(req.gpu->name)},
            {"grid", dim_json(req.launch.grid)}, {"block", dim_json(req.launch.block)},
            {"ok", res.ok}, {"errors", errors}, {"metrics", metrics}};
  // --sample runs only the blocks the cycle model times: say so where a reader looks.
  r.json["outputs_incomplete"] = m.cycle && m.cycle->outputs_incomplete;
  if (!res.printf_output.empty()) r.json["printf"] = res.printf_output;  // the kernel's printf output

  // The machine model's view: registers and static shared memory from ptxas
  // for the model's architecture, then memory metrics, occupancy, the
  // predicted time and per-line metrics.
  const sim::GpuModel& gpu = *req.gpu;
  r.json["gpu"] = std::string(gpu.name);
  std::string model_text;
  try {
    sim::KernelReport kr = sim::build_report(run.compiled, req.launch, m);
    const nlohmann::json model_metrics = kr.to_metrics_json();
    for (const auto& [key, value] : model_metrics.items()) r.json["metrics"][key] = value;
    r.json["predicted"] = kr.to_predicted_json();
    r.json["lines"] = kr.to_lines_json();
    model_text = kr.text();
  } catch (const std::exception& e) {
    r.json["predicted"] = {{"gpu", std::string(gpu.name)}, {"error", e.what()}};
    model_text = fmt::format("  (no machine-model report: {})\n", e.what());
  }

  std::string& t = r.text;
  t += fmt::format("kernel {}  grid {}x{}x{}  block {}x{}x{}  simulated as {}\n", run.kernel().name,
                   req.launch.grid.x, req.launch.grid.y, req.launch.grid.z, req.launch.block.x,
                   req.launch.block.y, req.launch.block.z, req.gpu->name);
  t += fmt::format("  {} thread instructions, {} warp instructions, simulated in {:.3f} s\n",
                   m.total_thread_insts(), m.total_warp_insts(), m.sim_seconds);
  t += model_text;
  if (res.errors.empty()) {
    t += "  no errors\n";
  } else {
    t += fmt::format("  {} error{}:\n", res.errors.size(), res.errors.size() == 1 ? "" : "s");
    for (const auto& e : res.errors) {
      std::string where = e.line ? fmt::format("{}:{}: ", e.file, e.line) : std::string();
      t += fmt::format("  {}{}: {} (block {},{},{} thread {},{},{}{})\n", where, e.kind, e.message, e.block.x,
                       e.block.y, e.block.z, e.thread.x, e.thread.y, e.thread.z,
                       e.count > 1 ? fmt::format("; {} times", e.count) : "");
      if (e.offenders.size() > 1) {  // name the first few threads, not only the first
        std::string more;
        for (size_t i = 1; i < e.offenders.size(); ++i) {
          const auto& o = e.offenders[i];
          more += fmt::format("{}block {},{},{} thread {},{},{}", i > 1 ? "; " : "", o.block.x, o.block.y, o.block.z,
                              o.thread.x, o.thread.y, o.thread.z);
        }
        t += fmt::format("      also: {}{}\n", more, e.count > e.offenders.size() ? "; ..." : "");
      }
    }
  }
  return r;
}

}  // namespace lab::cli
