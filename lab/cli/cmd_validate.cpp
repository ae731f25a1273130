// gpulab validate: every GEMM version in the simulator beside the same kernel
// on a real GPU (live, or recorded earlier with --record).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <new>

#include <fmt/format.h>

#include "lab/bench/validate.h"
#include "lab/cli/command.h"
#include "lab/cli/version_names.h"
#include "lab/cli/gpu_option.h"

namespace lab::cli {
namespace {

struct ValidateArgs {
  bench::ValidateOptions o;
  std::string gpu = "H100";
  bool json = false, quiet = false;
};

std::string self_exe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

int run_validate_cmd(ValidateArgs& a, const std::string& command_line) {
  a.o.self_exe = self_exe();
  a.o.gpu = &resolved_gpu(a.gpu);
  if (!a.quiet) a.o.progress = [](const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); };
  bench::ValidateReport rep;
  try {
    if (std::string bad = unknown_only_names(a.o.only, false); !bad.empty()) {
      std::fprintf(stderr, "gpulab validate: %s\n", bad.c_str());
      return kExitUsage;
    }
    // A, B, C in fp32 and the float64 reference: refuse up front what cannot
    // fit rather than fail (or swap) in the allocator.
    const double n2 = double(a.o.size) * double(a.o.size);
    const double need = n2 * (3 * 4 + 8);
    const double phys = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
    if (need > phys / 2) {
      std::fprintf(stderr, "gpulab validate: --size %d needs about %.1f GiB for the matrices and the reference, but this "
                           "machine has %.1f GiB of memory; use a smaller --size (at most about %d here)\n",
                   a.o.size, need / double(1ull << 30), phys / double(1ull << 30), int(std::sqrt(phys / 2 / 20)));
      return kExitUsage;
    }
    rep = bench::run_validate(a.o);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "gpulab validate: --size %d: the matrices do not fit in this machine's memory "
                         "(3 x %d^2 floats and the float64 reference); use a smaller --size\n", a.o.size, a.o.size);
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpulab validate: %s\n", e.what());
    return kExitUsage;
  }
  if (!a.o.record.empty()) {
    if (rep.gpu_source.rfind("live:", 0) != 0) {
      std::fprintf(stderr, "gpulab validate: --record needs a live GPU (this run's GPU side is %s)\n",
                   rep.gpu_source.c_str());
      return kExitUsage;
    }
    std::string tmp = a.o.record + ".tmp";
    std::ofstream(tmp) << bench::recorded_json(rep, command_line).dump(2) << "\n";
    std::filesystem::rename(tmp, a.o.record);
  }
  if (a.json) std::puts(bench::validate_json(rep).dump(2).c_str());
  else std::fputs(bench::format_validate(rep).c_str(), stdout);
  // Exit 1 when a side computed a wrong result: that is a finding.
  for (const auto& r : rep.rows)
    if ((r.sim.correct && !*r.sim.correct) || (r.gpu.correct && !*r.gpu.correct)) return kExitKernelFault;
  return kExitOk;
}

const bool registered = register_command([](CLI::App& app, int& rc) {
  auto a = std::make_shared<ValidateArgs>();
  auto* cmd = app.add_subcommand("validate", "Hold the simulator against a real GPU: results, Nsight Compute counters, time");
  cmd->add_option("--size", a->o.size, "M = N = K of the GEMM problem (default 256)")->check(CLI::PositiveNumber);
  add_gpu_option(cmd, a->gpu, "GPU model to simulate when no GPU is here (default H100)");
  cmd->add_option("--gpu-backend", a->o.gpu_backend, "cuda | none | auto (default auto)")
      ->check(CLI::IsMember({"cuda", "none", "auto"}));
  cmd->add_option("--against", a->o.against, "compare with GPU results recorded earlier (--record)");
  cmd->add_option("--record", a->o.record, "write the live GPU side to this JSON file");
  cmd->add_option("--only", a->o.only, "only these versions");
  cmd->add_option("--threads", a->o.threads, "simulator workers (0 = all cores)");
  cmd->add_flag("--json", a->json, "JSON instead of the table");
  cmd->add_flag("--quiet", a->quiet, "no progress lines");
  cmd->callback([a, &rc, cmd] {
    std::string line = "gpulab validate";
    for (const auto* opt : cmd->get_options())
      if (opt->count() && opt->get_name() != "--help")
        for (const auto& r : opt->results()) line += fmt::format(" {} {}", opt->get_name(), r);
    rc = run_validate_cmd(*a, line);
  });
});

}  // namespace
}  // namespace lab::cli
