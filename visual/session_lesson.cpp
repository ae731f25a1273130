// visual/session_lesson.cpp: the lesson pane's text. A lesson's steps come
// from its manifest (lab/lesson, the same steps `gpulab lesson` walks); the
// progression's from each version's header comment.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lab/lesson/compare.h"
#include "visual/session_impl.h"

namespace lab::visual {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The comment block heading a kernel file: the story of that version.
std::string header_comment(const std::string& path) {
  std::string md;
  for (const std::string& l : split_lines(read_file(path))) {
    if (l.rfind("//", 0) != 0) break;
    std::string t = l.size() > 2 && l[2] == ' ' ? l.substr(3) : l.substr(2);
    md += t + "\n";
  }
  return md;
}

namespace {
std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  return out;
}
}  // namespace

void Session::Impl::load_lesson() {
  lesson = lesson::load_lesson(cfg.lesson_dir);
  LessonText& lt = base.lesson;
  lt = LessonText{};
  lt.id = lesson->id;
  lt.title = lesson->title;
  for (size_t i = 0; i < lesson->steps.size(); ++i) {
    const lesson::Step& st = lesson->steps[i];
    LessonStep s;
    s.title = st.title;
    s.markdown = "## " + st.title + "\n\n" + st.text;
    if (!st.command.empty()) s.markdown += "\n\n`" + st.command + "`\n";
    s.measure = !st.measure_file.empty();
    if (s.measure) {
      s.run_label = "Run " + lesson_file_label(st.measure_file);
      s.run_target = "step:" + std::to_string(i);
    } else if (program_step(int(i))) {
      s.measure = s.program = true;  // its program runs when the step opens (session_program.cpp)
      s.run_label = "Run the program";
      s.run_target = "step:" + std::to_string(i);
    }
    s.panes = split_commas(st.view);
    // A before/after is shown beside the step's first pane; a step that
    // names none shows it beside its kernel (or alone).
    if (st.compare && s.panes.empty()) {
      if (s.measure || sim_step(int(i))) s.panes.push_back("sm");
      s.panes.push_back("comparison");
    } else if (st.compare && std::find(s.panes.begin(), s.panes.end(), "comparison") == s.panes.end()) {
      // Two large panes read from the back of a room; three do not: the
      // before/after takes the second pane's place.
      if (s.panes.size() >= 2) s.panes.resize(1);
      s.panes.push_back("comparison");
    }
    s.text_only = (st.command.empty() || !command_drawn(int(i))) && !s.measure && !st.compare &&
                  st.layer_in <= 0 && st.cpu_gemm <= 0 && s.panes.empty();
    lt.steps.push_back(std::move(s));
  }
}

namespace {
// The words of a step's `gpulab SUBCOMMAND ...` command when SUBCOMMAND is
// `sub` (lesson commands are plain words, no quoting); empty otherwise.
std::vector<std::string> command_words(const lesson::Lesson* lesson, int step, const char* sub) {
  if (!lesson || step < 0 || step >= int(lesson->steps.size())) return {};
  std::istringstream in(lesson->steps[size_t(step)].command);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (words.size() < 2 || words[0] != "gpulab" || words[1] != sub) return {};
  return words;
}

// A `gpulab train` command the view draws as one CPU step against one GPU
// step; --fit and --sweep print tables, which the step's text carries.
bool compared_train(const std::vector<std::string>& words) {
  if (words.empty()) return false;
  for (const auto& w : words)
    if (w == "--fit" || w == "--sweep") return false;
  return true;
}
}  // namespace

bool Session::Impl::occupancy_step(int step) {
  const std::vector<std::string> words = command_words(lesson ? &*lesson : nullptr, step, "occupancy");
  if (words.empty()) return false;
  std::string gpu = "H100";
  int block = 0, regs = 32, smem = 0;
  for (size_t i = 2; i + 1 < words.size(); i += 2) {
    const std::string &w = words[i], &value = words[i + 1];
    try {
      if (w == "--gpu") gpu = value;
      else if (w == "--block") block = std::stoi(value);
      else if (w == "--regs") regs = std::stoi(value);
      else if (w == "--smem") smem = std::stoi(value);
    } catch (const std::exception&) {
      return false;  // not a number: leave the step to its text
    }
  }
  if (block <= 0) return false;
  occupancy_model(sim::gpu_model(gpu), block, regs, smem);  // throws for an unknown model
  return true;
}

