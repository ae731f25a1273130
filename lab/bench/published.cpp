// lab/bench/published.cpp: run published kernels from repository snapshots
// through the simulator and the machine model, beside the published timings.
#include "lab/bench/published.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "lab/compile/cache_file.h"
#include "lab/compile/nvrtc.h"
#include "lab/cuda/kernel_run.h"

#include "lab/sim/device.h"
#include "lab/sim/report.h"
#include "lab/sim/run.h"

namespace lab::bench {
namespace fs = std::filesystem;
using nlohmann::json;

double spearman_rho(const std::vector<double>& a, const std::vector<double>& b) {
  // Pearson correlation of the ranks; ties get their average rank.
  auto ranks = [](const std::vector<double>& v) {
    std::vector<size_t> idx(v.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](size_t i, size_t j) { return v[i] < v[j]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < idx.size();) {
      size_t j = i;
      while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
      for (size_t k = i; k <= j; ++k) r[idx[k]] = (double(i) + double(j)) / 2 + 1;
      i = j + 1;
    }
    return r;
  };
  if (a.size() != b.size() || a.size() < 2) return 0;
  auto ra = ranks(a), rb = ranks(b);
  double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / double(ra.size());
  double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / double(rb.size());
  double num = 0, da = 0, db = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    num += (ra[i] - ma) * (rb[i] - mb);
    da += (ra[i] - ma) * (ra[i] - ma);
    db += (rb[i] - mb) * (rb[i] - mb);
  }
  return da > 0 && db > 0 ? num / std::sqrt(da * db) : 0;
}

double published_to_ms(double value, const std::string& unit, double flops, double bytes) {
  if (value <= 0) throw std::invalid_argument(fmt::format("published value {} {} is not positive", value, unit));
  if (unit == "ms") return value;
  if (unit == "us") return value / 1e3;
  if (unit == "ns") return value / 1e6;
  if (unit == "s") return value * 1e3;
  auto need = [&](double x, const char* what) {
    if (x <= 0) throw std::invalid_argument(fmt::format("unit '{}' needs '{}' in the entry or its table", unit, what));
    return x;
  };
  if (unit == "GFLOP/s") return need(flops, "flops") / (value * 1e9) * 1e3;
  if (unit == "TFLOP/s") return need(flops, "flops") / (value * 1e12) * 1e3;
  if (unit == "GB/s") return need(bytes, "bytes") / (value * 1e9) * 1e3;
  throw std::invalid_argument(fmt::format("unknown unit '{}': use ms, us, ns, s, GFLOP/s, TFLOP/s or GB/s", unit));
}

namespace {

// Runs a command and returns its standard output; throws when it fails.
std::string capture(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) throw std::runtime_error("cannot run: " + cmd);
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  if (rc != 0) {
    while (!out.empty() && out.back() == '\n') out.pop_back();
    throw std::runtime_error(fmt::format("'{}' failed: {}", cmd, out));
  }
  return out;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// DIR/<owner>+<name>/repo (the `fetch` layout), DIR/<owner>+<name>, or DIR/<owner>/<name>.
std::string snapshot_dir(const std::string& mirror, const std::string& repo) {
  std::string flat = repo;
  std::replace(flat.begin(), flat.end(), '/', '+');
  for (const fs::path& p : {fs::path(mirror) / flat / "repo", fs::path(mirror) / flat, fs::path(mirror) / repo})
    if (fs::exists(p / "HEAD") || fs::exists(p / ".git")) return p.string();
  throw std::runtime_error(fmt::format("no snapshot of {} under {} (expected {}/{}/repo); fetch it first", repo,
                                       mirror, mirror, flat));
}

// The file at COMMIT with every #include line blanked (host headers are not
// compiled by NVRTC; the entry includes what the kernel needs itself) and,
// when `keep` is given, every line outside its ranges blanked. Line numbers
// are kept, so the report's lines are the original file's.
std::string extract(const std::string& dir, const std::string& commit, const std::string& path, const json& keep) {
  std::string text = capture(fmt::format("git -C {} show {}", shell_quote(dir), shell_quote(commit + ":" + path)));
  std::istringstream in(text);
  std::string line, out;
  for (int no = 1; std::getline(in, line); ++no) {
    bool kept = keep.is_null() || keep.empty();
    for (const auto& r : keep)
      if (no >= r.at(0).get<int>() && no <= r.at(1).get<int>()) kept = true;
    std::string trimmed = line.substr(std::min(line.size(), line.find_first_not_of(" \t")));
    if (trimmed.rfind("#include", 0) == 0 || trimmed.rfind("#pragma once", 0) == 0) kept = false;
    out += kept ? line : std::string();
    out += '\n';
  }
  return out;
}

sim::Dim3 parse_dim(const std::string& text) {
  sim::Dim3 d;
  uint32_t v[3] = {1, 1, 1};
  std::istringstream in(text);
  std::string part;
  for (int i = 0; i < 3 && std::getline(in, part, ','); ++i) v[i] = uint32_t(std::stoul(part));
  d.x = v[0], d.y = v[1], d.z = v[2];
  return d;
}

double num_or(const json& j, const char* key, double fallback) {
  return j.contains(key) ? j.at(key).get<double>() : fallback;
}

// Writes `text` to `path` unless the file already holds it, by a rename, so
// another validate reading the folder at the same time sees one or the other.
void write_if_changed(const fs::path& path, const std::string& text) {
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::stringstream have;
      have << in.rdbuf();
      if (have.str() == text) return;
    }
  }
  fs::create_directories(path.parent_path());
  fs::path tmp = path;
  tmp += fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write '{}'", tmp.string()));
  }
  fs::rename(tmp, path);
}

