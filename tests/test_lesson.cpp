// tests/test_lesson.cpp: lesson manifests, the self-check, progress state.
//
// The heart: every shipped exercise fails its check with a message that
// says why, every reference solution passes, and a kernel that is correct
// but slow for the wrong reason (lesson 3's kernel submitted for the tiling
// exercise) fails on its metrics, not only on correctness.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "lab/lesson/check.h"
#include "lab/lesson/manifest.h"
#include "lab/lesson/progress.h"
#include "lab/lesson/size_expr.h"

namespace fs = std::filesystem;
using namespace lab::lesson;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
void spit(const fs::path& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << s;
}

// A scratch folder per test, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("gpulab_test_lesson_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int c = 0;
    return c;
  }
};

// A minimal valid lesson in `dir`, for manifest error tests.
void write_min_lesson(const fs::path& dir, const std::string& toml_extra, const std::string& kernel_name = "k") {
  fs::create_directories(dir);
  spit(dir / "README.md", "# t\n\n## Intro\n\ntext\n");
  std::string src = "extern \"C\" __global__ void " + kernel_name + "(const float* a, float* c, int n) {}\n";
  spit(dir / "exercise.cu.template", src);
  spit(dir / "exercise.cu", src);
  spit(dir / "solution.cu", src);
  spit(dir / "lesson.toml", "id = \"" + dir.filename().string() + "\"\ntitle = \"t\"\n" + toml_extra);
}

const char* kMinExercise = R"TOML(
[[exercises]]
id = "e"
file = "exercise.cu"
template = "exercise.cu.template"
solution = "solution.cu"
kernel = "k"
grid = ["cdiv(N, 256)"]
block = [256]
args = ["in f32 a[N]", "out f32 c[N]", "i32 N"]
reference = "transpose"
sizes = [{M = 1, N = 10}]
)TOML";

}  // namespace

TEST_CASE("size expressions: arithmetic, cdiv, errors name the expression") {
  SizeVars v{{"N", 1000}, {"M", 33}};
  CHECK(eval_size("cdiv(N, 256)", v) == 4);
  CHECK(eval_size("M*N/64 + 1", v) == 33 * 1000 / 64 + 1);
  CHECK(eval_size("max(M, 40) - min(2, 3)", v) == 38);
  CHECK_THROWS_WITH_AS(eval_size("K*2", v), doctest::Contains("unknown size 'K'"), SizeExprError);
  CHECK_THROWS_AS(eval_size("N/(M-33)", v), SizeExprError);
  CHECK_THROWS_AS(eval_size("N +", v), SizeExprError);
}

TEST_CASE("argument specs") {
  ArgSpec a = parse_arg_spec("in f32 A[M][K]");
  CHECK(a.role == ArgSpec::Role::In);
  CHECK(a.name == "A");
  CHECK(a.dims == std::vector<std::string>{"M", "K"});
  ArgSpec s = parse_arg_spec("f32 alpha=0.5");
  CHECK(s.role == ArgSpec::Role::Scalar);
  CHECK(s.value == "0.5");
  CHECK_THROWS_AS(parse_arg_spec("in f33 A[N]"), std::invalid_argument);
  CHECK_THROWS_AS(parse_arg_spec("out f32 C"), std::invalid_argument);
}

TEST_CASE("every lesson loads, with exercises whose files exist and are shipped as their template") {
  auto lessons = load_lessons("lessons");
  REQUIRE(lessons.size() >= 10);  // 01-08, 09-reductions and 10-training-step at least
  for (const auto& L : lessons) {
    CAPTURE(L.id);
    CHECK(!L.steps.empty());
    CHECK(!L.exercises.empty());
    for (const auto& e : L.exercises) {
      CAPTURE(e.id);
      CHECK(fs::exists(L.path(e.file)));
      CHECK(slurp(L.path(e.file)) == slurp(L.path(e.template_file)));
      CHECK(!e.hints.empty());
      // Hints point to the idea and the line; none pastes the answer's code
      // (a statement, a declaration, a loop header).
      static const std::regex code(R"((\+=|-=|\*=|__shared__\s|for\s*\(|\w\s*=\s*[^,.:;]*;))");
      for (const auto& h : e.hints) {
        INFO(h);
        CHECK_FALSE(std::regex_search(h, code));
      }
      // A program exercise (lesson 11) has runs, not sizes, and its link criterion is built in.
      if (!e.program.empty()) {
        CHECK(!e.runs.empty());
        continue;
      }
      CHECK(!e.criteria.empty());
      // At least one size is not a multiple of 32 in some dimension.
      bool odd = false;
      for (auto& sz : e.sizes)
        for (auto& [k, v] : sz) odd = odd || v % 32 != 0;
      CHECK(odd);
    }
  }
}

