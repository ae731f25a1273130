// lab/lesson/manifest.cpp: lesson.toml -> Lesson, validated field by field.
#include "lab/lesson/manifest.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <toml++/toml.h>

#include "lab/lesson/reference.h"

namespace fs = std::filesystem;

namespace lab::lesson {

// ---- metric names ------------------------------------------------------------
namespace {
struct MetricName {
  Metric m;
  const char* name;
};
constexpr MetricName kMetricNames[] = {
    {Metric::MaxSectorsPerGlobalLoad, "max_sectors_per_global_load"},
    {Metric::MaxSectorsPerGlobalStore, "max_sectors_per_global_store"},
    {Metric::MaxGlobalLoadSectors, "max_global_load_sectors"},
    {Metric::MaxGlobalStoreSectors, "max_global_store_sectors"},
    {Metric::MaxGlobalLoadRequests, "max_global_load_requests"},
    {Metric::MaxGlobalStoreRequests, "max_global_store_requests"},
    {Metric::MaxMemoryTrafficBytes, "max_memory_traffic_bytes"},
    {Metric::MaxDramBytes, "max_dram_bytes"},
    {Metric::MaxSharedLoadRequests, "max_shared_load_requests"},
    {Metric::MaxSharedWavefronts, "max_shared_wavefronts"},
    {Metric::MaxBankConflicts, "max_bank_conflicts"},
    {Metric::MinSharedLoadsPerGlobalLoad, "min_shared_loads_per_global_load"},
    {Metric::MinWarpEfficiency, "min_warp_efficiency"},
    {Metric::MaxBusiestWarpVsMean, "max_busiest_warp_vs_mean"},
    {Metric::MinTensorCoreMacShare, "min_tensor_core_mac_share"},
    {Metric::MinOccupancy, "min_occupancy"},
    {Metric::MaxPredictedTimeRatio, "max_predicted_time_ratio"},
    {Metric::MaxShufflesPerWarp, "max_shuffles_per_warp"},
};
}  // namespace

const char* metric_name(Metric m) {
  for (auto& n : kMetricNames)
    if (n.m == m) return n.name;
  return "?";
}
std::optional<Metric> metric_from_name(const std::string& name) {
  for (auto& n : kMetricNames)
    if (name == n.name) return n.m;
  return std::nullopt;
}
bool is_total_metric(Metric m) {
  switch (m) {
    case Metric::MaxGlobalLoadSectors: case Metric::MaxGlobalStoreSectors: case Metric::MaxGlobalLoadRequests:
    case Metric::MaxGlobalStoreRequests: case Metric::MaxMemoryTrafficBytes: case Metric::MaxDramBytes:
    case Metric::MaxSharedLoadRequests: case Metric::MaxSharedWavefronts:
      return true;
    default:
      return false;
  }
}

std::string known_metrics() {
  std::string s;
  for (auto& n : kMetricNames) s += (s.empty() ? "" : ", ") + std::string(n.name);
  return s;
}

// ---- argument specs ----------------------------------------------------------
int ArgSpec::elem_bytes() const { return sim::elem_bytes(type); }

namespace {
std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}
}  // namespace

ArgSpec parse_arg_spec(const std::string& text) {
  ArgSpec a;
  a.text = text;
  std::string s = trim(text);
  auto word = [&s]() {
    size_t e = 0;
    while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e]))) ++e;
    std::string w = s.substr(0, e);
    s = trim(s.substr(e));
    return w;
  };
  std::string first = word();
  if (first == "in" || first == "out" || first == "inout") {
    a.role = first == "in" ? ArgSpec::Role::In : first == "out" ? ArgSpec::Role::Out : ArgSpec::Role::InOut;
    first = word();
  } else {
    a.role = ArgSpec::Role::Scalar;
  }
  if (!sim::elem_from_name(first, a.type))
    throw std::invalid_argument("unknown type '" + first + "' in \"" + text +
                                "\" (use f32, f16, bf16, f64, i32, u32, i64, u64)");
  size_t br = s.find('[');
  size_t eq = s.find('=');
  if (a.role != ArgSpec::Role::Scalar) {
    if (br == std::string::npos)
      throw std::invalid_argument("buffer \"" + text + "\" needs its size, e.g. \"in f32 A[M][K]\"");
    a.name = trim(s.substr(0, br));
    size_t p = br;
    while (p < s.size() && s[p] == '[') {
      size_t close = s.find(']', p);
      if (close == std::string::npos) throw std::invalid_argument("missing ']' in \"" + text + "\"");
      a.dims.push_back(trim(s.substr(p + 1, close - p - 1)));
      p = close + 1;
      while (p < s.size() && s[p] == ' ') ++p;
    }
    if (p != s.size()) throw std::invalid_argument("unexpected '" + s.substr(p) + "' in \"" + text + "\"");
  } else {
    a.name = trim(eq == std::string::npos ? s : s.substr(0, eq));
    a.value = eq == std::string::npos ? a.name : trim(s.substr(eq + 1));
  }
  if (a.name.empty()) throw std::invalid_argument("argument \"" + text + "\" has no name");
  return a;
}

