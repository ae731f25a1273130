#include "lab/cli/sim_output.h"

#include <fmt/format.h>

namespace lab::cli {

static nlohmann::json dim_json(const sim::Dim3& d) { return {d.x, d.y, d.z}; }

static nlohmann::json error_json(const sim::KernelError& e) {
  nlohmann::json j = {{"kind", e.kind}, {"message", e.message}, {"count", e.count}};
  if (!e.file.empty()) j["file"] = e.file;
  if (e.line) j["line"] = e.line;
  if (e.ptx_line) j["ptx_line"] = e.ptx_line;
  j["block"] = dim_json(e.block);
  j["thread"] = dim_json(e.thread);
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
  };
  r.json = {{"kernel", run.kernel().name}, {"backend", "sim"}, {"gpu", req.gpu},
            {"grid", dim_json(req.launch.grid)}, {"block", dim_json(req.launch.block)},
            {"ok", res.ok}, {"errors", errors}, {"metrics", metrics}};

  std::string& t = r.text;
  t += fmt::format("kernel {}  grid {}x{}x{}  block {}x{}x{}  simulated as {}\n", run.kernel().name,
                   req.launch.grid.x, req.launch.grid.y, req.launch.grid.z, req.launch.block.x,
                   req.launch.block.y, req.launch.block.z, req.gpu);
  t += fmt::format("  {} thread instructions, {} warp instructions, simulated in {:.3f} s\n",
                   m.total_thread_insts(), m.total_warp_insts(), m.sim_seconds);
  if (res.errors.empty()) {
    t += "  no errors\n";
  } else {
    t += fmt::format("  {} error{}:\n", res.errors.size(), res.errors.size() == 1 ? "" : "s");
    for (const auto& e : res.errors) {
      std::string where = e.line ? fmt::format("{}:{}: ", e.file, e.line) : std::string();
      t += fmt::format("  {}{}: {} (block {},{},{} thread {},{},{}{})\n", where, e.kind, e.message, e.block.x,
                       e.block.y, e.block.z, e.thread.x, e.thread.y, e.thread.z,
                       e.count > 1 ? fmt::format("; {} times", e.count) : "");
    }
  }
  return r;
}

}  // namespace lab::cli
