#include "lab/compile/nvrtc.h"

#include "lab/compile/cache_file.h"
#include "lab/compile/nvrtc_call.h"
#include "lab/compile/process.h"

#include <nvJitLink.h>
#include <nvrtc.h>

#include <atomic>
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

}  // namespace

std::string cache_dir() {
  if (const char* d = std::getenv("GPULAB_CACHE"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/gpulab";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/gpulab";
  return (fs::temp_directory_path() / "gpulab-cache").string();
}

namespace {

// gpulab-nvrtc (lab/nvrtc_helper/main.cpp): beside this executable (a build
// moved elsewhere), else where the build put it; empty where neither is.
const std::string& nvrtc_helper_path() {
  static const std::string path = [] {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec && fs::exists(self.parent_path() / "gpulab-nvrtc", ec)) return (self.parent_path() / "gpulab-nvrtc").string();
#ifdef GPULAB_NVRTC_HELPER
    if (fs::exists(GPULAB_NVRTC_HELPER, ec)) return std::string(GPULAB_NVRTC_HELPER);
#endif
    return std::string();
  }();
  return path;
}

// The compile in gpulab-nvrtc, whose fixed address layout makes its PTX the
// same on every run. False (and `r` untouched) where the helper is absent or
// could not run: the caller compiles in this process instead.
bool compile_in_helper(const std::string& source, const std::string& filename, const std::vector<std::string>& args,
                       NvrtcOutcome& r) {
  const std::string& helper = nvrtc_helper_path();
  if (helper.empty()) return false;
  static std::atomic<uint64_t> serial{0};
  std::error_code ec;
  fs::path dir = cache_dir();
  fs::create_directories(dir, ec);
  if (ec) dir = fs::temp_directory_path(ec);
  const std::string stem = fmt::format("nvrtc-{}-{}", ::getpid(), serial++);
  const fs::path in = dir / (stem + ".cu"), out = dir / (stem + ".ptx");
  {
    std::ofstream f(in, std::ios::binary);
    f << source;
    if (!f.flush()) return false;
  }
  std::vector<std::string> argv = {helper, in.string(), filename, out.string(), "--"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string output;
  const int rc = run_capture(argv, output, /*fixed_layout=*/true);
  fs::remove(in, ec);
  if (rc == 0) {
    try {
      r.ptx = read_text(out.string());
    } catch (const std::exception&) {
      fs::remove(out, ec);
      return false;
    }
    fs::remove(out, ec);
    r.created = r.ok = true;
    return true;
  }
  fs::remove(out, ec);
  if (rc == 1) {  // the source does not compile: NVRTC's log
    while (!output.empty() && output.back() == '\n') output.pop_back();
    r.created = true;
    r.log = output.empty() ? "compilation failed" : output;
    return true;
  }
  return false;  // 2 (NVRTC would not start), 3, 127, 128: let this process try
}

}  // namespace

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
  // PTX compiled in this process (no helper) may differ from the helper's
  // (gpulab-nvrtc says why): the two are cached apart.
  std::string key_text = fmt::format("{}.{}\n{}\n{}\n{}\n", nvrtc_major, nvrtc_minor,
                                     fs::current_path(cwd_ec).string(), filename,
                                     nvrtc_helper_path().empty() ? "in-process" : "helper, fixed layout");
  for (const auto& a : args) key_text += a + "\n";
  key_text += source;
  fs::path cached = fs::path(cache_dir()) / fmt::format("{:016x}.ptx", fnv1a(key_text));
  if (options.use_cache) {
    std::error_code ec;
    if (fs::exists(cached, ec)) return read_text(cached.string());
  }

  NvrtcOutcome r;
  if (!compile_in_helper(source, filename, args, r)) r = nvrtc_compile(source, filename, args);
  if (!r.created) throw std::runtime_error("NVRTC could not create a program (is the CUDA toolkit installed?)");
  if (!r.ok) throw CompileError(filename, r.log);
  std::string ptx = std::move(r.ptx);

  if (options.use_cache) {
    std::error_code ec;
    fs::create_directories(cached.parent_path(), ec);
    if (!ec) write_cache_file(cached, ptx);
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
  write_cache_file(input, ptx);
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
  if (!ec) write_cache_file(cached, info);
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