void run_row(const PublishedOptions& o, const json& table, const json& k, const std::string& snapshot,
             const std::string& tmp, PublishedRow& row) {
  const sim::GpuModel& gpu = sim::gpu_model(table.at("gpu").get<std::string>());
  // Sources into the table's folder (`tmp`), then a wrapper that includes them.
  std::string wrapper = table.value("prelude", std::string()) + k.value("prelude", std::string());
  // FNV-1a of the included files' text, written into the wrapper: the PTX
  // cache keys on the wrapper's text, so an edited kernel is compiled again.
  uint64_t sources = compile::fnv1a("");
  auto hash = [&](const std::string& text) { sources = compile::fnv1a(text, sources); };
  for (const auto& f : k.at("files")) {
    std::string path = f.is_string() ? f.get<std::string>() : f.at("path").get<std::string>();
    if (snapshot.empty()) {  // "local": the lab's own kernels, compiled as they are in the working tree
      std::ifstream in(path, std::ios::binary);
      if (!in) throw std::runtime_error(fmt::format("'{}' not found (run from the repository root)", path));
      std::stringstream text;
      text << in.rdbuf();
      hash(text.str());
      wrapper += fmt::format("#include \"{}\"\n", fs::absolute(path).string());
      continue;
    }
    json keep = f.is_object() && f.contains("keep") ? f.at("keep") : json();
    const std::string text = extract(snapshot, table.at("commit").get<std::string>(), path, keep);
    hash(text);
    write_if_changed(fs::path(tmp) / path, text);
    wrapper += fmt::format("#include \"{}\"\n", path);
  }
  wrapper += k.value("instantiate", std::string()) + "\n";
  wrapper += fmt::format("// included sources: {:016x}\n", sources);
  std::string wrapper_path = (fs::path(tmp) / ("published_" + row.label + ".cu")).string();
  write_if_changed(wrapper_path, wrapper);

  sim::RunRequest req;
  req.file = wrapper_path;
  req.kernel = k.at("kernel").get<std::string>();
  req.args = k.at("args").get<std::vector<std::string>>();
  req.gpu = &gpu;
  for (const json* j : {&table, &k})
    if (j->contains("defines"))
      for (const auto& d : j->at("defines")) req.defines.push_back(d.get<std::string>());
  req.options.threads = o.threads;
  sim::LaunchConfig full;
  full.grid = parse_dim(k.at("grid").get<std::string>());
  full.block = parse_dim(k.at("block").get<std::string>());
  full.dynamic_shared_bytes = uint32_t(k.value("smem", 0));
  req.launch = full;
  // Big grids: the cycle model's own sample (a slice of SMs over chosen
  // waves, timed cycle by cycle and scaled; lab/sim/cycle/sample.cpp) runs
  // only the blocks it times. Kernels that read gridDim (grid-stride loops)
  // are run whole. --sample-blocks N: sample grids of more than N blocks.
  uint64_t budget = o.sample_blocks ? o.sample_blocks : table.value("sample_blocks", uint64_t(0));
  const bool sample = k.value("sample", true) && budget > 0 && full.grid.count() > budget;
  req.options.timing.sample_only = sample;
  row.blocks_total = full.grid.count();
  if (o.measure_on_gpu) {
    try {
      sim::RunRequest whole = req;
      whole.launch = full;
      lab::cuda::GpuRunOutcome m = lab::cuda::run_kernel_on_gpu(whole);
      row.measured_ms = m.median_ms;
      row.measured_device = m.device;
    } catch (const std::exception& e) {
      std::string msg = e.what();
      row.measured_note = msg.substr(0, msg.find('\n'));
    }
    if (o.measure_only) {
      row.note = "measured only";
      return;
    }
  }

  sim::RunOutcome run = sim::run_kernel(req);
  row.kernel = run.kernel().name;
  row.sim_seconds = run.result.metrics.sim_seconds;
  row.blocks_simulated = run.result.metrics.blocks;
  if (!run.result.ok) {
    row.note = "the kernel faulted in the simulator: " +
               (run.result.errors.empty() ? std::string("?") : run.result.errors.front().message);
    return;
  }
  sim::KernelReport kr = sim::build_report(run.compiled, full, run.result.metrics);
  row.predicted_ms = kr.predicted.time_ms;
  row.bound = kr.predicted.limiter;
}

