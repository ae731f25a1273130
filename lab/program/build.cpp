#include "lab/program/build.h"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "lab/compile/nvrtc.h"
#include "lab/compile/process.h"

#ifndef GPULAB_NVCC
#define GPULAB_NVCC "/usr/local/cuda/bin/nvcc"
#endif

namespace lab::program {
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "" for text; otherwise what the file looks like (a NUL byte in its first
// 64 KB means no compiler will read it as source, and nvcc would print a
// diagnostic per byte).
std::string binary_kind(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string head(65536, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  if (head.rfind("\x7f" "ELF", 0) == 0) return "an ELF file (a compiled program or library)";
  if (head.find('\0') != std::string::npos) return "a binary file";
  return "";
}

uint64_t fnv1a(uint64_t h, const std::string& s) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return (h ^ 0xff) * 1099511628211ull;
}

// The file and the local headers it includes with "...", recursively.
void hash_with_includes(const fs::path& file, uint64_t& h, std::set<fs::path>& seen,
                        const std::vector<std::string>& include_dirs) {
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(file, ec);
  if (!seen.insert(canon).second || !fs::exists(canon, ec)) return;
  std::string text = read_file(canon);
  h = fnv1a(h, canon.string());
  h = fnv1a(h, text);
  static const std::regex kInclude(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, kInclude)) continue;
    // As nvcc looks: beside the including file, then each -I in order (the
    // program's, then the lab's own, below).
    fs::path next = canon.parent_path() / m[1].str();
    for (const std::string& dir : include_dirs)
      if (!fs::exists(next, ec)) next = fs::path(dir) / m[1].str();
    if (!fs::exists(next, ec)) next = fs::path(GPULAB_SOURCE_DIR) / m[1].str();
    hash_with_includes(next, h, seen, include_dirs);
  }
}

}  // namespace

std::string gpulab_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

namespace {

// nvcc's output as a BuildError: runtime and cuBLAS calls the lab does not
// serve show up as undefined references at the link; otherwise the first
// screenful (later errors mostly follow from the first).
[[noreturn]] void throw_build_error(std::string out) {
  // Every symbol the link could not find, by who would define it: the CUDA
  // runtime and cuBLAS (the lab's stand-ins serve part of each), the CUDA
  // driver API and NVRTC (not served: a program that loads modules itself),
  // and anything else (a library the command line did not give).
  static const std::regex kUndefined(R"re(undefined reference to (?:`|symbol ')([A-Za-z_][A-Za-z0-9_]*))re");
  std::set<std::string> runtime, cublas, driver, nvrtc, other;
  for (std::sregex_iterator it(out.begin(), out.end(), kUndefined), end; it != end; ++it) {
    std::string name = (*it)[1];
    auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
    if (starts("cublas")) {
      // cublas_v2.h maps cublasSgemm to the symbol cublasSgemm_v2: name the call as written.
      if (name.size() > 3 && name.compare(name.size() - 3, 3, "_v2") == 0) name.resize(name.size() - 3);
      cublas.insert(name);
    } else if (starts("cuda") || starts("__cuda")) {
      runtime.insert(name);
    } else if (starts("nvrtc")) {
      nvrtc.insert(name);
    } else if (name.size() > 2 && starts("cu") && std::isupper(static_cast<unsigned char>(name[2])) &&
               name != "cuTensorMapEncodeTiled") {
      driver.insert(name);
    } else {
      other.insert(name);
    }
  }
  auto join = [](const std::set<std::string>& names) {
    std::string s;
    size_t n = 0;
    for (const auto& m : names) {
      if (++n > 12) return s + fmt::format(" and {} more", names.size() - 12);
      s += (s.empty() ? "" : ", ") + m;
    }
    return s;
  };
  std::string message;
  auto add = [&](const std::string& line) { message += (message.empty() ? "" : "\n") + line; };
  if (!runtime.empty())
    add(fmt::format(
        "the program calls {} of the CUDA runtime, which the lab's runtime does not serve (docs/run.md lists the "
        "calls it serves); rewrite that part with the served calls, or run it on a GPU with --backend cuda",
        join(runtime)));
  if (!cublas.empty())
    add(fmt::format(
        "the program calls {}, which the lab's cuBLAS stand-in does not serve (docs/run.md, \"cuBLAS\", lists the "
        "calls it serves); rewrite that part with the served calls (cublasSgemm, cublasGemmEx and their strided "
        "batched forms) or a kernel of your own, or run it on a GPU with --backend cuda",
        join(cublas)));
  if (!driver.empty())
    add(fmt::format(
        "the program calls {} of the CUDA driver API (cuda.h), which the lab does not serve: the lab runs programs "
        "written against the runtime API (cuda_runtime.h), and of the driver API serves cuTensorMapEncodeTiled "
        "(TMA's tensor maps) only; use the runtime's calls, or run it on a GPU with --backend cuda", join(driver)));
  if (!nvrtc.empty())
    add(fmt::format(
        "the program calls {} of NVRTC to compile kernels while it runs, which `gpulab run` does not serve (it "
        "runs the kernels nvcc compiled into the program); write the kernels in the program's .cu files",
        join(nvrtc)));
  if (!other.empty())
    add(fmt::format(
        "the link found no definition of {}: give the library that defines it with -l (for example -l gomp with "
        "--Xcompiler=-fopenmp for OpenMP, -l m for libm), or add the source file that defines it", join(other)));
  if (!message.empty()) throw BuildError(message);
  if (out.size() > 8000) out = out.substr(0, 8000) + fmt::format("\n... ({} more bytes of nvcc's output left out)", out.size() - 8000);
  throw BuildError(fmt::format("nvcc could not build the program:\n{}", out));
}

// One source compiled to an object, cached by its content and the headers it
// includes with "...": a lesson's program is compiled once, and an edit to
// the student's file recompiles that file alone (issue 27: a program check
// answered in 11-22 s cold when every edit rebuilt the whole program).
struct ObjectBuild {
  std::string source;
  fs::path object;
  uint64_t hash = 0;
  bool cached = false;
  int rc = 0;
  std::string output;
};

// The program's -l libraries as the link gets them. For the simulator,
// cuBLAS (-lcublas, -lcublasLt, their _static forms) is the lab's stand-in,
// linked anyway (build_program); the C and C++ system libraries pass through;
// another CUDA library (cuFFT, cuRAND, ...) has no stand-in and is refused
// here, by name, before nvcc runs.
std::vector<std::string> link_libraries(const ProgramBuild& b) {
  static const std::set<std::string> kCublas = {"cublas", "cublasLt", "cublas_static", "cublasLt_static"};
  static const std::set<std::string> kSystem = {"m", "dl", "pthread", "rt", "stdc++", "gomp"};
  std::vector<std::string> out;
  for (std::string l : b.libraries) {
    if (l.rfind("-l", 0) == 0) l = l.substr(2);
    if (b.for_real_gpu || kSystem.count(l)) {
      out.push_back(l);
      continue;
    }
    if (kCublas.count(l)) continue;
    if (l == "cuda") continue;  // the driver API: the lab's runtime serves cuTensorMapEncodeTiled (driver_tensor_map.cpp)
    throw BuildError(fmt::format(
        "-l{}: the lab stands in for the CUDA runtime and cuBLAS (-lcublas, -lcublasLt) only, and lib{} is not "
        "one of the C/C++ system libraries it passes on (m, dl, pthread, rt, stdc++, gomp); rewrite that part with "
        "kernels of your own, or run the program on a GPU with --backend cuda", l, l));
  }
  return out;
}

}  // namespace