// ---- loading -----------------------------------------------------------------
const Exercise* Lesson::find_exercise(const std::string& ex_id) const {
  for (const auto& e : exercises)
    if (e.id == ex_id) return &e;
  return nullptr;
}

Exercise Lesson::measured_exercise(const Step& s) const {
  const Exercise* e = find_exercise(s.measure_exercise);
  if (!e) throw std::runtime_error("this step runs no exercise's kernel");
  Exercise ex = *e;
  if (!s.measure_size.empty()) ex.sizes = {s.measure_size}, ex.metric_size = 0;
  return ex;
}

namespace {

struct Reader {
  std::string file;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw ManifestError(file, field, what);
  }
  std::string str(const toml::table& t, const std::string& field, const std::string& key, bool required,
                  std::string def = "") const {
    auto n = t.get(key);
    if (!n) {
      if (required) fail(field + key, "missing (a string is required)");
      return def;
    }
    if (auto s = n->value<std::string>()) return *s;
    fail(field + key, "must be a string");
  }
  // A file the lesson names: a path relative to the lesson folder that stays
  // inside it (the files `gpulab reset` and `check` write or read as the
  // student's), so no lesson can make the lab touch a file elsewhere. Files
  // only read (`sibling_ok`: baselines, solutions, measured files) may also
  // name a sibling lesson's file, still inside the lessons folder.
  std::string inside(const toml::table& t, const std::string& field, const std::string& key, bool required,
                     std::string def = "", bool sibling_ok = false) const {
    std::string rel = str(t, field, key, required, std::move(def));
    if (rel.empty()) return rel;
    fs::path p(rel);
    fs::path norm = (fs::path("lesson") / p).lexically_normal();
    bool ok = !p.is_absolute() && !norm.empty() && *norm.begin() != ".." && norm != "lesson" && norm != ".";
    if (ok && !sibling_ok) ok = *norm.begin() == "lesson";
    if (!ok)
      fail(field + key, "'" + rel + "' must be a file inside the lesson folder (a relative path without '..' leading out of it" +
                            std::string(sibling_ok ? ", or into a sibling lesson" : "") + ")");
    return rel;
  }
  // A size expression may be written as a string or an integer.
  std::string expr(const toml::node& n, const std::string& field) const {
    if (auto s = n.value<std::string>()) return *s;
    if (auto i = n.value<int64_t>()) return std::to_string(*i);
    fail(field, "must be an integer or a size expression string");
  }
  std::vector<std::string> exprs(const toml::table& t, const std::string& field, const std::string& key,
                                 std::vector<std::string> def) const {
    auto n = t.get(key);
    if (!n) return def;
    if (auto arr = n->as_array()) {
      if (arr->empty() || arr->size() > 3) fail(field + key, "needs 1 to 3 entries (x, y, z)");
      std::vector<std::string> out;
      for (size_t i = 0; i < arr->size(); ++i)
        out.push_back(expr(*arr->get(i), field + key + "[" + std::to_string(i) + "]"));
      return out;
    }
    return {expr(*n, field + key)};
  }
  std::vector<std::string> strings(const toml::table& t, const std::string& field, const std::string& key) const {
    std::vector<std::string> out;
    auto n = t.get(key);
    if (!n) return out;
    auto arr = n->as_array();
    if (!arr) fail(field + key, "must be an array of strings");
    for (size_t i = 0; i < arr->size(); ++i) {
      auto s = arr->get(i)->value<std::string>();
      if (!s) fail(field + key + "[" + std::to_string(i) + "]", "must be a string");
      out.push_back(*s);
    }
    return out;
  }
  // A size table {M = 1024, N = 1024, K = 64}: positive integers.
  SizeVars size(const toml::node* n, const std::string& field) const {
    SizeVars out;
    auto t = n ? n->as_table() : nullptr;
    if (!t) fail(field, "must be a table like {M = 1024, N = 1024, K = 64}");
    for (auto& [k, val] : *t) {
      auto iv = val.value<int64_t>();
      if (!iv || *iv <= 0) fail(field + "." + std::string(k.str()), "must be a positive integer");
      out[std::string(k.str())] = *iv;
    }
    return out;
  }
  Geometry geometry(const toml::table& t, const std::string& field) const {
    Geometry g;
    if (!t.get("grid")) fail(field + "grid", "missing (launch grid as size expressions, e.g. [\"cdiv(N, 256)\"])");
    if (!t.get("block")) fail(field + "block", "missing (block size, e.g. [256])");
    g.grid = exprs(t, field, "grid", {"1"});
    g.block = exprs(t, field, "block", {"1"});
    if (auto n = t.get("shared_bytes")) g.shared_bytes = expr(*n, field + "shared_bytes");
    return g;
  }
};

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Does `source` define a __global__ function called `kernel`? A textual check
// that runs at load time, before any compile, so that a manifest naming a
// kernel that is not there fails with the manifest's field named.
bool source_defines_kernel(const std::string& source, const std::string& kernel) {
  size_t p = 0;
  while ((p = source.find(kernel, p)) != std::string::npos) {
    bool left_ok = p == 0 || !(std::isalnum(static_cast<unsigned char>(source[p - 1])) || source[p - 1] == '_');
    size_t e = p + kernel.size();
    size_t q = e;
    while (q < source.size() && std::isspace(static_cast<unsigned char>(source[q]))) ++q;
    bool right_ok = q < source.size() && source[q] == '(';
    if (left_ok && right_ok) {
      size_t line_start = source.rfind('\n', p);
      size_t window = p > 400 ? p - 400 : 0;
      std::string before = source.substr(window, p - window);
      if (before.find("__global__") != std::string::npos || source.substr(line_start + 1, p).find("__global__") != std::string::npos)
        return true;
    }
    p = e;
  }
  return false;
}