TEST_CASE("manifest errors name the file and the field") {
  TempDir t;
  SUBCASE("malformed TOML") {
    fs::path d = t.path / "09-bad";
    write_min_lesson(d, "steps = [[[\n");
    try {
      load_lesson(d.string());
      FAIL("no error");
    } catch (const ManifestError& e) {
      CHECK(std::string(e.what()).find((d / "lesson.toml").string()) != std::string::npos);
      CHECK(std::string(e.what()).find("malformed TOML") != std::string::npos);
      CHECK(e.field.find("line") != std::string::npos);
    }
  }
  SUBCASE("missing kernel") {
    fs::path d = t.path / "09-bad";
    write_min_lesson(d, kMinExercise, "other_name");
    try {
      load_lesson(d.string());
      FAIL("no error");
    } catch (const ManifestError& e) {
      CHECK(e.file == (d / "lesson.toml").string());
      CHECK(e.field == "exercises[0].kernel");
      CHECK(std::string(e.what()).find("no __global__ function 'k'") != std::string::npos);
    }
  }
  SUBCASE("unknown criterion") {
    fs::path d = t.path / "09-bad";
    write_min_lesson(d, std::string(kMinExercise) + "\n[[exercises.criteria]]\nmetric = \"max_speed\"\nvalue = 1\n");
    try {
      load_lesson(d.string());
      FAIL("no error");
    } catch (const ManifestError& e) {
      CHECK(e.field == "exercises[0].criteria[0].metric");
      CHECK(std::string(e.what()).find("unknown criterion 'max_speed'") != std::string::npos);
      CHECK(std::string(e.what()).find("max_sectors_per_global_load") != std::string::npos);  // lists the known ones
    }
  }
  SUBCASE("unknown size in an expression") {
    fs::path d = t.path / "09-bad";
    std::string ex = std::regex_replace(std::string(kMinExercise), std::regex("cdiv\\(N, 256\\)"), "cdiv(Q, 256)");
    write_min_lesson(d, ex);
    CHECK_THROWS_WITH_AS(load_lesson(d.string()), doctest::Contains("exercises[0].grid"), ManifestError);
  }
  SUBCASE("before/after steps: each mistake names its field") {
    const std::string step = "[[steps]]\ntext = \"x\"\n[steps.compare]\nexercise = \"e\"\n";
    const std::string sides = "before = {label = \"b\", file = \"exercise.cu.template\"}\n"
                              "after = {label = \"a\", file = \"solution.cu\"}\n";
    struct Case {
      const char* name;
      std::string body, field;
    } cases[] = {
        {"no expect", "size = {M = 1, N = 4096}\n" + sides, "steps[0].compare.expect"},
        {"expect reversed", "size = {M = 1, N = 4096}\nexpect = [3, 1]\n" + sides, "steps[0].compare.expect"},
        {"size missing a variable", "size = {N = 4}\nexpect = [1, 2]\n" + sides, "steps[0].compare.size"},
        {"no after", "size = {M = 1, N = 4096}\nexpect = [1, 2]\nbefore = {label = \"b\", file = \"solution.cu\"}\n",
         "steps[0].compare.after"},
        {"kernel not in the file",
         "size = {M = 1, N = 4096}\nexpect = [1, 2]\nbefore = {label = \"b\", file = \"solution.cu\", kernel = \"nope\"}\n"
         "after = {label = \"a\", file = \"solution.cu\"}\n",
         "steps[0].compare.before.kernel"},
        {"a chain without its label",
         "size = {M = 1, N = 4096}\nexpect = [1, 2]\nbefore = [{file = \"solution.cu\"}]\n"
         "after = {label = \"a\", file = \"solution.cu\"}\n",
         "steps[0].compare.before.0.label"},
    };
    for (const auto& c : cases) {
      CAPTURE(c.name);
      fs::path d = t.path / "09-cmp";
      fs::remove_all(d);
      write_min_lesson(d, step + c.body + kMinExercise);
      try {
        load_lesson(d.string());
        FAIL("no error");
      } catch (const ManifestError& e) {
        CHECK(e.field == c.field);
      }
    }
    fs::remove_all(t.path / "09-cmp");
    write_min_lesson(t.path / "09-cmp", step + "size = {M = 1, N = 4096}\nexpect = [1, 2]\n" + sides + kMinExercise);
    Lesson L = load_lesson((t.path / "09-cmp").string());
    REQUIRE(L.steps[0].compare);
    CHECK(L.steps[0].compare->before.launches.size() == 1);
    CHECK(L.steps[0].compare->expect_max == 2);
  }
  SUBCASE("a valid minimal lesson loads") {
    fs::path d = t.path / "09-ok";
    write_min_lesson(d, std::string(kMinExercise) + "\n[[exercises.criteria]]\nmetric = \"max_bank_conflicts\"\nvalue = 0\n");
    Lesson L = load_lesson(d.string());
    REQUIRE(L.exercises.size() == 1);
    CHECK(L.exercises[0].criteria[0].metric == Metric::MaxBankConflicts);
  }
}

