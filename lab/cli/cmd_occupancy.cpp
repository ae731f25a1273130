// gpulab occupancy: occupancy of a hypothetical kernel on one GPU model, with
// the reason. Numbers from the toolkit's cuda_occupancy.h (lab/sim/occupancy).
//
//   gpulab occupancy --gpu H100 --block 256 --regs 64 --smem 16384 [--static-smem B] [--json] [--curves]
#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lab/cli/command.h"
#include "lab/cli/gpu_option.h"
#include "lab/sim/device.h"
#include "lab/sim/occupancy.h"

namespace {

struct OccupancyArgs {
  std::string gpu = "H100";
  int block = 0;
  int regs = 32;
  int smem = 0;
  int static_smem = 0;
  bool json = false;
  bool curves = false;
};

nlohmann::json limit_json(int v) {
  return v >= lab::sim::Occupancy::kUnlimited ? nlohmann::json(nullptr) : nlohmann::json(v);
}

nlohmann::json curve_json(const std::vector<lab::sim::OccupancyPoint>& pts) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : pts) a.push_back({p.x, p.warps_per_sm, p.occupancy});
  return a;
}

int run_occupancy(const OccupancyArgs& a) {
  using namespace lab::sim;
  const GpuModel* g = &lab::cli::resolved_gpu(a.gpu);  // --gpu was validated while parsing
  OccupancyInput in{a.block, a.regs, a.static_smem, a.smem};
  Occupancy o;
  try {
    o = compute_occupancy(*g, in);
  } catch (const OccupancyError& e) {
    std::fprintf(stderr, "gpulab occupancy: %s\n", e.what());
    return lab::cli::kExitUsage;
  }
  if (a.json) {
    nlohmann::json j;
    j["gpu"] = std::string(g->name);
    j["block"] = a.block;
    j["regs"] = a.regs;
    j["smem"] = a.smem;
    j["static_smem"] = a.static_smem;
    j["blocks_per_sm"] = o.blocks_per_sm;
    j["warps_per_block"] = o.warps_per_block;
    j["warps_per_sm"] = o.warps_per_sm;
    j["max_warps_per_sm"] = o.max_warps_per_sm;
    j["occupancy"] = o.occupancy;
    j["limiter"] = limiter_name(o.limiter);
    nlohmann::json ls = nlohmann::json::array();
    for (auto l : o.limiters) ls.push_back(limiter_name(l));
    j["limiters"] = ls;
    j["limits"] = {{"warps", limit_json(o.limit_warps)},
                   {"registers", limit_json(o.limit_registers)},
                   {"shared_memory", limit_json(o.limit_shared)},
                   {"blocks", limit_json(o.limit_blocks)}};
    j["allocated_registers_per_block"] = o.allocated_regs_per_block;
    j["allocated_shared_per_block"] = o.allocated_shared_per_block;
    j["shared_opt_in"] = o.shared_opt_in;
    j["explanation"] = o.explanation;
    j["advice"] = o.advice;
    if (a.curves) {
      OccupancyCurves c = occupancy_curves(*g, in);
      // Each point: [x, active warps per SM, occupancy].
      j["curves"] = {{"block_size", curve_json(c.vs_block_size)},
                     {"registers", curve_json(c.vs_registers)},
                     {"shared_memory", curve_json(c.vs_shared_memory)}};
    }
    std::printf("%s\n", j.dump(2).c_str());
    return lab::cli::kExitOk;
  }
  auto lim = [](int v) { return v >= Occupancy::kUnlimited ? std::string("-") : std::to_string(v); };
  std::printf("%s", fmt::format("{} ({}), block {} threads, {} registers/thread, {} B shared/block{}\n\n",
                                g->name, g->full_name, a.block, a.regs, a.static_smem + a.smem,
                                o.shared_opt_in ? " (opt-in above 48 KB)" : "")
                        .c_str());
  std::printf("%s", fmt::format("  occupancy      {:.0f}%  ({} of {} warps per SM)\n", o.occupancy * 100,
                                o.warps_per_sm, o.max_warps_per_sm)
                        .c_str());
  std::printf("%s", fmt::format("  blocks per SM  {}  (limited by {})\n\n", o.blocks_per_sm,
                                limiter_name(o.limiter))
                        .c_str());
  std::printf("  blocks per SM allowed by each limit:\n");
  std::printf("%s", fmt::format("    warps          {:>4}   ({} warps per block, {} per SM)\n", lim(o.limit_warps),
                                o.warps_per_block, o.max_warps_per_sm)
                        .c_str());
  std::printf("%s", fmt::format("    registers      {:>4}   ({} registers allocated per block, {} per SM)\n",
                                lim(o.limit_registers), o.allocated_regs_per_block, g->regs_per_sm)
                        .c_str());
  std::printf("%s", fmt::format("    shared memory  {:>4}   ({} B allocated per block incl. {} B reserved, {} B per SM)\n",
                                lim(o.limit_shared), o.allocated_shared_per_block, g->reserved_shared_per_block,
                                g->shared_per_sm)
                        .c_str());
  std::printf("%s", fmt::format("    blocks         {:>4}\n", lim(o.limit_blocks)).c_str());
  if (!o.advice.empty()) {
    std::printf("\n  to raise occupancy:\n");
    for (const auto& s : o.advice) std::printf("    - %s\n", s.c_str());
  }
  return lab::cli::kExitOk;
}

const bool registered = lab::cli::register_command([](CLI::App& app, int& rc) {
  auto args = std::make_shared<OccupancyArgs>();
  auto* cmd = app.add_subcommand("occupancy", "Occupancy of a kernel shape on a GPU model, and what limits it");
  lab::cli::add_gpu_option(cmd, args->gpu, "GPU model (default H100)");
  cmd->add_option("--block", args->block, "threads per block")->required();
  cmd->add_option("--regs", args->regs, "registers per thread (default 32)");
  cmd->add_option("--smem", args->smem, "dynamic shared memory per block, bytes (opts in above 48 KB)");
  cmd->add_option("--static-smem", args->static_smem, "static __shared__ bytes per block");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->add_flag("--curves", args->curves, "with --json: add the calculator's three curves");
  cmd->callback([args, &rc] { rc = run_occupancy(*args); });
});

}  // namespace