// A program exercise: the program, its runs, the files; the check itself is
// check_program.cpp's.
Exercise read_program_exercise(const Reader& r, const toml::table& t, const std::string& f, const fs::path& dir,
                               Exercise e) {
  e.hints = r.strings(t, f, "hints");
  e.defines = r.strings(t, f, "defines");
  if (auto n = t.get("tolerance")) {
    auto v = n->value<double>();
    if (!v || *v <= 0) r.fail(f + "tolerance", "must be a positive number");
    e.tolerance = *v;
  }
  for (auto [key, rel] : {std::pair{"template", e.template_file}, {"solution", e.solution}, {"program", e.program}})
    if (!fs::exists(dir / rel)) r.fail(f + key, "file '" + rel + "' not found in " + dir.string());
  if (t.get("checks")) {
    e.checks = r.strings(t, f, "checks");
    for (const auto& c : e.checks)
      if (c != "sums" && c != "loss" && c != "links" && c != "peak")
        r.fail(f + "checks", "'" + c + "' is not a check: use \"sums\", \"loss\", \"links\" or \"peak\"");
  }
  auto rn = t.get("runs");
  if (!rn || !rn->as_array() || rn->as_array()->empty())
    r.fail(f + "runs", "missing (an array of tables like {gpus = 4, args = \"16 32 2 0\"})");
  for (size_t i = 0; i < rn->as_array()->size(); ++i) {
    std::string fi = f + "runs[" + std::to_string(i) + "].";
    auto rt = rn->as_array()->get(i)->as_table();
    if (!rt) r.fail(fi, "must be a table like {gpus = 4, args = \"16 32 2 0\"}");
    ProgramRun run;
    auto g = rt->get("gpus");
    auto gv = g ? g->value<int64_t>() : std::nullopt;
    if (!gv || *gv < 1 || *gv > 64) r.fail(fi + "gpus", "must be an integer from 1 to 64");
    run.gpus = int(*gv);
    run.link = r.str(*rt, fi, "link", false, "nvlink");
    if (run.link != "nvlink" && run.link != "pcie") r.fail(fi + "link", "must be \"nvlink\" or \"pcie\"");
    run.args = r.str(*rt, fi, "args", false);
    run.reference_args = r.str(*rt, fi, "reference_args", false);
    // Words of letters, digits, '.', '_' and '-' only: they reach the program through a shell.
    for (auto [key, words] : {std::pair{"args", run.args}, {"reference_args", run.reference_args}})
      for (char c : words)
        if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr(" ._-", c))
          r.fail(fi + key, "only letters, digits, spaces and . _ - (the program's arguments, split at spaces)");
    e.runs.push_back(run);
  }
  return e;
}