void table_figures(PublishedTable& t) {
  std::vector<double> pub, pred;
  for (const auto& r : t.rows)
    if (r.predicted_ms && r.published_ms > 0) pub.push_back(r.published_ms), pred.push_back(*r.predicted_ms);
  t.n = int(pub.size());
  if (pub.empty()) return;
  double fast_pub = *std::min_element(pub.begin(), pub.end());
  double fast_pred = *std::min_element(pred.begin(), pred.end());
  double e = 0, er = 0;
  for (size_t i = 0; i < pub.size(); ++i) {
    e += std::abs(pred[i] - pub[i]) / pub[i];
    double rp = pub[i] / fast_pub, rq = pred[i] / fast_pred;
    er += std::abs(rq - rp) / rp;
  }
  t.mape = 100 * e / double(pub.size());
  t.relative_mape = 100 * er / double(pub.size());
  t.spearman = spearman_rho(pub, pred);
}

}  // namespace

PublishedReport run_published(const PublishedOptions& o) {
  std::ifstream in(o.file);
  if (!in) throw std::runtime_error(fmt::format("cannot read '{}'", o.file));
  json data;
  try {
    data = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON: {}", o.file, e.what()));
  }
  PublishedReport rep;
  for (const auto& table : data.at("tables")) {
    std::string id = table.at("id").get<std::string>();
    if (!o.only_tables.empty() && std::find(o.only_tables.begin(), o.only_tables.end(), id) == o.only_tables.end())
      continue;
    // Each table's sources and wrappers in a folder of the cache named by the
    // table, the same on every run: the PTX cache, keyed by the file's path,
    // finds them again (a fresh temporary folder per run compiled every
    // kernel again and left about 100 PTX files in the cache each time).
    const std::string tmp = (fs::path(compile::cache_dir()) / "published" / id).string();
    PublishedTable t;
    t.id = id;
    t.title = table.at("title").get<std::string>();
    t.url = table.at("url").get<std::string>();
    t.gpu = std::string(sim::gpu_model(table.at("gpu").get<std::string>()).name);
    t.size = table.value("size", std::string());
    t.conversion = table.value("conversion", std::string());
    t.repo = table.at("repo").get<std::string>();
    t.commit = table.at("commit").get<std::string>();
    std::string snapshot;
    std::string snapshot_error;
    try {
      if (!table.value("local", false)) snapshot = snapshot_dir(o.mirror, t.repo);
    } catch (const std::exception& e) {
      snapshot_error = e.what();
    }
    for (const auto& k : table.at("kernels")) {
      PublishedRow row;
      row.table = id;
      row.label = k.at("label").get<std::string>();
      if (!o.only_kernels.empty() &&
          std::find(o.only_kernels.begin(), o.only_kernels.end(), row.label) == o.only_kernels.end())
        continue;
      // Rows without a published figure (the lab's own progression) are predicted only.
      if (k.contains("published")) {
        const json& pub = k.at("published");
        double value = pub.at("value").get<double>();
        std::string unit = pub.at("unit").get<std::string>();
        row.published_text = fmt::format("{} {}", value, unit);
        row.published_ms = published_to_ms(value, unit, num_or(k, "flops", num_or(table, "flops", 0)),
                                           num_or(k, "bytes", num_or(table, "bytes", 0)));
      }
      if (!snapshot_error.empty()) {
        row.note = snapshot_error;
      } else if (k.contains("skip")) {
        row.note = k.at("skip").get<std::string>();
      } else {
        if (o.progress) o.progress(fmt::format("published  {:<24} {:<28} on {} ...", id, row.label, t.gpu));
        try {
          run_row(o, table, k, snapshot, tmp, row);
        } catch (const std::exception& e) {
          std::string msg = e.what();
          row.note = msg.substr(0, msg.find('\n'));
        }
        if (o.progress && row.predicted_ms)
          o.progress(fmt::format("           predicted {:.4g} ms, published {:.4g} ms ({} of {} blocks, {:.1f} s)",
                                 *row.predicted_ms, row.published_ms, row.blocks_simulated, row.blocks_total,
                                 row.sim_seconds));
        else if (o.progress)
          o.progress("           no prediction: " + row.note);
      }
      t.rows.push_back(row);
    }
    table_figures(t);
    rep.tables.push_back(std::move(t));
  }
  return rep;
}

