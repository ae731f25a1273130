#include "lab/compile/nvrtc.h"

#include "lab/compile/process.h"

#include <nvJitLink.h>
#include <nvrtc.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

#include <fmt/format.h>

#ifndef GPULAB_CUDA_INCLUDE
#define GPULAB_CUDA_INCLUDE "/usr/local/cuda/include"
#endif

namespace lab::compile {
namespace fs = std::filesystem;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open file (check the path)", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// FNV-1a over everything that changes the PTX: a cache key.
uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

void write_atomically(const fs::path& path, const std::string& text) {
  fs::path tmp = path;
  tmp += fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) return;  // a cache that cannot be written is only slower
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace

std::string cache_dir() {
  if (const char* d = std::getenv("GPULAB_CACHE"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/gpulab";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/gpulab";
  return (fs::temp_directory_path() / "gpulab-cache").string();
}

std::string compile_to_ptx(const std::string& source, const std::string& filename,
                           const CompileOptions& options) {
  std::vector<std::string> args = {"--gpu-architecture=" + options.arch, "-std=c++17",
                                   "-default-device", "-I" GPULAB_CUDA_INCLUDE,
                                   // CUDA 13 keeps libcu++/CUB/Thrust (CCCL) in include/cccl; nvcc adds it
                                   // itself, NVRTC does not (cooperative_groups.h needs cuda/std/*).
                                   "-I" GPULAB_CUDA_INCLUDE "/cccl"};
  if (options.lineinfo) args.push_back("-lineinfo");
  for (const auto& d : options.defines) args.push_back("-D" + d);
  for (const auto& i : options.include_dirs) args.push_back("-I" + i);

  int nvrtc_major = 0, nvrtc_minor = 0;
  nvrtcVersion(&nvrtc_major, &nvrtc_minor);
  // NVRTC writes the file's absolute path into the .file lines, so the same
  // relative name in another directory is a different compile.
  std::error_code cwd_ec;
  std::string key_text = fmt::format("{}.{}\n{}\n{}\n", nvrtc_major, nvrtc_minor,
                                     fs::current_path(cwd_ec).string(), filename);
  for (const auto& a : args) key_text += a + "\n";
  key_text += source;
  fs::path cached = fs::path(cache_dir()) / fmt::format("{:016x}.ptx", fnv1a(key_text));
  if (options.use_cache) {
    std::error_code ec;
    if (fs::exists(cached, ec)) return read_text(cached.string());
  }

  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, source.c_str(), filename.c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS)
    throw std::runtime_error("NVRTC could not create a program (is the CUDA toolkit installed?)");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  nvrtcResult rc = nvrtcCompileProgram(prog, int(argv.size()), argv.data());
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 1) nvrtcGetProgramLog(prog, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (rc != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&prog);
    throw CompileError(filename, log.empty() ? nvrtcGetErrorString(rc) : log);
  }
  size_t ptx_size = 0;
  nvrtcGetPTXSize(prog, &ptx_size);
  std::string ptx(ptx_size, '\0');
  nvrtcGetPTX(prog, ptx.data());
  nvrtcDestroyProgram(&prog);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();

  if (options.use_cache) {
    std::error_code ec;
    fs::create_directories(cached.parent_path(), ec);
    if (!ec) write_atomically(cached, ptx);
  }
  return ptx;
}

std::string compile_file_to_ptx(const std::string& path, const CompileOptions& options) {
  CompileOptions opts = options;
  // Headers beside the kernel (shared helpers of a progression) are found.
  opts.include_dirs.push_back(fs::absolute(path).parent_path().string());
  return compile_to_ptx(read_text(path), path, opts);
}

namespace {
// ptxas's verbose log through nvJitLink, which assembles relocatable code
// (`ptxas -c`; see ptxas_info).
std::string ptxas_relocatable(const std::string& ptx, const std::string& sm_arch) {
  nvJitLinkHandle handle;
  std::string arch_opt = "-arch=" + sm_arch;
  const char* opts[] = {arch_opt.c_str(), "-verbose"};
  if (nvJitLinkCreate(&handle, 2, opts) != NVJITLINK_SUCCESS)
    throw std::runtime_error("nvJitLink: cannot create a linker for " + sm_arch);
  nvJitLinkResult rc = nvJitLinkAddData(handle, NVJITLINK_INPUT_PTX, ptx.data(), ptx.size(), "kernel.ptx");
  if (rc == NVJITLINK_SUCCESS) rc = nvJitLinkComplete(handle);
  auto get_log = [&](bool error) {
    size_t n = 0;
    if (error) nvJitLinkGetErrorLogSize(handle, &n); else nvJitLinkGetInfoLogSize(handle, &n);
    std::string s(n, '\0');
    if (n) { if (error) nvJitLinkGetErrorLog(handle, s.data()); else nvJitLinkGetInfoLog(handle, s.data()); }
    return s;
  };
  std::string info = get_log(false);
  if (rc != NVJITLINK_SUCCESS) {
    std::string err = get_log(true);
    nvJitLinkDestroy(&handle);
    throw std::runtime_error("ptxas (through nvJitLink) rejected the PTX for " + sm_arch + ":\n" + err);
  }
  nvJitLinkDestroy(&handle);
  return info;
}

// The toolkit's ptxas on `ptx` as a whole program; `ran` false (and nothing
// returned) where it is absent, could not be started or refused the PTX (a
// module that calls functions defined elsewhere): nvJitLink answers then,
// and reports the error if the PTX itself is at fault.
std::string ptxas_whole_program(const std::string& ptx, const std::string& sm_arch, const fs::path& dir, bool& ran) {
  ran = false;
  std::error_code ec;
  if (!fs::exists(GPULAB_PTXAS, ec)) return {};
  fs::create_directories(dir, ec);
  const fs::path input = dir / fmt::format("ptxas-{}-{:016x}.ptx", getpid(), fnv1a(ptx));
  write_atomically(input, ptx);
  std::string out;
  const int rc = run_capture({GPULAB_PTXAS, "-arch=" + sm_arch, "-v", input.string(), "-o", "/dev/null"}, out);
  fs::remove(input, ec);
  if (rc != 0) return {};
  ran = true;
  return out;
}

// ptxas's verbose log for `ptx` on `sm_arch`, kept in the cache beside the
// PTX so that a kernel is assembled once, not once per run.
//
// The GPU runs a module's PTX as the driver compiles it, a whole program
// (cuModuleLoadDataEx; nvcc without -rdc does the same). nvJitLink assembles
// PTX as relocatable code (`ptxas -c`), whose register allocation differs:
// 09_tensor_core_mma for sm_90 gets 150 registers from nvJitLink, 126 from
// `ptxas` (1 block per SM against 2), and the SASS nvcc makes for it uses
// R0-R124 (docs/fidelity/h200/gemm-sm90.sass.xz). So the toolkit's ptxas
// is asked, as a whole program; nvJitLink only where that binary is absent.
std::string ptxas_info(const std::string& ptx, const std::string& sm_arch) {
  unsigned major = 0, minor = 0;
  nvJitLinkVersion(&major, &minor);
  fs::path cached = fs::path(cache_dir()) /
                    fmt::format("{:016x}.ptxas", fnv1a(fmt::format("{}.{}\n{}\nwhole program\n", major, minor, sm_arch) + ptx));
  std::error_code ec;
  if (fs::exists(cached, ec)) return read_text(cached.string());
  bool ran = false;
  std::string info = ptxas_whole_program(ptx, sm_arch, cached.parent_path(), ran);
  if (!ran) info = ptxas_relocatable(ptx, sm_arch);
  fs::create_directories(cached.parent_path(), ec);
  if (!ec) write_atomically(cached, info);
  return info;
}
}  // namespace

std::vector<ResourceUsage> resource_usage(const std::string& ptx, const std::string& sm_arch) {
  const std::string info = ptxas_info(ptx, sm_arch);
  // ptxas's verbose lines, one group per kernel:
  //   ptxas info    : Compiling entry function 'k' for 'sm_90'
  //   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  //   ptxas info    : Used 32 registers, used 1 barriers, 2112 bytes smem
  std::vector<ResourceUsage> out;
  std::istringstream lines(info);
  std::string line;
  static const std::regex entry_re(R"(Compiling entry function '([^']+)')");
  static const std::regex stack_re(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex regs_re(R"(Used (\d+) registers)");
  static const std::regex bar_re(R"(used (\d+) barriers)");
  static const std::regex smem_re(R"((\d+) bytes smem)");
  std::smatch m;
  while (std::getline(lines, line)) {
    if (line.rfind("ptxas", 0) != 0) continue;
    if (std::regex_search(line, m, entry_re)) {
      out.push_back({});
      out.back().kernel = m[1];
    } else if (!out.empty() && std::regex_search(line, m, stack_re)) {
      out.back().local_bytes = std::stoi(m[1]);
      out.back().spill_stores = std::stoi(m[2]);
      out.back().spill_loads = std::stoi(m[3]);
    } else if (!out.empty() && std::regex_search(line, m, regs_re)) {
      out.back().registers = std::stoi(m[1]);
      if (std::regex_search(line, m, bar_re)) out.back().barriers = std::stoi(m[1]);
      if (std::regex_search(line, m, smem_re)) out.back().static_shared_bytes = std::stoi(m[1]);
    }
  }
  return out;
}

}  // namespace lab::compile