Exercise read_exercise(const Reader& r, const toml::table& t, const std::string& f, const fs::path& dir) {
  Exercise e;
  e.id = r.str(t, f, "id", true);
  e.title = r.str(t, f, "title", false, e.id);
  e.file = r.inside(t, f, "file", true);
  e.template_file = r.inside(t, f, "template", false, e.file + ".template");
  e.solution = r.inside(t, f, "solution", true, "", true);
  e.program = r.inside(t, f, "program", false);
  if (!e.program.empty()) return read_program_exercise(r, t, f, dir, std::move(e));
  e.kernel = r.str(t, f, "kernel", true);
  e.reference = r.str(t, f, "reference", true);
  e.geometry = r.geometry(t, f);
  e.hints = r.strings(t, f, "hints");
  e.defines = r.strings(t, f, "defines");
  e.nonnegative = r.strings(t, f, "nonnegative");
  if (auto n = t.get("tolerance")) {
    auto v = n->value<double>();
    if (!v || *v <= 0) r.fail(f + "tolerance", "must be a positive number");
    e.tolerance = *v;
  }
  // Files exist, and each defines the kernel.
  for (auto [key, rel] : {std::pair{"template", e.template_file}, {"solution", e.solution}}) {
    std::string p = (dir / rel).string();
    if (!fs::exists(p)) r.fail(f + key, "file '" + rel + "' not found in " + dir.string());
    if (!source_defines_kernel(read_text(p), e.kernel))
      r.fail(f + "kernel", "no __global__ function '" + e.kernel + "' in " + rel);
  }
  // Arguments.
  for (size_t i = 0; auto& s : r.strings(t, f, "args")) {
    try {
      e.args.push_back(parse_arg_spec(s));
    } catch (const std::invalid_argument& ex) {
      r.fail(f + "args[" + std::to_string(i) + "]", ex.what());
    }
    ++i;
  }
  for (const auto& name : e.nonnegative)
    if (std::none_of(e.args.begin(), e.args.end(), [&](const ArgSpec& a) { return a.name == name && a.role != ArgSpec::Role::Scalar && a.role != ArgSpec::Role::Out; }))
      r.fail(f + "nonnegative", "'" + name + "' is not an in or inout buffer of args");
  if (e.args.empty()) r.fail(f + "args", "missing (the kernel's parameters, e.g. [\"in f32 x[N]\", \"i32 N\"])");
  // Sizes: an array of tables of integers.
  auto sn = t.get("sizes");
  if (!sn || !sn->as_array() || sn->as_array()->empty())
    r.fail(f + "sizes", "missing (an array of tables like {N = 1000}, some not multiples of the tile)");
  for (size_t i = 0; i < sn->as_array()->size(); ++i) {
    auto st = sn->as_array()->get(i)->as_table();
    std::string fi = f + "sizes[" + std::to_string(i) + "]";
    if (!st) r.fail(fi, "must be a table like {M = 64, N = 64}");
    SizeVars v;
    for (auto& [k, val] : *st) {
      auto iv = val.value<int64_t>();
      if (!iv || *iv <= 0) r.fail(fi + "." + std::string(k.str()), "must be a positive integer");
      v[std::string(k.str())] = *iv;
    }
    e.sizes.push_back(v);
  }
  if (auto n = t.get("metric_size")) {
    auto v = n->value<int64_t>();
    if (!v || *v < 0 || static_cast<size_t>(*v) >= e.sizes.size())
      r.fail(f + "metric_size", "must index into sizes (0.." + std::to_string(e.sizes.size() - 1) + ")");
    e.metric_size = static_cast<size_t>(*v);
  }
  if (auto n = t.get("time_size")) {
    e.time_size = r.size(n, f + "time_size");
    for (const auto& [k, v] : e.sizes.front())
      if (!e.time_size.count(k)) r.fail(f + "time_size", "needs '" + k + "', as the sizes have it");
  }
  if (auto n = t.get("judge_sizes")) {
    auto arr = n->as_array();
    if (!arr || arr->empty()) r.fail(f + "judge_sizes", "must be a non-empty array of size tables like the sizes");
    for (size_t i = 0; i < arr->size(); ++i) {
      const std::string fi = f + "judge_sizes[" + std::to_string(i) + "]";
      SizeVars v = r.size(arr->get(i), fi);
      for (const auto& [k, _] : e.sizes.front())
        if (!v.count(k)) r.fail(fi, "needs '" + k + "', as the sizes have it");
      e.judge_sizes.push_back(v);
    }
  }
  // Every expression must evaluate with every size.
  auto check_expr = [&](const std::string& ex, const std::string& field) {
    for (const auto* list : {&e.sizes, &e.judge_sizes})
      for (auto& sz : *list) {
        std::string err = validate_size(ex, sz);
        if (!err.empty()) r.fail(field, err);
      }
  };
  for (size_t i = 0; i < e.geometry.grid.size(); ++i) check_expr(e.geometry.grid[i], f + "grid");
  for (size_t i = 0; i < e.geometry.block.size(); ++i) check_expr(e.geometry.block[i], f + "block");
  check_expr(e.geometry.shared_bytes, f + "shared_bytes");
  int n_in = 0, n_out = 0, n_scalar = 0;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const auto& a = e.args[i];
    std::string fa = f + "args[" + std::to_string(i) + "]";
    for (auto& d : a.dims) check_expr(d, fa);
    if (a.role == ArgSpec::Role::Scalar) {
      if (sim::elem_is_float(a.type)) ++n_scalar;
      bool is_number = !a.value.empty() && (std::isdigit(static_cast<unsigned char>(a.value[0])) || a.value[0] == '-' || a.value[0] == '.');
      if (!is_number) check_expr(a.value, fa);
    }
    if (a.role == ArgSpec::Role::In || a.role == ArgSpec::Role::InOut) ++n_in;
    if (a.role == ArgSpec::Role::Out || a.role == ArgSpec::Role::InOut) ++n_out;
  }
  // Reference.
  const Reference* ref = find_reference(e.reference);
  if (!ref) r.fail(f + "reference", "unknown reference '" + e.reference + "' (known: " + known_references() + ")");
  if (ref->inputs != n_in || ref->outputs != n_out || ref->scalars != n_scalar)
    r.fail(f + "args", "reference '" + e.reference + "' takes " + std::to_string(ref->inputs) + " input(s), " +
                           std::to_string(ref->outputs) + " output(s) and " + std::to_string(ref->scalars) +
                           " float scalar(s); the args give " + std::to_string(n_in) + ", " +
                           std::to_string(n_out) + " and " + std::to_string(n_scalar));
  for (auto& sz : e.sizes)
    for (auto* need : ref->sizes)
      if (!sz.count(need)) r.fail(f + "sizes", "reference '" + e.reference + "' needs size '" + need + "'");
  // Baselines.
  if (auto bn = t.get("baselines")) {
    auto bt = bn->as_table();
    if (!bt) r.fail(f + "baselines", "must be a table of {file, kernel, grid, block}");
    for (auto& [k, v] : *bt) {
      std::string fb = f + "baselines." + std::string(k.str()) + ".";
      auto vt = v.as_table();
      if (!vt) r.fail(fb, "must be a table {file, kernel, grid, block}");
      Baseline b;
      b.file = r.inside(*vt, fb, "file", true, "", true);
      b.kernel = r.str(*vt, fb, "kernel", true);
      b.geometry = r.geometry(*vt, fb);
      std::string p = (dir / b.file).string();
      if (!fs::exists(p)) r.fail(fb + "file", "file '" + b.file + "' not found");
      if (!source_defines_kernel(read_text(p), b.kernel))
        r.fail(fb + "kernel", "no __global__ function '" + b.kernel + "' in " + b.file);
      e.baselines.emplace_back(std::string(k.str()), std::move(b));
    }
  }
  // Criteria.
  if (auto cn = t.get("criteria")) {
    auto arr = cn->as_array();
    if (!arr) r.fail(f + "criteria", "must be an array of tables ([[exercises.criteria]])");
    for (size_t i = 0; i < arr->size(); ++i) {
      std::string fc = f + "criteria[" + std::to_string(i) + "].";
      auto ct = arr->get(i)->as_table();
      if (!ct) r.fail(fc, "must be a table");
      Criterion c;
      std::string name = r.str(*ct, fc, "metric", true);
      auto m = metric_from_name(name);
      if (!m) r.fail(fc + "metric", "unknown criterion '" + name + "' (known: " + known_metrics() + ")");
      c.metric = *m;
      c.why = r.str(*ct, fc, "why", false);
      auto vn = ct->get("value");
      if (is_total_metric(c.metric)) {
        if (!vn) r.fail(fc + "value", "missing (a size expression such as \"2*M*N*4\")");
        c.value_expr = r.expr(*vn, fc + "value");
        check_expr(c.value_expr, fc + "value");
      } else {
        if (!vn) r.fail(fc + "value", "missing (the limit, a number)");
        auto d = vn->value<double>();
        if (!d) r.fail(fc + "value", "must be a number");
        c.value = *d;
      }
      if (ct->get("buffer")) {
        c.buffer = r.str(*ct, fc, "buffer", true);
        const bool global_total = c.metric == Metric::MaxGlobalLoadSectors || c.metric == Metric::MaxGlobalStoreSectors ||
                                  c.metric == Metric::MaxGlobalLoadRequests || c.metric == Metric::MaxGlobalStoreRequests;
        if (!global_total)
          r.fail(fc + "buffer", "only the global load/store totals (max_global_load_sectors, ..._requests, "
                                "max_global_store_...) can be limited per buffer");
        for (size_t a = 0; a < e.args.size(); ++a)
          if (e.args[a].name == c.buffer && e.args[a].role != ArgSpec::Role::Scalar) c.buffer_param = int(a);
        if (c.buffer_param < 0) r.fail(fc + "buffer", "no buffer argument named '" + c.buffer + "' in " + f + "args");
      }
      if (c.metric == Metric::MaxPredictedTimeRatio) {
        c.baseline = r.str(*ct, fc, "baseline", true);
        bool found = c.baseline == "solution" || std::any_of(e.baselines.begin(), e.baselines.end(),
                                                             [&](auto& b) { return b.first == c.baseline; });
        if (!found)
          r.fail(fc + "baseline", "no baseline '" + c.baseline + "' in " + f + "baselines (or \"solution\": the exercise's own)");
      }
      e.criteria.push_back(c);
    }
  }
  return e;
}