std::string format_published_markdown(const PublishedReport& r) {
  std::string s;
  s += "| table | GPU | kernels | MAPE | Spearman rho | relative-speed error |\n|---|---|---|---|---|---|\n";
  for (const auto& t : r.tables)
    if (t.n > 0)
      s += fmt::format("| {} | {} | {} | {:.0f}% | {:.2f} | {:.0f}% |\n", t.id, t.gpu, t.n, t.mape, t.spearman,
                     t.relative_mape);
  for (const auto& t : r.tables) {
    s += fmt::format("\n#### {} ({}, {})\n\n", t.id, t.gpu, t.size);
    s += fmt::format("Source: [{}]({}). Kernels: {} at {}. {}\n\n", t.title, t.url, t.repo, t.commit.substr(0, 12),
                     t.conversion);
    bool any_measured = false;
    for (const auto& row : t.rows) any_measured |= row.measured_ms.has_value();
    if (any_measured) {
      // --measure: this machine's GPU beside the model, kernel by kernel.
      s += "Measured here (--measure): ";
      for (const auto& row : t.rows)
        if (row.measured_ms)
          s += fmt::format("{} {:.4g} ms on {}{}; ", row.label, *row.measured_ms, row.measured_device,
                           row.predicted_ms ? fmt::format(" (predicted {:.4g})", *row.predicted_ms) : "");
      s += "\n\n";
    }
    s += "| kernel | published | published ms | predicted ms | error | vs fastest, published | vs fastest, predicted "
         "| model's limiter | blocks simulated |\n|---|---|---|---|---|---|---|---|---|\n";
    double fast_pub = 0, fast_pred = 0;
    for (const auto& row : t.rows)
      if (row.predicted_ms && row.published_ms > 0) {
        fast_pub = fast_pub == 0 ? row.published_ms : std::min(fast_pub, row.published_ms);
        fast_pred = fast_pred == 0 ? *row.predicted_ms : std::min(fast_pred, *row.predicted_ms);
      }
    for (const auto& row : t.rows) {
      if (!row.predicted_ms) {
        s += fmt::format("| {} | {} | {:.4g} | not run: {} | | | | | |\n", row.label, row.published_text,
                         row.published_ms, row.note);
        continue;
      }
      if (row.published_ms <= 0) {
        s += fmt::format("| {} | (none) | | {:.4g} | | | | {} | {} of {} |\n", row.label, *row.predicted_ms, row.bound,
                         row.blocks_simulated, row.blocks_total);
        continue;
      }
      double err = 100 * (*row.predicted_ms - row.published_ms) / row.published_ms;
      s += fmt::format("| {} | {} | {:.4g} | {:.4g} | {:+.0f}% | {:.2f}x | {:.2f}x | {} | {} of {} |\n", row.label,
                       row.published_text, row.published_ms, *row.predicted_ms, err, row.published_ms / fast_pub,
                       *row.predicted_ms / fast_pred, row.bound, row.blocks_simulated, row.blocks_total);
    }
    if (t.n > 0)
      s += fmt::format("\n{} kernels: MAPE {:.0f}%, Spearman rho {:.2f}, relative-speed error {:.0f}%.\n", t.n, t.mape,
                       t.spearman, t.relative_mape);
  }
  return s;
}

json published_json(const PublishedReport& r) {
  json out = {{"command", r.command}, {"tables", json::array()}};
  for (const auto& t : r.tables) {
    json jt = {{"id", t.id},     {"gpu", t.gpu},           {"size", t.size},
               {"source", t.title}, {"url", t.url},        {"repo", t.repo},
               {"commit", t.commit}, {"kernels", t.n},     {"mape_percent", t.mape},
               {"spearman", t.spearman}, {"relative_mape_percent", t.relative_mape}, {"rows", json::array()}};
    for (const auto& row : t.rows) {
      json jr = {{"label", row.label}, {"kernel", row.kernel}, {"published", row.published_text},
                 {"published_ms", row.published_ms}, {"blocks_simulated", row.blocks_simulated},
                 {"blocks_total", row.blocks_total}, {"sim_seconds", row.sim_seconds}};
      if (row.predicted_ms) jr["predicted_ms"] = *row.predicted_ms, jr["limiter"] = row.bound;
      else jr["not_run"] = row.note;
      if (row.measured_ms) jr["measured_ms"] = *row.measured_ms, jr["measured_on"] = row.measured_device;
      else if (!row.measured_note.empty()) jr["measured_error"] = row.measured_note;
      jt["rows"].push_back(jr);
    }
    out["tables"].push_back(jt);
  }
  return out;
}

}  // namespace lab::bench
