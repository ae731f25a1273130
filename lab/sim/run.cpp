#include "lab/sim/run.h"

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "lab/compile/nvrtc.h"
#include "lab/ptx/parser.h"
#include "lab/sim/device.h"

namespace lab::sim {
namespace fs = std::filesystem;

std::string load_ptx(const std::string& file, const std::string& gpu, const std::vector<std::string>& defines) {
  std::error_code ec;
  if (!fs::exists(file, ec))
    throw RunError(fmt::format("{}: no such file (give the path of a .cu or .ptx file)", file));
  if (fs::path(file).extension() == ".ptx") {
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  compile::CompileOptions opts;
  opts.arch = std::string(gpu_model(gpu).ptx_target);
  opts.defines = defines;
  return compile::compile_file_to_ptx(file, opts);
}

static std::string demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = (status == 0 && d) ? std::string(d) : name;
  std::free(d);
  return out;
}

size_t resolve_kernel(const ptx::Module& module, const std::string& name, const std::string& file) {
  for (size_t i = 0; i < module.kernels.size(); ++i)
    if (module.kernels[i].name == name) return i;
  // A kernel without extern "C" has a mangled name: _Z<len><name><params>.
  std::string mangled_prefix = fmt::format("_Z{}{}", name.size(), name);
  std::vector<size_t> matches;
  for (size_t i = 0; i < module.kernels.size(); ++i)
    if (module.kernels[i].name.rfind(mangled_prefix, 0) == 0) matches.push_back(i);
  if (matches.size() == 1) return matches[0];
  std::string have;
  for (const auto& k : module.kernels) {
    std::string shown = demangle(k.name);
    have += fmt::format("\n  {}", shown == k.name ? k.name : fmt::format("{}  ({})", shown, k.name));
  }
  if (matches.size() > 1)
    throw RunError(fmt::format("{}: kernel '{}' is overloaded; pass the exact (mangled) name, one of:{}", file, name, have));
  if (module.kernels.empty())
    throw RunError(fmt::format("{}: no __global__ kernel found; does the file define one?", file));
  throw RunError(fmt::format("{}: no kernel named '{}'; the file has:{}", file, name, have));
}

void check_launch_limits(const ptx::Kernel& kernel, const LaunchConfig& cfg, const std::string& gpu) {
  const GpuModel& g = gpu_model(gpu);
  const Dim3& b = cfg.block;
  const Dim3& grid = cfg.grid;
  auto fail = [&](const std::string& why) {
    throw RunError(fmt::format("kernel '{}': launch --grid {},{},{} --block {},{},{} is not possible on {}: {}",
                               kernel.name, grid.x, grid.y, grid.z, b.x, b.y, b.z, g.name, why));
  };
  if (b.x == 0 || b.y == 0 || b.z == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0)
    fail("every grid and block dimension must be at least 1");
  if (b.count() > uint64_t(g.max_threads_per_block))
    fail(fmt::format("{} threads per block exceeds the limit of {}", b.count(), g.max_threads_per_block));
  // Limits per GPU model (device.h cites the CUDA Programming Guide table).
  if (b.x > uint32_t(g.max_block_dim[0]) || b.y > uint32_t(g.max_block_dim[1]) || b.z > uint32_t(g.max_block_dim[2]))
    fail(fmt::format("block dimensions are limited to {} x {} x {}", g.max_block_dim[0], g.max_block_dim[1], g.max_block_dim[2]));
  if (grid.x > g.max_grid_dim[0] || grid.y > g.max_grid_dim[1] || grid.z > g.max_grid_dim[2])
    fail("grid dimensions are limited to 2147483647 x 65535 x 65535");
  for (int d = 0; d < 3; ++d) {
    uint32_t bd = d == 0 ? b.x : d == 1 ? b.y : b.z;
    if (kernel.reqntid[d] && bd != kernel.reqntid[d])
      fail(fmt::format("the kernel requires .reqntid {},{},{}", kernel.reqntid[0], kernel.reqntid[1], kernel.reqntid[2]));
  }
  uint64_t smem = uint64_t(kernel.static_shared_bytes) + cfg.dynamic_shared_bytes;
  if (smem > uint64_t(g.shared_per_block_optin))
    fail(fmt::format("{} bytes of shared memory per block ({} static + {} dynamic) exceeds {}'s limit of {} bytes",
                     smem, kernel.static_shared_bytes, cfg.dynamic_shared_bytes, g.name, g.shared_per_block_optin));
}

// An access just past or before a buffer the specs made is often a correct
// kernel given too small a buffer: say which --arg to enlarge (or which bound
// check the kernel lacks). exec names buffers "argK" (arg_spec.cpp).
static void add_buffer_hints(RunOutcome& out) {
  for (KernelError& e : out.result.errors) {
    if (e.kind != "out-of-bounds") continue;
    for (size_t i = 0; i < out.specs.size(); ++i) {
      if (!out.specs[i].is_buffer) continue;
      std::string name = fmt::format("buffer 'arg{}'", i);
      size_t at = e.message.find(name);
      if (at == std::string::npos) continue;
      bool past = e.message.find(" is 0 bytes past the end") != std::string::npos;
      e.message += fmt::format(
          "; --arg {} '{}' holds {} elements: if the kernel is right, enlarge the buffer for this launch, "
          "otherwise the kernel needs a bounds check{}",
          i, out.specs[i].text, out.args.buffer_bytes[i] / uint64_t(elem_bytes(out.specs[i].type)),
          past ? " (the first element past the end: `<=` where `<` was meant?)" : "");
      break;
    }
  }
}

int ptxas_registers(const std::string& ptx, const std::string& gpu, const std::string& kernel) {
  try {
    for (const auto& u : compile::resource_usage(ptx, std::string(gpu_model(gpu).sm_arch)))
      if (u.kernel == kernel) return u.registers;
  } catch (const std::exception&) {
    // ptxas unavailable or the PTX does not assemble for this model: 32 assumed.
  }
  return 0;
}

RunOutcome run_kernel(const RunRequest& req) {
  RunOutcome out;
  out.ptx = load_ptx(req.file, req.gpu, req.defines);
  out.module = ptx::parse(out.ptx, req.file);
  out.kernel_index = resolve_kernel(out.module, req.kernel, req.file);
  const ptx::Kernel& k = out.kernel();
  check_launch_limits(k, req.launch, req.gpu);
  for (const auto& a : req.args) out.specs.push_back(parse_arg_spec(a));

  // Refuse launches whose buffers cannot fit in this machine's memory rather
  // than dying in the allocator.
  uint64_t want = 0;
  for (const auto& s : out.specs)
    if (s.is_buffer && !s.count_from_file) want += s.count * uint64_t(elem_bytes(s.type));
  uint64_t phys = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
  if (want > phys / 2)
    throw RunError(fmt::format("the --arg buffers need {:.1f} GiB but this machine has {:.1f} GiB of memory; use smaller sizes",
                               double(want) / (1ull << 30), double(phys) / (1ull << 30)));

  out.memory = std::make_unique<GlobalMemory>();
  out.args = prepare_args(k, out.specs, *out.memory);
  SimOptions opts = req.options;
  opts.gpu = req.gpu;
  if (opts.timing.mode != TimingMode::Off && opts.timing.registers_per_thread == 0)
    opts.timing.registers_per_thread = ptxas_registers(out.ptx, req.gpu, k.name);
  out.result = launch(out.module, k, req.launch, out.args.params, *out.memory, opts);
  add_buffer_hints(out);
  return out;
}

}  // namespace lab::sim