CompareLaunch read_compare_launch(const Reader& r, const toml::table& t, const std::string& f, const fs::path& dir) {
  CompareLaunch l;
  l.file = r.inside(t, f, "file", true, "", true);
  if (!fs::exists(dir / l.file)) r.fail(f + "file", "file '" + l.file + "' not found");
  l.kernel = r.str(t, f, "kernel", false);
  if (t.get("grid") || t.get("block")) l.geometry = r.geometry(t, f);
  l.args = r.strings(t, f, "args");
  if (auto n = t.get("max_blocks_per_sm")) {
    auto v = n->value<int64_t>();
    if (!v || *v < 1 || *v > 64) r.fail(f + "max_blocks_per_sm", "must be an integer from 1 to 64");
    l.max_blocks_per_sm = uint32_t(*v);
  }
  for (size_t i = 0; i < l.args.size(); ++i) {
    try {
      parse_arg_spec(l.args[i]);
    } catch (const std::exception& e) {
      r.fail(f + "args[" + std::to_string(i) + "]", e.what());
    }
  }
  return l;
}

// A side is one launch {label, file, kernel, ...} or a chain of them
// [{label, file, ...}, {file, ...}] (the label on the first).
CompareSide read_compare_side(const Reader& r, const toml::node& n, const std::string& f, const fs::path& dir) {
  CompareSide side;
  if (auto t = n.as_table()) {
    side.label = r.str(*t, f, "label", true);
    side.launches.push_back(read_compare_launch(r, *t, f, dir));
    return side;
  }
  auto arr = n.as_array();
  if (!arr || arr->empty()) r.fail(f, "must be a table {label, file, kernel} or an array of them (a chain of launches)");
  for (size_t i = 0; i < arr->size(); ++i) {
    const std::string fi = f + std::to_string(i) + ".";
    auto t = arr->get(i)->as_table();
    if (!t) r.fail(fi, "must be a table {file, kernel, args}");
    if (i == 0) side.label = r.str(*t, fi, "label", true);
    side.launches.push_back(read_compare_launch(r, *t, fi, dir));
  }
  return side;
}

