#include "lab/bench/sass_widths.h"

#include <filesystem>

#include <fmt/format.h>

#include "lab/compile/sass.h"
#include "lab/ptx/parser.h"
#include "lab/sim/cycle/decode.h"
#include "lab/sim/cycle/params.h"
#include "lab/sim/run.h"

namespace lab::bench {
namespace fs = std::filesystem;

bool SassLineWidths::agrees() const {
  if (model.size() != sass.size()) return false;
  for (auto m = model.begin(), s = sass.begin(); m != model.end(); ++m, ++s)
    if (m->first != s->first) return false;
  return true;
}

bool SassWidthsReport::agrees() const {
  for (const auto& l : lines)
    if (!l.agrees()) return false;
  return true;
}

SassWidthsReport compare_sass_widths(const std::string& file, const std::string& kernel, const sim::GpuModel& gpu,
                                     const std::vector<std::string>& defines) {
  SassWidthsReport r;
  r.file = file, r.kernel = kernel, r.sm_arch = std::string(gpu.sm_arch), r.gpu = gpu.name;
  const std::string ptx_text = sim::load_ptx(file, gpu, defines);
  const ptx::Module module = ptx::parse(ptx_text, file);
  const ptx::Kernel& k = module.kernels[sim::resolve_kernel(module, kernel, file)];
  const sim::cycle::DecodedKernel dk = sim::cycle::decode_kernel(k, sim::cycle::cycle_params(gpu));
  // Only the lines of `file` itself: both sides name it by path, each its own way.
  const std::string name = fs::path(file).filename().string();
  auto ours = [&](const std::string& path) { return fs::path(path).filename().string() == name; };
  std::map<uint32_t, SassLineWidths> lines;
  auto at = [&](uint32_t loc) -> SassLineWidths* {
    if (loc == 0 || loc >= k.locs.size()) return nullptr;
    const ptx::SourceLoc& s = k.locs[loc];
    if (s.file >= module.files.size() || !ours(module.files[s.file])) return nullptr;
    SassLineWidths& l = lines[s.line];
    l.line = s.line;
    return &l;
  };
  for (const ptx::Instr& in : k.code)
    if (in.op == ptx::Op::Ld && in.space == ptx::Space::Shared)
      if (SassLineWidths* l = at(in.loc)) ++l->ptx[uint32_t(in.vec) * uint32_t(ptx::type_bytes(in.type))];
  for (const auto& m : sim::cycle::issued_shared_loads(k, dk))
    if (SassLineWidths* l = at(m.loc)) ++l->model[m.bytes];
  for (const auto& s : compile::sass_shared_loads(ptx_text, r.sm_arch, k.name))
    if (s.line && ours(s.file)) {
      SassLineWidths& l = lines[s.line];
      l.line = s.line;
      ++l.sass[s.bytes];
    }
  for (auto& [line, l] : lines) r.lines.push_back(std::move(l));
  return r;
}

namespace {

std::string widths(const std::map<uint32_t, uint32_t>& m) {
  if (m.empty()) return "-";
  std::string s;
  for (const auto& [bytes, n] : m) s += fmt::format("{}{} x {} B", s.empty() ? "" : ", ", n, bytes);
  return s;
}

}  // namespace

std::string format_sass_widths(const SassWidthsReport& r) {
  std::string out = fmt::format(
      "Shared loads of {} in {}: the PTX's, the cycle model's as it times them, and the SASS ptxas makes for {} "
      "({}), per source line (static instructions; bytes per lane)\n",
      r.kernel, r.file, r.sm_arch, r.gpu);
  out += fmt::format("  {:>5}  {:<22} {:<22} {:<22} {}\n", "line", "PTX ld.shared", "model (as timed)", "SASS LDS",
                     "widths");
  for (const auto& l : r.lines)
    out += fmt::format("  {:>5}  {:<22} {:<22} {:<22} {}\n", l.line, widths(l.ptx), widths(l.model), widths(l.sass),
                       l.agrees() ? "agree" : "DIFFER");
  if (r.lines.empty()) return out + "  (no shared loads in this kernel: nothing to compare)\n";
  out += r.agrees() ? "The model issues the shared-load widths ptxas chose on every line.\n"
                    : "The model's widths differ from ptxas's on the lines marked DIFFER (docs/timing-model.md: what the "
                      "merge rule covers).\n";
  return out;
}

}  // namespace lab::bench
