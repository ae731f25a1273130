// gpulab validate: every GEMM version in the simulator beside the same kernel
// on a real GPU (live, or recorded earlier with --record); with --published,
// kernels others timed; with --sass, one kernel's shared-load widths beside
// ptxas's.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <new>

#include <fmt/format.h>

#include "lab/bench/published.h"
#include "lab/bench/sass_widths.h"
#include "lab/bench/validate.h"
#include "lab/cli/command.h"
#include "lab/cli/version_names.h"
#include "lab/cli/gpu_option.h"

namespace lab::cli {
namespace {

struct ValidateArgs {
  bench::ValidateOptions o;
  bench::PublishedOptions pub;  // --published: timings others published (lab/bench/published.h)
  std::string gpu = "H100";
  bool json = false, quiet = false;
  std::string sass_file, kernel;  // --sass FILE --kernel K
  std::vector<std::string> defines;
};

// gpulab validate --sass FILE --kernel K: the model's shared-load widths
// beside ptxas's; exit 1 when a line differs.
int run_sass_cmd(const ValidateArgs& a) {
  if (a.kernel.empty()) {
    std::fprintf(stderr, "gpulab validate --sass %s: give --kernel NAME, the kernel to compare\n", a.sass_file.c_str());
    return kExitUsage;
  }
  bench::SassWidthsReport rep;
  try {
    rep = bench::compare_sass_widths(a.sass_file, a.kernel, resolved_gpu(a.gpu), a.defines);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpulab validate --sass %s --kernel %s: %s\n", a.sass_file.c_str(), a.kernel.c_str(), e.what());
    return kExitUsage;
  }
  std::fputs(bench::format_sass_widths(rep).c_str(), stdout);
  return rep.agrees() ? kExitOk : kExitKernelFault;
}

// gpulab validate --published FILE --mirror DIR: markdown (or --json) on stdout.
int run_published_cmd(ValidateArgs& a, const std::string& command_line) {
  a.pub.threads = a.o.threads;
  if (!a.quiet) a.pub.progress = [](const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); };
  bench::PublishedReport rep;
  try {
    rep = bench::run_published(a.pub);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpulab validate --published: %s\n", e.what());
    return kExitUsage;
  }
  rep.command = command_line;
  if (a.json) std::puts(bench::published_json(rep).dump(2).c_str());
  else std::fputs(bench::format_published_markdown(rep).c_str(), stdout);
  return kExitOk;
}

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
  cmd->add_option("--published", a->pub.file,
                  "timings others published (docs/fidelity/published.json): predict each kernel beside them");
  cmd->add_option("--mirror", a->pub.mirror, "with --published: folder of repository snapshots (owner+name/repo)");
  cmd->add_option("--table", a->pub.only_tables, "with --published: only these tables");
  cmd->add_option("--label", a->pub.only_kernels, "with --published: only these kernels (labels)");
  cmd->add_option("--sample-blocks", a->pub.sample_blocks,
                  "with --published: simulate at most this many blocks (first rows of the grid) and scale their "
                  "counters to the grid (0 = whole grid)");
  cmd->add_flag("--measure", a->pub.measure_on_gpu,
                "with --published: also time each kernel on this machine's GPU (full launch, events)");
  cmd->add_flag("--measure-only", a->pub.measure_only,
                "with --published: time each kernel on this machine's GPU and skip the simulator");
  cmd->add_option("--sass", a->sass_file,
                  "a .cu file: its kernel's shared loads as the cycle model times them beside the LDS instructions "
                  "ptxas makes for the GPU model (needs nvdisasm; .ci/bootstrap installs it)");
  cmd->add_option("--kernel", a->kernel, "with --sass: the kernel");
  cmd->add_option("-D,--define", a->defines, "with --sass: preprocessor definition, NAME=VALUE");
  cmd->add_flag("--json", a->json, "JSON instead of the table");
  cmd->add_flag("--quiet", a->quiet, "no progress lines");
  cmd->callback([a, &rc, cmd] {
    std::string line = "gpulab validate";
    for (const auto* opt : cmd->get_options())
      if (opt->count() && opt->get_name() != "--help")
        for (const auto& r : opt->results()) line += fmt::format(" {} {}", opt->get_name(), r);
    if (a->pub.measure_only) a->pub.measure_on_gpu = true;
    if (!a->sass_file.empty()) {
      rc = run_sass_cmd(*a);
    } else if (!a->pub.file.empty()) {
      if (a->pub.mirror.empty()) {
        std::fprintf(stderr, "gpulab validate --published: give --mirror DIR, the folder holding the snapshots of "
                             "the repositories the file names (DIR/owner+name/repo, a git directory)\n");
        rc = kExitUsage;
      } else {
        rc = run_published_cmd(*a, line);
      }
    } else {
      rc = run_validate_cmd(*a, line);
    }
  });
});

}  // namespace
}  // namespace lab::cli