// compare = {exercise, size, expect = [min, max], before = {...}, after = {...}}
Compare read_compare(const Reader& r, const toml::node& n, const std::string& f, const fs::path& dir) {
  auto t = n.as_table();
  if (!t) r.fail(f, "must be a table {exercise, size, expect, before, after}");
  Compare c;
  c.exercise = r.str(*t, f, "exercise", false);
  if (c.exercise.empty()) {
    c.args = r.strings(*t, f, "args");
    if (c.args.empty()) r.fail(f + "exercise", "missing: name an exercise, or give args, grid and block");
    for (size_t i = 0; i < c.args.size(); ++i) {
      try {
        parse_arg_spec(c.args[i]);
      } catch (const std::exception& e) {
        r.fail(f + "args[" + std::to_string(i) + "]", e.what());
      }
    }
    c.geometry = r.geometry(*t, f);
  }
  c.size = r.size(t->get("size"), f + "size");
  auto ex = t->get("expect") ? t->get("expect")->as_array() : nullptr;
  auto lo = ex && ex->size() == 2 ? ex->get(0)->value<double>() : std::nullopt;
  auto hi = ex && ex->size() == 2 ? ex->get(1)->value<double>() : std::nullopt;
  if (!lo || !hi || !(*lo > 0) || !(*hi >= *lo))
    r.fail(f + "expect", "must be [min, max]: the range of before's time / after's time the lesson states");
  c.expect_min = *lo, c.expect_max = *hi;
  for (const char* which : {"before", "after"}) {
    auto sn = t->get(which);
    if (!sn) r.fail(f + which, "missing: a table {label, file, kernel} or an array of them");
    (std::string(which) == "before" ? c.before : c.after) = read_compare_side(r, *sn, f + which + ".", dir);
  }
  return c;
}

}  // namespace

namespace {
Lesson load_lesson_from(const std::string& dir_in, const std::string* text);
}