TEST_CASE("progress is written atomically and read back") {
  TempDir t;
  fs::path p = t.path / ".gpulab" / "progress.json";
  {
    Progress pr(p.string());
    pr.update("03-coalescing", "coalesced-gemm", [](ExerciseProgress& e) { e.done = true, e.hints_shown = 2; });
  }
  // No temporary left beside the file (only its lock), and the file is whole JSON.
  int files = 0;
  for (auto& f : fs::directory_iterator(p.parent_path())) {
    if (f.path().filename() == "progress.lock") continue;
    ++files;
    CHECK(f.path().filename() == "progress.json");
  }
  CHECK(files == 1);
  Progress again(p.string());
  CHECK(again.done("03-coalescing", "coalesced-gemm"));
  CHECK(again.find("03-coalescing", "coalesced-gemm")->hints_shown == 2);
  CHECK_FALSE(again.done("04-shared-memory-tiling", "tiled-gemm"));
  // A corrupt file is reported, naming it, not silently replaced.
  spit(p, "{not json");
  std::string name = p.string();
  CHECK_THROWS_WITH([&] { Progress corrupt(name); }(), doctest::Contains(name.c_str()));
}

TEST_CASE("reset backs up the student's file before restoring the template") {
  TempDir t;
  fs::copy("lessons/03-coalescing", t.path / "03-coalescing", fs::copy_options::recursive);
  fs::create_directories((t.path / ".solutions" / "03-coalescing").parent_path());
  fs::copy("lessons/.solutions/03-coalescing", t.path / ".solutions" / "03-coalescing", fs::copy_options::recursive);
  Lesson L = load_lesson((t.path / "03-coalescing").string());
  const Exercise& e = L.exercises.at(0);
  spit(L.path(e.file), "// my work in progress\n");
  std::string backup = reset_exercise(L, e, (t.path / "backups").string());
  REQUIRE(!backup.empty());
  CHECK(slurp(backup) == "// my work in progress\n");
  CHECK(slurp(L.path(e.file)) == slurp(L.path(e.template_file)));
  // A second reset keeps the first backup (a new name, nothing overwritten).
  spit(L.path(e.file), "// second attempt\n");
  std::string backup2 = reset_exercise(L, e, (t.path / "backups").string());
  CHECK(backup2 != backup);
  CHECK(slurp(backup) == "// my work in progress\n");
  CHECK(slurp(backup2) == "// second attempt\n");
}