std::string build_program(const ProgramBuild& b) {
  const std::string lib_dir = gpulab_dir();
  const fs::path lib = fs::path(lib_dir) / "libgpulab_cudart.so";
  const fs::path cublas_lib = fs::path(lib_dir) / "libgpulab_cublas.so";
  std::error_code ec;
  for (const fs::path& l : {lib, cublas_lib})
    if (!b.for_real_gpu && !fs::exists(l, ec))
      throw std::runtime_error(fmt::format("gpulab run: {} is missing; build it (cmake --build <build dir> --target "
                                           "{})", l.string(), l.stem().string().substr(3)));
  const std::vector<std::string> libraries = link_libraries(b);
  // What every object depends on besides its source: the target and the defines.
  uint64_t flags = fnv1a(1469598103934665603ull, b.ptx_arch + (b.for_real_gpu ? " cuda" : " sim"));
  for (const auto& d : b.defines) flags = fnv1a(flags, d);
  for (const auto& d : b.include_dirs) flags = fnv1a(flags, "-I" + fs::absolute(d).string());
  for (const auto& f : b.host_flags) flags = fnv1a(flags, "-Xcompiler " + f);
  const fs::path cache = fs::path(compile::cache_dir()) / "run";
  std::vector<ObjectBuild> objects;
  for (const auto& s : b.sources) {
    if (!fs::exists(s, ec)) throw BuildError(fmt::format("{}: no such file (give the path of a .cu file)", s));
    if (const std::string what = binary_kind(s); !what.empty())
      throw BuildError(fmt::format("{}: {}, not CUDA source: give the program's .cu file", s, what));
    ObjectBuild o;
    o.source = fs::absolute(s).string();
    o.hash = flags;
    std::set<fs::path> seen;
    hash_with_includes(s, o.hash, seen, b.include_dirs);
    o.object = cache / "obj" / fmt::format("{:016x}.o", o.hash);
    o.cached = fs::exists(o.object, ec);
    objects.push_back(std::move(o));
  }
  uint64_t h = flags;
  for (const auto& o : objects) h = fnv1a(h, fmt::format("{:016x}", o.hash));
  for (const auto& l : libraries) h = fnv1a(h, l);
  if (!b.for_real_gpu)
    for (const fs::path& l : {lib, cublas_lib})
      h = fnv1a(h, std::to_string(fs::last_write_time(l, ec).time_since_epoch().count()));
  const fs::path dir = cache / fmt::format("{:016x}", h);
  const fs::path exe = dir / fs::path(b.sources.front()).stem();
  if (fs::exists(exe, ec)) return exe.string();
  fs::create_directories(dir, ec);
  fs::create_directories(cache / "obj", ec);

  // -gencode ...code=compute_XX: PTX only (JIT-compiled by a driver, read by
  // the lab); -Xfatbin=-compress=false: nvcc 13 compresses it otherwise.
  // -g: the host code's line table, so the runtime can name the line of a
  // call (lab/runtime/devices.cpp: a peer copy's call site).
  std::vector<std::string> compile = {GPULAB_NVCC, "-std=c++17", "-O2", "-g", "-lineinfo",
                                      fmt::format("-gencode=arch={0},code={0}", b.ptx_arch)};
  for (const auto& d : b.defines) compile.push_back("-D" + d);
  for (const auto& d : b.include_dirs) compile.push_back("-I" + fs::absolute(d).string());
  for (const auto& f : b.host_flags) compile.insert(compile.end(), {"-Xcompiler", f});
  // The lab's own headers (lab/cpu/mlp_task.h, the task lessons 10 and 11
  // share with the CPU step) by their path in the lab, so a program works
  // from any copy of the lessons folder (issue 25).
  compile.push_back(std::string("-I") + GPULAB_SOURCE_DIR);
  if (!b.for_real_gpu) compile.insert(compile.end(), {"-Xfatbin=-compress=false", "-cudart", "none"});

  // The objects not cached yet, side by side (a first build of a two-file
  // program takes the longer compile, not the sum).
  std::vector<std::thread> jobs;
  for (auto& o : objects) {
    if (o.cached) continue;
    jobs.emplace_back([&compile, &o] {
      const fs::path tmp = o.object.string() + fmt::format(".{}.tmp", getpid());
      std::vector<std::string> argv = compile;
      argv.insert(argv.end(), {"-c", o.source, "-o", tmp.string()});
      // A fixed address layout, as for NVRTC (lab/nvrtc_helper/main.cpp):
      // nvcc's compiler runs the same optimiser, which orders some work by
      // heap address, so the same program builds to the same PTX.
      o.rc = compile::run_capture(argv, o.output, /*fixed_layout=*/true);
      std::error_code rename_ec;
      if (o.rc == 0) fs::rename(tmp, o.object, rename_ec);  // atomic: another check may read it
      if (rename_ec) o.rc = -1, o.output = rename_ec.message();
    });
  }
  for (auto& t : jobs) t.join();
  for (const auto& o : objects)
    if (o.rc != 0) throw_build_error(o.output);

  std::vector<std::string> link = {GPULAB_NVCC, "-g"};
  if (!b.for_real_gpu) link.insert(link.end(), {"-cudart", "none"});
  for (const auto& o : objects) link.push_back(o.object.string());
  const fs::path tmp = dir / (exe.filename().string() + fmt::format(".{}.tmp", getpid()));
  link.insert(link.end(), {"-o", tmp.string()});
  for (const auto& f : b.host_flags) link.insert(link.end(), {"-Xcompiler", f});
  if (!b.for_real_gpu) {
    // The cuBLAS stand-in is linked whenever the program calls cuBLAS, with
    // -lcublas or without (--as-needed: a program that does not call it does
    // not load it). It calls into libgpulab_cudart, the program's runtime.
    // One -Xlinker group: nvcc moves -l options behind all -Xlinker ones, so
    // a separate -lgpulab_cublas would fall outside the --as-needed span.
    link.insert(link.end(), {"-L" + lib_dir, "-Xlinker", "--as-needed,-lgpulab_cublas,--no-as-needed",
                             "-lgpulab_cudart", "-Xlinker", "-rpath=" + lib_dir});
  } else {
    // NVIDIA's cuBLAS likewise, so that a program runs on both backends from
    // the same command (-lcublas given or not).
    link.insert(link.end(), {"-Xlinker", "--as-needed,-lcublas,-lcublasLt,--no-as-needed"});
  }
  for (const auto& l : libraries) link.push_back("-l" + l);
  std::string out;
  if (compile::run_capture(link, out) != 0) throw_build_error(out);
  fs::rename(tmp, exe, ec);
  if (ec) throw std::runtime_error(fmt::format("gpulab run: cannot write {}: {}", exe.string(), ec.message()));
  return exe.string();
}

}  // namespace lab::program