Lesson load_lesson(const std::string& dir) { return load_lesson_from(dir, nullptr); }
Lesson load_lesson_text(const std::string& dir, const std::string& text) { return load_lesson_from(dir, &text); }

namespace {

Lesson load_lesson_from(const std::string& dir_in, const std::string* text) {
  fs::path dir(dir_in);
  Lesson L;
  L.dir = dir.string();
  L.manifest_path = (dir / "lesson.toml").string();
  Reader r{L.manifest_path};
  if (!text && !fs::exists(L.manifest_path)) r.fail("(file)", "not found");
  toml::table root;
  try {
    root = text ? toml::parse(*text, L.manifest_path) : toml::parse_file(L.manifest_path);
  } catch (const toml::parse_error& e) {
    r.fail("line " + std::to_string(e.source().begin.line), std::string("malformed TOML: ") + std::string(e.description()));
  }
  L.id = r.str(root, "", "id", true);
  if (L.id != dir.filename().string())
    r.fail("id", "'" + L.id + "' does not match the folder name '" + dir.filename().string() + "'");
  L.title = r.str(root, "", "title", true);
  L.readme = r.inside(root, "", "readme", false, "README.md");
  if (!fs::exists(dir / L.readme)) r.fail("readme", "file '" + L.readme + "' not found");
  if (auto sn = root.get("steps")) {
    auto arr = sn->as_array();
    if (!arr) r.fail("steps", "must be an array of tables ([[steps]])");
    for (size_t i = 0; i < arr->size(); ++i) {
      std::string fs_ = "steps[" + std::to_string(i) + "].";
      auto st = arr->get(i)->as_table();
      if (!st) r.fail(fs_, "must be a table");
      Step s;
      s.title = r.str(*st, fs_, "title", false);
      s.text = r.str(*st, fs_, "text", false);
      s.command = r.str(*st, fs_, "run", false);
      if (auto ee = st->get("expect_exit")) {
        auto v = ee->value<int64_t>();
        if (!v || *v < 0 || *v > 255) r.fail(fs_ + "expect_exit", "must be an exit status from 0 to 255");
        if (s.command.empty()) r.fail(fs_ + "expect_exit", "needs a `run` command");
        s.expect_exit = int(*v);
      }
      s.section = r.str(*st, fs_, "section", false);
      s.view = r.str(*st, fs_, "view", false);
      if (auto ms = st->get("measure")) {
        auto mt = ms->as_table();
        if (!mt) r.fail(fs_ + "measure", "must be a table {exercise = \"id\", file = \"x.cu\"}");
        s.measure_exercise = r.str(*mt, fs_ + "measure.", "exercise", true);
        s.measure_file = r.inside(*mt, fs_ + "measure.", "file", true, "", true);
        s.measure_kernel = r.str(*mt, fs_ + "measure.", "kernel", false);
        if (auto sz = mt->get("size")) s.measure_size = r.size(sz, fs_ + "measure.size");
        if (!fs::exists(dir / s.measure_file)) r.fail(fs_ + "measure.file", "file '" + s.measure_file + "' not found");
      }
      if (auto cn = st->get("compare")) s.compare = read_compare(r, *cn, fs_ + "compare.", dir);
      if (auto rl = st->get("roofline_layer")) {
        auto arr = rl->as_array();
        auto a = arr && arr->size() == 2 ? arr->get(0)->value<int64_t>() : std::nullopt;
        auto b = arr && arr->size() == 2 ? arr->get(1)->value<int64_t>() : std::nullopt;
        if (!a || !b || *a < 1 || *b < 1) r.fail(fs_ + "roofline_layer", "must be [input_features, output_features]");
        s.layer_in = int(*a), s.layer_out = int(*b);
      }
      if (auto cg = st->get("cpu_gemm")) {
        auto n = cg->value<int64_t>();
        if (!n || *n < 1 || *n > 8192) r.fail(fs_ + "cpu_gemm", "must be a matrix size from 1 to 8192");
        s.cpu_gemm = int(*n);
      }
      if (auto cc = st->get("cpu_conv")) {
        // {N, C, H, W, K}: lesson 12's 3x3 convolution on this machine's CPU.
        auto t = cc->as_table();
        for (const char* k : {"N", "C", "H", "W", "K"}) {
          auto v = t ? t->get(k) : nullptr;
          auto n = v ? v->value<int64_t>() : std::nullopt;
          if (!n || *n < 1 || *n > 4096) {
            r.fail(fs_ + "cpu_conv", std::string("needs ") + k + " from 1 to 4096 (a table {N, C, H, W, K})");
            break;
          }
          s.cpu_conv[k] = *n;
        }
      }
      if (!s.section.empty()) {
        std::string body = markdown_section(read_text((dir / L.readme).string()), s.section);
        if (body.empty()) r.fail(fs_ + "section", "no heading \"## " + s.section + "\" in " + L.readme);
        if (s.title.empty()) s.title = s.section;
        s.text = body + (s.text.empty() ? "" : "\n" + s.text);
      }
      if (s.text.empty() && s.command.empty() && !s.cpu_gemm && s.cpu_conv.empty() && !s.layer_in && s.measure_file.empty() && !s.compare) r.fail(fs_ + "text", "a step needs text, section, run, or a mix");
      L.steps.push_back(s);
    }
  }
  if (auto en = root.get("exercises")) {
    auto arr = en->as_array();
    if (!arr) r.fail("exercises", "must be an array of tables ([[exercises]])");
    for (size_t i = 0; i < arr->size(); ++i) {
      std::string fe = "exercises[" + std::to_string(i) + "].";
      auto et = arr->get(i)->as_table();
      if (!et) r.fail(fe, "must be a table");
      Exercise e = read_exercise(r, *et, fe, dir);
      if (L.find_exercise(e.id)) r.fail(fe + "id", "duplicate exercise id '" + e.id + "'");
      L.exercises.push_back(std::move(e));
    }
  }
  for (size_t i = 0; i < L.steps.size(); ++i) {
    if (!L.steps[i].measure_exercise.empty() && !L.find_exercise(L.steps[i].measure_exercise))
      r.fail("steps[" + std::to_string(i) + "].measure.exercise", "no exercise '" + L.steps[i].measure_exercise + "'");
    if (const auto& c = L.steps[i].compare) {
      const std::string f = "steps[" + std::to_string(i) + "].compare.";
      const Exercise* e = c->exercise.empty() ? nullptr : L.find_exercise(c->exercise);
      if (!c->exercise.empty() && !e) r.fail(f + "exercise", "no exercise '" + c->exercise + "'");
      if (e)
        for (const auto& [k, v] : e->sizes.front())
          if (!c->size.count(k)) r.fail(f + "size", "needs '" + k + "', as the exercise's sizes have it");
      for (const CompareSide* side : {&c->before, &c->after})
        for (const CompareLaunch& l : side->launches) {
          const std::string where = f + (side == &c->before ? "before" : "after") + ".kernel";
          if (!e && l.kernel.empty()) r.fail(where, "missing (no exercise names it)");
          const std::string kernel = l.kernel.empty() ? e->kernel : l.kernel;
          if (!source_defines_kernel(read_text((dir / l.file).string()), kernel))
            r.fail(where, "no __global__ function '" + kernel + "' in " + l.file);
        }
    }
    // A step's own size names the same variables as the exercise's sizes.
    if (const Exercise* e = L.find_exercise(L.steps[i].measure_exercise); e && !L.steps[i].measure_size.empty())
      for (const auto& [k, v] : e->sizes.front())
        if (!L.steps[i].measure_size.count(k))
          r.fail("steps[" + std::to_string(i) + "].measure.size", "needs '" + k + "', as the exercise's sizes have it");
  }
  return L;
}

}  // namespace