bool Session::Impl::command_drawn(int step) const {
  if (program_step(step) || !command_words(lesson ? &*lesson : nullptr, step, "occupancy").empty()) return true;
  try {
    if (sim_step(step)) return true;
  } catch (const std::exception&) {
    return true;  // a sim command the view will report on
  }
  return compared_train(command_words(lesson ? &*lesson : nullptr, step, "train"));
}

bool Session::Impl::train_step(int step) {
  const std::vector<std::string> words = command_words(lesson ? &*lesson : nullptr, step, "train");
  if (!compared_train(words)) return false;
  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return false;
  std::string cmd = "'" + exe + "'";
  for (size_t i = 1; i < words.size(); ++i) cmd += " " + words[i];  // lesson words: plain, no quoting
  cmd += " --json 2>/dev/null";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
  }
  nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.contains("cpu") || !j.contains("gpu")) return false;
  // The step's GEMM FLOPs per second of each side: of its GEMMs alone, and of
  // the whole step (elementwise kernels, AdamW, launches and copies included).
  const double flop = j.value("gemm_flops_per_step", 0.0);
  const double cpu_ms = j["cpu"].value("step_ms", 0.0), gpu_ms = j["gpu"].value("step_ms", 0.0);
  double cpu_gemm_ms = 0, gpu_gemm_ms = 0;
  if (j["cpu"].contains("part_ms")) cpu_gemm_ms = j["cpu"]["part_ms"].value("gemm", 0.0);
  for (const auto& k : j["gpu"].value("kernels", nlohmann::json::array()))
    if (k.value("part", "") == "gemm") gpu_gemm_ms += k.value("predicted_ms", 0.0);
  if (flop <= 0 || cpu_ms <= 0 || gpu_ms <= 0) return false;
  Comparison c;
  c.problem = fmt::format("`{}`: the step's GEMM FLOPs per second (CPU measured here, GPU predicted by the {} model; "
                          "whole step {:.3f} ms against {:.3f} ms, {:.1f}x)",
                          lesson->steps[size_t(step)].command, j["gpu"].value("model", std::string("H100")), cpu_ms,
                          gpu_ms, cpu_ms / gpu_ms);
  auto row = [&](const char* label, double ms, bool cpu) {
    PerfPoint pt;
    pt.label = label;
    pt.seconds = ms / 1e3;
    pt.gflops = ms > 0 ? flop / (ms / 1e3) / 1e9 : 0;
    pt.cpu = cpu;
    pt.measured = cpu;
    return pt;
  };
  if (cpu_gemm_ms > 0 && gpu_gemm_ms > 0) {
    c.versions.push_back(row("CPU GEMMs", cpu_gemm_ms, true));
    c.versions.push_back(row("GPU GEMMs", gpu_gemm_ms, false));
  }
  c.versions.push_back(row("CPU step", cpu_ms, true));
  c.versions.push_back(row("GPU step", gpu_ms, false));
  base.comparison = std::move(c);
  return true;
}

bool Session::Impl::compare_step(int step) {
  if (!lesson || step < 0 || size_t(step) >= lesson->steps.size() || !lesson->steps[size_t(step)].compare) return false;
  const lesson::Compare& c = *lesson->steps[size_t(step)].compare;
  lesson::CheckOptions opts;
  opts.gpu = &sim::gpu_model(cfg.gpu);
  lesson::CompareResult r;
  try {
    r = lesson::run_compare(*lesson, c, opts);
  } catch (const std::exception& e) {
    // The kernel on screen stays; the chart says why there is no before/after.
    base.comparison = Comparison{};
    base.comparison.problem = std::string("The step's before/after could not run: ") + e.what();
    return false;
  }
  Comparison cmp;
  cmp.before_after = true;
  cmp.expect_min = r.expect_min;
  cmp.expect_max = r.expect_max;
  cmp.problem = fmt::format("Before and after at {}: predicted time on the {} model (shorter is faster)", r.sizes_text,
                            r.gpu);
  // The counters behind the speed-up: the three whole-grid counts that
  // changed most (the table `gpulab lesson --before-after` prints has them all).
  std::vector<Comparison::Counter> rows;
  for (const lesson::CompareRow& c : lesson::compare_rows(r))
    if (c.count) rows.push_back({c.name.substr(0, c.name.find(" (")), c.before, c.after});  // the short name
  auto change = [](const Comparison::Counter& c) {
    if (c.before <= 0 && c.after <= 0) return 0.0;
    if (c.before <= 0 || c.after <= 0) return 1e9;  // present on one side only
    return std::abs(std::log(c.before / c.after));
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& x, const auto& y) { return change(x) > change(y); });
  for (const auto& c : rows)
    if (cmp.counters.size() < 3 && change(c) > std::log(1.05)) cmp.counters.push_back(c);
  for (const lesson::CompareFigures* f : {&r.before, &r.after}) {
    PerfPoint pt;
    pt.label = f->label;
    pt.seconds = f->seconds;
    cmp.versions.push_back(pt);
  }
  base.comparison = std::move(cmp);
  return true;
}