TEST_CASE("every shipped exercise fails its check with a helpful message; every solution passes") {
  auto lessons = load_lessons("lessons");
  for (const auto& L : lessons) {
    for (const auto& e : L.exercises) {
      CAPTURE(L.id);
      CAPTURE(e.id);
      // A program exercise runs through `gpulab run`, which this test does not link:
      // tests/cli/lessons.sh and tests/cli/many_gpus.sh check it through the gpulab binary.
      if (!e.program.empty()) continue;
      CheckOptions o;
      o.source = L.path(e.template_file);  // the exercise as shipped, whatever the student did since
      CheckReport shipped = check_exercise(L, e, o);
      CAPTURE(format_report(shipped));
      CHECK_FALSE(shipped.passed);
      CHECK(shipped.stage != "compile");  // it must compile as shipped
      CHECK(shipped.message.size() > 20);
      if (shipped.stage == "criteria") {
        // A criteria failure names the criterion and a source line.
        bool named = false;
        for (auto& c : shipped.criteria) named = named || (!c.ok && !c.message.empty());
        CHECK(named);
      }
      CheckOptions so;
      so.solution = true;
      CheckReport sol = check_exercise(L, e, so);
      CAPTURE(format_report(sol));
      CHECK(sol.passed);
    }
  }
}

TEST_CASE("a correct but untiled GEMM fails the tiling exercise on its metrics") {
  Lesson L = load_lesson("lessons/04-shared-memory-tiling");
  const Exercise* e = L.find_exercise("tiled-gemm");
  REQUIRE(e);
  // Lesson 3's coalesced kernel, renamed: right answers, no reuse.
  std::string naive = slurp("lessons/.solutions/03-coalescing/solution.cu");
  naive = std::regex_replace(naive, std::regex("gemm_coalesced"), "gemm_tiled");
  TempDir t;
  fs::path f = t.path / "naive_as_tiled.cu";
  spit(f, naive);
  CheckOptions o;
  o.source = f.string();
  CheckReport r = check_exercise(L, *e, o);
  CAPTURE(format_report(r));
  CHECK_FALSE(r.passed);
  CHECK(r.stage == "criteria");  // it is correct on every size ...
  for (auto& s : r.sizes) CHECK(s.ok);
  bool sectors_failed = false, shared_failed = false;
  for (auto& c : r.criteria) {
    if (c.name == "max_global_load_sectors" && !c.ok) {
      sectors_failed = true;
      CHECK(c.measured > 5 * c.limit);  // ... but loads ~10x the sectors a tiled kernel needs
      CHECK(c.line > 0);                 // and the failure points at a source line
    }
    if (c.name == "min_shared_loads_per_global_load" && !c.ok) shared_failed = true;
  }
  CHECK(sectors_failed);
  CHECK(shared_failed);
}

TEST_CASE("an uncoalesced kernel fails on sectors per load instruction at the line that reads A") {
  Lesson L = load_lesson("lessons/03-coalescing");
  const Exercise& e = L.exercises.at(0);
  CheckOptions o;
  o.source = L.path(e.template_file);
  CheckReport r = check_exercise(L, e, o);
  CAPTURE(format_report(r));
  REQUIRE(r.stage == "criteria");
  const CriterionResult& c = r.criteria.at(0);
  CHECK(c.name == "max_sectors_per_global_load");
  CHECK_FALSE(c.ok);
  CHECK(c.measured >= 16);  // 32 rows of A per request, 32 sectors
  CHECK(c.source_line.find("A[row * K + k]") != std::string::npos);
}

TEST_CASE("check --json reports resources and names loads and stores apart") {
  Lesson L = load_lesson("lessons/03-coalescing");
  CheckOptions o;
  o.solution = true;
  CheckReport r = check_exercise(L, L.exercises.at(0), o);
  REQUIRE(r.passed);
  auto j = nlohmann::json::parse(report_json(r));
  CHECK(j["registers_per_thread"].get<int>() > 0);
  CHECK(j["shared_bytes_per_block"].get<int>() == 0);
  CHECK(j["occupancy"].get<double>() > 0);
  CHECK(j["predicted_seconds"].get<double>() > 0);
  std::set<std::string> names;
  for (auto& c : j["criteria"]) names.insert(c["name"].get<std::string>());
  CHECK(names.count("max_sectors_per_global_load"));
  CHECK(names.count("max_sectors_per_global_store"));
  CHECK(names.size() == j["criteria"].size());  // no two criteria under one name
}

