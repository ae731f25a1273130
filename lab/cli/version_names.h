// lab/cli/version_names.h: `--only NAME` must name a GEMM version that exists;
// an unknown name is an error listing the names (an empty table says nothing).
#pragma once

#include <string>
#include <vector>

#include "lab/bench/gemm_bench.h"
#include "lab/gemm/gemm_registry.h"
#include "lab/cpu/gemm.h"

namespace lab::cli {

// "" when every name in `only` is known, else the error to print.
inline std::string unknown_only_names(const std::vector<std::string>& only, bool with_cpu) {
  std::vector<std::string> known;
  for (const auto& v : gemm::load_gemm_versions()) known.push_back(v.name);
  if (with_cpu) {  // `gpulab bench gemm`: its CPU rows and the cuBLAS reference rows too
    for (const auto& v : cpu::cpu_gemm_versions()) known.push_back(v.name);
    known.push_back(bench::kCublasSgemmRow);
    known.push_back(bench::kCublasGemmExRow);
  }
  std::string bad;
  for (const auto& n : only) {
    bool found = false;
    for (const auto& k : known) found = found || k == n;
    if (!found) bad += (bad.empty() ? "'" : ", '") + n + "'";
  }
  if (bad.empty()) return "";
  std::string list;
  for (const auto& k : known) list += "\n  " + k;
  return "--only " + bad + ": no such version; the versions are:" + list;
}

}  // namespace lab::cli