std::string markdown_section(const std::string& md, const std::string& heading) {
  std::string want = "## " + heading;
  size_t p = 0;
  while (p < md.size()) {
    size_t e = md.find('\n', p);
    if (e == std::string::npos) e = md.size();
    std::string line = trim(md.substr(p, e - p));
    if (line == want) {
      size_t start = e + 1, q = start;
      while (q < md.size()) {
        size_t qe = md.find('\n', q);
        if (qe == std::string::npos) qe = md.size();
        if (md.compare(q, 3, "## ") == 0) break;
        q = qe + 1;
      }
      return trim(md.substr(std::min(start, md.size()), std::min(q, md.size()) - std::min(start, md.size())));
    }
    p = e + 1;
  }
  return "";
}

std::string find_lesson_dir(const std::string& root, const std::string& target) {
  std::error_code ec;
  if (fs::is_directory(target, ec)) return target;
  if (target.empty() || !fs::is_directory(root, ec)) return "";
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (e.is_directory() && e.path().filename().string().rfind(target, 0) == 0) names.push_back(e.path().string());
  std::sort(names.begin(), names.end());
  return names.empty() ? "" : names.front();
}

std::vector<Lesson> load_lessons(const std::string& root) {
  std::vector<std::string> dirs;
  for (auto& d : fs::directory_iterator(root))
    if (d.is_directory() && fs::exists(d.path() / "lesson.toml")) dirs.push_back(d.path().string());
  std::sort(dirs.begin(), dirs.end());
  std::vector<Lesson> out;
  for (auto& d : dirs) out.push_back(load_lesson(d));
  return out;
}

}  // namespace lab::lesson