TEST_CASE("a block the GPU refuses for its registers fails the check with the GPU's reason") {
  // tests/kernels/many_regs.cu needs more than 64 registers per thread
  // (ptxas, sm_90): 1024 threads need more than H100's 65536 per block.
  TempDir t;
  fs::path d = t.path / "99-regs";
  write_min_lesson(d, R"TOML(
[[exercises]]
id = "e"
file = "exercise.cu"
template = "exercise.cu.template"
solution = "solution.cu"
kernel = "many_regs"
grid = [1]
block = [1024]
args = ["in f32 a[N]", "out f32 c[N]", "i32 N"]
reference = "transpose"
sizes = [{M = 1, N = 1024}]
)TOML", "many_regs");
  Lesson lesson = load_lesson(d.string());
  REQUIRE(lesson.exercises.size() == 1);
  CheckOptions o;
  o.source = fs::absolute("tests/kernels/many_regs.cu").string();
  CheckReport r = check_exercise(lesson, lesson.exercises[0], o);
  CHECK_FALSE(r.passed);
  CHECK(r.message.find("too many resources requested for launch") != std::string::npos);
  CHECK(r.message.find("registers per block") != std::string::npos);
  CHECK(r.message.find("predicted time") == std::string::npos);
  CHECK(r.stage == "launch");
}

TEST_CASE("a measure step may run at its own size (lesson 05's timeline step fills the GPU)") {
  Lesson L = load_lesson("lessons/05-occupancy");
  const Step* timed = nullptr;
  for (const auto& s : L.steps)
    if (!s.measure_size.empty()) timed = &s;
  REQUIRE(timed);
  Exercise ex = L.measured_exercise(*timed);
  REQUIRE(ex.sizes.size() == 1);
  CHECK(ex.metric_size == 0);
  CHECK(ex.sizes[0].at("M") == 1024);
  CHECK(L.find_exercise(timed->measure_exercise)->sizes[0].at("M") == 64);  // the exercise's own sizes unchanged
  // A size missing one of the exercise's variables is refused at load, naming the field.
  TempDir t;
  fs::copy("lessons/05-occupancy", t.path / "05-occupancy", fs::copy_options::recursive);
  fs::create_directories(t.path / ".solutions");
  fs::copy("lessons/.solutions/05-occupancy", t.path / ".solutions" / "05-occupancy", fs::copy_options::recursive);
  // Its before/after runs lesson 4's tiled kernel as the "before".
  fs::copy("lessons/.solutions/04-shared-memory-tiling", t.path / ".solutions" / "04-shared-memory-tiling",
           fs::copy_options::recursive);
  std::string toml = slurp((t.path / "05-occupancy" / "lesson.toml").string());
  auto at = toml.find("size = {M = 1024, N = 1024, K = 64}");
  REQUIRE(at != std::string::npos);
  toml.replace(at, std::string("size = {M = 1024, N = 1024, K = 64}").size(), "size = {M = 1024, N = 1024}");
  spit(t.path / "05-occupancy" / "lesson.toml", toml);
  CHECK_THROWS_WITH_AS(load_lesson((t.path / "05-occupancy").string()), doctest::Contains("measure.size: needs 'K'"),
                       ManifestError);
}

TEST_CASE("wrong values on the size checked without the kernel checks: the checks run there and lead the message") {
  // Lesson 4's reference without its second barrier: correct on the small
  // sizes (one tile step), wrong at 512 x 512 x 64, where the plain run
  // only sees the symptom.
  Lesson L = load_lesson("lessons/04-shared-memory-tiling");
  const Exercise* ex = L.find_exercise("tiled-gemm");
  REQUIRE(ex);
  TempDir t;
  std::string src = slurp(L.path(ex->solution));
  const size_t second = src.find("__syncthreads();", src.find("__syncthreads();") + 1);
  REQUIRE(second != std::string::npos);
  src.replace(second, std::string("__syncthreads();").size(), "/* no barrier */");
  spit(t.path / "nosync.cu", src);
  CheckOptions o;
  o.source = (t.path / "nosync.cu").string();
  CheckReport r = check_exercise(L, *ex, o);
  CHECK_FALSE(r.passed);
  CHECK(r.stage == "correctness");
  CHECK(r.message.find("race") != std::string::npos);
  // Whether the race also corrupts C depends on how far apart the warps run
  // (issue 30: the interpreter now interleaves a block's warps closely, as
  // an SM does, and the symptom may not show); when it does, the race is
  // named first and the wrong values follow it.
  if (r.message.find("elements of 'C' are wrong") != std::string::npos) {
    CHECK(r.message.find("and so:") != std::string::npos);
    CHECK(r.message.find("race") < r.message.find("elements of 'C' are wrong"));
  }
}
