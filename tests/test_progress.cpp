// tests/test_progress.cpp: progress that cannot be lost (issue 17 item 1),
// the lesson flow around it (issue 16 item 4) and the manifest's path rule.
// Concurrency is tested with real processes (fork), as students run them.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/lesson/manifest.h"
#include "lab/lesson/progress.h"
#include "lab/lesson/runner.h"
#include "lab/lesson/workspace.h"

namespace fs = std::filesystem;
using namespace lab::lesson;

namespace {

struct Scratch {
  fs::path path;
  Scratch() {
    static int n = 0;
    path = fs::temp_directory_path() / ("gpulab_test_progress_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Scratch() { fs::remove_all(path); }
};

void spit(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << s;
}

// Runs `body` in `n` child processes at once; true when every child exited 0.
template <class F>
bool in_processes(int n, F body) {
  std::vector<pid_t> kids;
  for (int i = 0; i < n; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      int rc = 0;
      try {
        body(i);
      } catch (...) {
        rc = 1;
      }
      _exit(rc);
    }
    kids.push_back(pid);
  }
  bool ok = true;
  for (pid_t k : kids) {
    int status = 0;
    waitpid(k, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return ok;
}

}  // namespace

TEST_CASE("concurrent commands never erase each other's records") {
  Scratch t;
  std::string file = (t.path / ".gpulab" / "progress.json").string();
  SUBCASE("two checks of one exercise: every count is kept") {
    // Issue 17: two concurrent checks of one exercise recorded 41 of 81 counts.
    REQUIRE(in_processes(4, [&](int) {
      Progress p(file);
      for (int i = 0; i < 25; ++i) p.update("01-x", "a", [](ExerciseProgress& e) { e.checks++; });
    }));
    Progress after(file);
    REQUIRE(after.find("01-x", "a"));
    CHECK(after.find("01-x", "a")->checks == 100);
  }
  SUBCASE("a long-running command (watch) and check on different exercises") {
    // Each opened its Progress before the other wrote: the old code rewrote
    // the whole file from that stale copy and erased the other's pass.
    Progress watch(file), check(file);
    check.update("03-c", "b", [](ExerciseProgress& e) { e.done = true, e.checks++; });
    watch.update("02-s", "a", [](ExerciseProgress& e) { e.hints_shown++; });
    Progress after(file);
    CHECK(after.done("03-c", "b"));
    CHECK(after.find("02-s", "a")->hints_shown == 1);
    // ... and in separate processes, interleaved many times.
    REQUIRE(in_processes(2, [&](int who) {
      Progress p(file);
      for (int i = 0; i < 30; ++i)
        p.update(who ? "05-o" : "04-t", "x", [&](ExerciseProgress& e) { e.checks++, e.done = (i % 2 == 0) || who; });
    }));
    Progress end(file);
    CHECK(end.find("04-t", "x")->checks == 30);
    CHECK(end.find("05-o", "x")->checks == 30);
    CHECK(end.done("05-o", "x"));
    CHECK(end.done("03-c", "b"));
  }
}

TEST_CASE("progress lives inside its lessons folder; old progress is migrated") {
  Scratch t;
  fs::create_directories(t.path / "copy1" / "lessons");
  fs::create_directories(t.path / "copy2" / "lessons");
  std::string p1 = progress_path_for((t.path / "copy1" / "lessons").string());
  std::string p2 = progress_path_for((t.path / "copy2" / "lessons").string());
  CHECK(p1 == (t.path / "copy1" / "lessons" / ".gpulab" / "progress.json").lexically_normal().string());
  CHECK(p1 != p2);
  // Two lessons folders side by side under one parent: each its own file.
  fs::create_directories(t.path / "both" / "lessons_a");
  fs::create_directories(t.path / "both" / "lessons_b");
  CHECK(progress_path_for((t.path / "both" / "lessons_a").string()) !=
        progress_path_for((t.path / "both" / "lessons_b").string()));
  // The old place: <root>/../.gpulab/progress.json.
  spit(t.path / "copy1" / ".gpulab" / "progress.json",
       R"({"version":1,"exercises":{"01-x/a":{"done":true,"hints_shown":2,"checks":3,"passed_at":"t"}}})");
  Progress p(p1);
  std::string note = migrate_old_progress((t.path / "copy1" / "lessons").string(), p);
  CHECK(note.find("moved") != std::string::npos);
  Progress again(p1);
  CHECK(again.done("01-x", "a"));
  CHECK(again.find("01-x", "a")->checks == 3);
  CHECK(fs::exists(t.path / "copy1" / ".gpulab" / "progress.json.migrated"));
  CHECK(migrate_old_progress((t.path / "copy1" / "lessons").string(), p).empty());  // once only
}

TEST_CASE("hints past the end are clamped") {
  // Issue 17: `hints_shown: 4` by hand (or a lesson update that removed a
  // hint) crashed `gpulab hint` (segfault, bad_alloc).
  Scratch t;
  fs::create_directories(t.path / "lessons");
  fs::copy("lessons/01-latency-vs-throughput", t.path / "lessons" / "01-latency-vs-throughput", fs::copy_options::recursive);
  fs::create_directories((t.path / "lessons" / ".solutions" / "01-latency-vs-throughput").parent_path());
  fs::copy("lessons/.solutions/01-latency-vs-throughput", t.path / "lessons" / ".solutions" / "01-latency-vs-throughput", fs::copy_options::recursive);
  Workspace ws = Workspace::open((t.path / "lessons").string());
  const Lesson& L = ws.lessons.at(0);
  const Exercise& e = L.exercises.at(0);
  const size_t n = e.hints.size();
  REQUIRE(n >= 1);
  for (int shown : {int(n) + 1, 1000000, -5}) {
    CAPTURE(shown);
    spit(ws.progress->path(), "{\"version\":1,\"exercises\":{\"" + L.id + "/" + e.id + "\":{\"hints_shown\":" +
                                  std::to_string(shown) + "}}}");
    ws.progress->reload();
    std::string out = ws.next_hint(L, e);
    const size_t last = shown > 0 ? n : 1;  // a negative count reads as none shown
    CHECK(out.find("Hint " + std::to_string(last) + " of " + std::to_string(n)) != std::string::npos);
    if (shown > 0) CHECK(out.find("No more hints (" + std::to_string(n) + " of " + std::to_string(n) + " shown)") != std::string::npos);
    CHECK(ws.progress->find(L.id, e.id)->hints_shown <= int(n));
    std::string follow = ws.followup(L, e, CheckReport{});
    const bool says_hints = follow.find("hints are shown") != std::string::npos || follow.find("Stuck?") != std::string::npos;
    CHECK(says_hints);
  }
  // Asked one at a time: the last asks says there are no more.
  spit(ws.progress->path(), "{\"version\":1,\"exercises\":{}}");
  ws.progress->reload();
  std::string out;
  for (size_t i = 0; i <= n; ++i) out = ws.next_hint(L, e);
  CHECK(out.find("No more hints (" + std::to_string(n) + " of " + std::to_string(n) + " shown)") != std::string::npos);
}

TEST_CASE("a progress file that cannot be written leaves the command working") {
  Scratch t;
  spit(t.path / "state", "a file where the state folder should be");
  Progress p((t.path / "state" / "progress.json").string());
  CHECK_THROWS_WITH(p.update("01", "a", [](ExerciseProgress& e) { e.checks++; }), doctest::Contains("state"));
  CHECK(p.find("01", "a")->checks == 1);  // this command's view still has it
}

TEST_CASE("manifest paths stay inside the lesson folder") {
  Scratch t;
  fs::path d = t.path / "lessons" / "01-latency-vs-throughput";
  fs::create_directories(d.parent_path());
  fs::copy("lessons/01-latency-vs-throughput", d, fs::copy_options::recursive);
  std::ifstream in(d / "lesson.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string toml = ss.str();
  for (std::string bad : {"../../../x", "/etc/passwd", "sub/../../x"}) {
    CAPTURE(bad);
    std::string t2 = toml;
    auto at = t2.find("file = \"exercise.cu\"");
    REQUIRE(at != std::string::npos);
    t2.replace(at, std::string("file = \"exercise.cu\"").size(), "file = \"" + bad + "\"");
    spit(d / "lesson.toml", t2);
    CHECK_THROWS_WITH_AS(load_lesson(d.string()), doctest::Contains("inside the lesson folder"), ManifestError);
  }
}

TEST_CASE("lesson ids: numbers too large are 'no such lesson', not a library message") {
  std::vector<Lesson> lessons = load_lessons("lessons");
  CHECK_THROWS_WITH_AS(select(lessons, "99999999999999999999"), doctest::Contains("no lesson '99999999999999999999'"),
                       std::invalid_argument);
  CHECK(select(lessons, "3").lesson->id.rfind("03", 0) == 0);
  CHECK(select(lessons, "03").lesson->id.rfind("03", 0) == 0);
}

TEST_CASE("printed commands carry --lessons and work from any folder") {
  std::string c = localize_command("gpulab sim lessons/.solutions/01-latency-vs-throughput/solution.cu --kernel k", "/tmp/my lessons", true);
  CHECK(c == "gpulab sim '/tmp/my lessons/.solutions/01-latency-vs-throughput/solution.cu' --kernel k");
  CHECK(localize_command("gpulab check 03/x", "/w/lessons", true) == "gpulab check 03/x --lessons /w/lessons");
  CHECK(localize_command("gpulab check 03/x", "/w/lessons", false) == "gpulab check 03/x");
  CHECK(localize_command("gpulab occupancy --block 256", "/w/lessons", true) == "gpulab occupancy --block 256");
  Scratch t;
  fs::create_directories(t.path / "L");
  fs::copy("lessons/01-latency-vs-throughput", t.path / "L" / "01-latency-vs-throughput", fs::copy_options::recursive);
  fs::create_directories((t.path / "L" / ".solutions" / "01-latency-vs-throughput").parent_path());
  fs::copy("lessons/.solutions/01-latency-vs-throughput", t.path / "L" / ".solutions" / "01-latency-vs-throughput", fs::copy_options::recursive);
  Workspace ws = Workspace::open((t.path / "L").string());
  CHECK(ws.command("hint 01-latency-vs-throughput/vector-add").find("--lessons " + (t.path / "L").string()) != std::string::npos);
}

TEST_CASE("a check's step budget scales with the exercise's work") {
  std::vector<Lesson> lessons = load_lessons("lessons");
  for (const auto& L : lessons)
    for (const auto& e : L.exercises) {
      uint64_t b = Workspace::step_budget(e);
      CHECK(b >= 200'000);
      CHECK(b <= 100'000'000);
    }
}
