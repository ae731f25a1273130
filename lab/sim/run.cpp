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

std::string load_ptx(const std::string& file, const GpuModel& gpu, const std::vector<std::string>& defines) {
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
  opts.arch = std::string(gpu.ptx_target);
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

RunOutcome run_kernel(const RunRequest& req) {
  RunOutcome out;
  out.compiled = compile_kernel({req.file, req.kernel, req.defines, {}}, *req.gpu);
  const ptx::Kernel& k = out.kernel();
  // Refused before any buffer is made, as the GPU refuses it (limits.h).
  check_launch_limits(k, req.launch, *req.gpu, out.compiled.resources());
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
  out.result = launch(out.compiled, req.launch, out.args.params, *out.memory, req.options);
  add_buffer_hints(out);
  return out;
}

}  // namespace lab::sim
