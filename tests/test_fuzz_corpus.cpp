// tests/test_fuzz_corpus.cpp: replays the fuzzers' corpora (tests/fuzz/corpus/)
// through the same entry functions the libFuzzer targets call, so CI catches
// a regression on any input the fuzzers ever kept, without clang's fuzzer.
// Each input must parse or be refused with the documented error type; the
// entry functions abort on anything else (see tests/fuzz/*.cpp).
#define GPULAB_FUZZ_NO_MAIN
#include "../tests/fuzz/fuzz_arg_spec.cpp"
#include "../tests/fuzz/fuzz_ptx_parser.cpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;

static std::vector<fs::path> corpus(const char* which) {
  std::vector<fs::path> files;
  fs::path dir = fs::path(GPULAB_SOURCE_DIR) / "tests/fuzz/corpus" / which;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

static std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_CASE("PTX parser corpus: every input parses or throws ParseError") {
  auto files = corpus("ptx");
  CHECK(files.size() >= 10);
  size_t parsed = 0;
  for (const auto& f : files) {
    CAPTURE(f.string());
    std::string text = slurp(f);
    CHECK_NOTHROW(lab::fuzz::fuzz_ptx_parser_one(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    try {
      lab::ptx::parse(text, f.filename().string());
      ++parsed;
    } catch (const lab::ptx::ParseError&) {
    }
  }
  // The seeds from nvcc are real kernels: the parser must accept nearly all
  // of them, or the fuzzer would only ever explore the error paths.
  MESSAGE(parsed << " of " << files.size() << " PTX corpus files parse");
}

TEST_CASE("nvcc's PTX for the check corpus parses") {
  for (const auto& f : corpus("ptx")) {
    std::string name = f.filename().string();
    if (name.rfind("features_", 0) == 0 || name.rfind("crash-", 0) == 0 || name.find('.') == std::string::npos)
      continue;  // feature seeds may use instructions the lab refuses; findings are not PTX
    CAPTURE(name);
    std::string text = slurp(f);
    lab::ptx::Module m;
    CHECK_NOTHROW(m = lab::ptx::parse(text, name));
    CHECK(!m.kernels.empty());
  }
}

TEST_CASE("--arg spec corpus: every input parses or throws ArgSpecError") {
  auto files = corpus("arg_spec");
  CHECK(files.size() >= 10);
  for (const auto& f : files) {
    CAPTURE(f.string());
    std::string text = slurp(f);
    CHECK_NOTHROW(lab::fuzz::fuzz_arg_spec_one(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  }
}

TEST_CASE("a buffer whose byte size overflows 64 bits is refused") {
  // i64[2^61 + 1]: 8 * count wraps to 8 bytes; it must not become an
  // 8-byte buffer that fill_elements then writes 2^64 bytes into.
  CHECK_THROWS_AS(lab::sim::parse_arg_spec("i64[2305843009213693953]=zero"), lab::sim::ArgSpecError);
  CHECK_THROWS_AS(lab::sim::parse_arg_spec("u8[9223372036854775807]"), lab::sim::ArgSpecError);
  CHECK_NOTHROW(lab::sim::parse_arg_spec("u8[1048576]"));
}
