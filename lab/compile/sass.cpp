#include "lab/compile/sass.h"

#include "lab/compile/process.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#include <fmt/format.h>

#ifndef GPULAB_PTXAS
#define GPULAB_PTXAS "/usr/local/cuda/bin/ptxas"
#endif
#ifndef GPULAB_TOOLS_DIR
#define GPULAB_TOOLS_DIR ".tools"
#endif

namespace lab::compile {
namespace fs = std::filesystem;

std::string nvdisasm_path() {
  std::error_code ec;
  if (const char* e = std::getenv("GPULAB_NVDISASM"); e && *e && fs::exists(e, ec)) return e;
  const fs::path toolkit = fs::path(GPULAB_PTXAS).parent_path() / "nvdisasm";
  if (fs::exists(toolkit, ec)) return toolkit.string();
  // The wheel's layout (nvidia/cu13/bin/nvdisasm), unpacked by .ci/bootstrap.
  const fs::path lab_local = fs::path(GPULAB_TOOLS_DIR) / "nvdisasm" / "nvidia" / "cu13" / "bin" / "nvdisasm";
  if (fs::exists(lab_local, ec)) return lab_local.string();
  return "";
}

namespace {

// Bytes per lane of an LDS opcode: LDS, LDS.64, LDS.128, LDS.U8, LDS.S16 ...
// (the SASS spells the width as a suffix; no suffix is 32 bits).
uint32_t lds_bytes(const std::string& op) {
  uint32_t bytes = 4;
  std::istringstream parts(op);
  for (std::string s; std::getline(parts, s, '.');) {
    if (s == "64") bytes = 8;
    else if (s == "128") bytes = 16;
    else if (s == "U8" || s == "S8") bytes = 1;
    else if (s == "U16" || s == "S16") bytes = 2;
  }
  return bytes;
}

}  // namespace

std::vector<SassSharedLoad> parse_sass_shared_loads(const std::string& text, const std::string& kernel) {
  std::vector<SassSharedLoad> out;
  std::istringstream in(text);
  bool inside = false;
  std::string file;
  uint32_t line = 0;
  for (std::string l; std::getline(in, l);) {
    // A function's code starts at its section: `.section .text.NAME,"ax",@progbits`.
    // (`.sectioninfo` and the like are not section starts.)
    const size_t s = l.find(".section");
    if (s != std::string::npos && s + 8 < l.size() && (l[s + 8] == ' ' || l[s + 8] == '\t')) {
      const size_t t = l.find(".text.", s);
      if (t != std::string::npos) {
        const size_t end = l.find(',', t);
        inside = l.substr(t + 6, end == std::string::npos ? std::string::npos : end - t - 6) == kernel;
        file.clear(), line = 0;
      } else {
        inside = false;
      }
      continue;
    }
    if (!inside) continue;
    // `//## File "path", line N` (nvdisasm -g) sets the location of what follows.
    if (const size_t f = l.find("//## File \""); f != std::string::npos) {
      const size_t q = l.find('"', f + 11);
      const size_t n = l.find("line ", q);
      if (q != std::string::npos && n != std::string::npos) {
        file = l.substr(f + 11, q - f - 11);
        line = uint32_t(std::strtoul(l.c_str() + n + 5, nullptr, 10));
      }
      continue;
    }
    // `/*1ba0*/   @!P0 LDS.128 R20, [R49] ;`: the opcode is the first word after the
    // address and an optional guard.
    const size_t addr = l.find("*/");
    if (addr == std::string::npos) continue;
    std::istringstream words(l.substr(addr + 2));
    std::string op;
    words >> op;
    if (!op.empty() && op[0] == '@') {
      // `@!PT` never runs: ptxas's padding (`@!PT LDS RZ, [RZ]` after an LDGSTS).
      if (op == "@!PT") continue;
      words >> op;
    }
    if (op.rfind("LDS", 0) != 0 || (op.size() > 3 && op[3] != '.')) continue;  // not LDSM, LDSTS
    out.push_back({file, line, lds_bytes(op)});
  }
  return out;
}

std::vector<SassSharedLoad> sass_shared_loads(const std::string& ptx, const std::string& sm_arch, const std::string& kernel) {
  const std::string nvdisasm = nvdisasm_path();
  if (nvdisasm.empty())
    throw std::runtime_error(
        "nvdisasm is not installed: `bash .ci/bootstrap` puts NVIDIA's (the nvidia-cuda-nvdisasm wheel) in .tools/, "
        "or set GPULAB_NVDISASM to one");
  std::error_code ec;
  const fs::path dir = fs::temp_directory_path(ec) / fmt::format("gpulab-sass-{}", getpid());
  fs::create_directories(dir, ec);
  const fs::path input = dir / "kernel.ptx", cubin = dir / "kernel.cubin";
  {
    std::ofstream f(input, std::ios::binary);
    f << ptx;
  }
  std::string log;
  const int rc = run_capture({GPULAB_PTXAS, "-arch=" + sm_arch, "-lineinfo", input.string(), "-o", cubin.string()}, log);
  if (rc != 0) {
    fs::remove_all(dir, ec);
    throw std::runtime_error(fmt::format("ptxas -arch={} failed (status {}):\n{}", sm_arch, rc, log));
  }
  std::string text;
  const int drc = run_capture({nvdisasm, "-g", "-c", cubin.string()}, text);
  fs::remove_all(dir, ec);
  if (drc != 0) throw std::runtime_error(fmt::format("{} failed (status {}):\n{}", nvdisasm, drc, text));
  return parse_sass_shared_loads(text, kernel);
}

}  // namespace lab::compile