std::optional<KernelRun> Session::Impl::sim_step(int step) const {
  const std::vector<std::string> words = command_words(lesson ? &*lesson : nullptr, step, "sim");
  if (words.size() < 3) return std::nullopt;
  // A lessons/... path names the lessons folder this view reads (a copy too),
  // the rule lesson::localize_command applies to the commands `gpulab lesson` runs.
  const std::filesystem::path lessons_root = std::filesystem::path(cfg.lesson_dir).parent_path();
  auto local = [&](const std::string& w) {
    return w.rfind("lessons/", 0) == 0 ? (lessons_root / w.substr(8)).string() : w;
  };
  auto dims = [](const std::string& v) {
    uint32_t d[3] = {1, 1, 1};
    std::istringstream parts(v);
    std::string part;
    for (int i = 0; i < 3 && std::getline(parts, part, ','); ++i) d[i] = uint32_t(std::stoul(part));
    return sim::Dim3{d[0], d[1], d[2]};
  };
  KernelRun r;
  std::string gpu = "H100";
  try {
    for (size_t i = 2; i < words.size(); ++i) {
      const std::string& w = words[i];
      const bool has_value = i + 1 < words.size();
      if (w == "--kernel" && has_value) r.request.kernel = words[++i];
      else if (w == "--grid" && has_value) r.request.launch.grid = dims(words[++i]);
      else if (w == "--block" && has_value) r.request.launch.block = dims(words[++i]);
      else if (w == "--arg" && has_value) r.request.args.push_back(words[++i]);
      else if (w == "--gpu" && has_value) gpu = words[++i];
      else if (w == "--smem" && has_value) r.request.launch.dynamic_shared_bytes = uint32_t(std::stoul(words[++i]));
      else if ((w == "-D" || w == "--define") && has_value) r.request.defines.push_back(words[++i]);
      else if (w.rfind("--", 0) == 0) {
        // Options that change how it is reported, not what runs: skip them and their value.
        if (w != "--json" && w != "--check" && w != "--sample" && has_value) ++i;
      } else if (r.request.file.empty()) {
        r.request.file = local(w);
      }
    }
  } catch (const std::exception&) {
    return std::nullopt;  // a number that is not one: the step keeps its text
  }
  if (r.request.file.empty() || r.request.kernel.empty()) return std::nullopt;
  r.request.gpu = &sim::gpu_model(gpu);
  // "FILE at SIZE", as a measure step's label reads (the launch panel shows what follows " at ").
  const sim::Dim3 g = r.request.launch.grid, b = r.request.launch.block;
  r.label = std::filesystem::path(r.request.file).filename().string() + " at grid " + std::to_string(g.x) + "," +
            std::to_string(g.y) + "," + std::to_string(g.z) + ", block " + std::to_string(b.x) + "," +
            std::to_string(b.y) + "," + std::to_string(b.z);
  r.lesson_step = step;
  return r;
}

std::string lesson_file_label(const std::string& path) {
  if (path.find(".solutions/") == std::string::npos) return path;
  return path.substr(path.find_last_of('/') + 1);
}

void Session::Impl::progression_text() {
  base.lesson = LessonText{};
  base.lesson.title = "The GEMM progression";
  for (const auto& vv : versions) {
    LessonStep s;
    s.title = vv.name;
    s.markdown = "# " + vv.name + "\n\n" + header_comment(vv.file);
    s.run_label = "Run " + vv.name;
    s.run_target = vv.name;
    base.lesson.steps.push_back(s);
  }
}

}  // namespace lab::visual
