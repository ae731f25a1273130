// tests/test_lesson_side_kernels.cpp: the kernels a lesson times beside its
// exercise compute what the exercise computes. A compare step times its sides
// without checking what they compute (the check does that for the exercise's
// files only), so lesson 12's direct, im2col and register-tiled convolutions
// and lesson 13's unfused attention chain are run here, whole, on odd shapes,
// and held against the float64 references the exercises use; so are the CPU
// convolutions lesson 12 times (lab/cpu/conv.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "lab/cpu/conv.h"
#include "lab/cpu/gemm.h"
#include "lab/lesson/manifest.h"
#include "lab/lesson/measure_run.h"
#include "lab/lesson/reference.h"
#include "lab/sim/float16.h"
#include "lab/sim/run.h"

#include <fmt/format.h>
#include <unistd.h>

using namespace lab;
using namespace lab::lesson;

namespace {

const SizeVars kShapes[] = {{{"N", 2}, {"C", 3}, {"H", 5}, {"W", 7}, {"K", 5}},
                            {{"N", 1}, {"C", 11}, {"H", 9}, {"W", 33}, {"K", 70}}};

std::vector<float> read_floats(const sim::RunOutcome& o, size_t arg) {
  std::vector<float> v(o.args.buffer_bytes.at(arg) / 4);
  o.memory->read(o.args.buffer_address.at(arg), v.data(), v.size() * 4);
  return v;
}

std::vector<float> read_halves(const sim::RunOutcome& o, size_t arg) {
  std::vector<uint16_t> h(o.args.buffer_bytes.at(arg) / 2);
  o.memory->read(o.args.buffer_address.at(arg), h.data(), h.size() * 2);
  std::vector<float> v(h.size());
  for (size_t i = 0; i < h.size(); ++i) v[i] = sim::half_to_float(h[i]);
  return v;
}

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

std::vector<double> reference_conv(const SizeVars& s, const std::vector<float>& X, const std::vector<float>& F) {
  const Reference* ref = find_reference("conv3x3");
  REQUIRE(ref);
  std::vector<double> x = widen(X), f = widen(F);
  std::vector<double> y(size_t(s.at("N") * s.at("K") * s.at("H") * s.at("W")));
  ReferenceArgs a;
  a.in = {&x, &f};
  a.out = {&y};
  a.sizes = s;
  ref->run(a);
  return y;
}

// |got - want| / max(|want|, 1), the check's measure (lab/cpu/gemm.h).
double worst_error(const std::vector<float>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  return cpu::max_rel_error(got.data(), want, 1.0);
}

// The exercise's launch with other parameters: a kernel from another of the lesson's files.
Exercise with_params(Exercise e, std::initializer_list<const char*> specs) {
  e.args.clear();
  for (const char* a : specs) e.args.push_back(parse_arg_spec(a));
  return e;
}

// Buffers one kernel wrote, handed to the next as files (the --arg TYPE[N]=@PATH initialiser).
struct Handover {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("gpulab_handover_" + std::to_string(::getpid()));
  Handover() { std::filesystem::create_directories(dir); }
  ~Handover() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string operator()(const sim::RunOutcome& o, size_t arg, const char* name, const char* type, size_t elem_bytes) const {
    std::vector<uint8_t> raw(o.args.buffer_bytes.at(arg));
    o.memory->read(o.args.buffer_address.at(arg), raw.data(), raw.size());
    std::ofstream(dir / name, std::ios::binary).write(reinterpret_cast<const char*>(raw.data()), std::streamsize(raw.size()));
    return fmt::format("{}[{}]=@{}", type, raw.size() / elem_bytes, (dir / name).string());
  }
};

sim::RunOutcome run_side(const Lesson& L, const Exercise& ex, const std::string& file, const std::string& kernel,
                         const Geometry& g, const SizeVars& s) {
  MeasureRun mr = measure_run_at(L, ex, file, kernel, "H100", s, g);
  sim::RunOutcome o = sim::run_kernel(mr.request);
  REQUIRE(o.result.ok);
  return o;
}

}  // namespace

TEST_CASE("lesson 12: the direct and register-tiled kernels compute the convolution the exercise checks") {
  Lesson L = load_lesson("lessons/12-convolution");
  const Exercise* ex = L.find_exercise("implicit-gemm");
  REQUIRE(ex);
  // The geometries the lesson's steps launch them with (direct.cu: the exercise's).
  Geometry direct = ex->geometry;
  Geometry regtile{{"cdiv(H*W, 64)", "cdiv(K, 64)", "N"}, {"256"}};
  for (const SizeVars& s : kShapes) {
    CAPTURE(s.at("W"));
    for (auto [file, kernel, g] : {std::tuple{"direct.cu", "conv3x3_direct", direct},
                                   std::tuple{"implicit_regtile.cu", "conv3x3_regtile", regtile}}) {
      CAPTURE(file);
      sim::RunOutcome o = run_side(L, *ex, file, kernel, g, s);
      // Arguments: N C H W K X F Y.
      const auto want = reference_conv(s, read_floats(o, 5), read_floats(o, 6));
      CHECK(worst_error(read_floats(o, 7), want) < 1e-4);
    }
  }
}

TEST_CASE("lesson 12: the im2col kernel writes the im2col matrix, nine copies of the image") {
  Lesson L = load_lesson("lessons/12-convolution");
  const Exercise as = with_params(*L.find_exercise("implicit-gemm"), {"i32 N", "i32 C", "i32 H", "i32 W",
                                                                     "in f32 X[N][C][H][W]", "out f32 col[N][C*9][H*W]"});
  for (const SizeVars& s : kShapes) {
    sim::RunOutcome o = run_side(L, as, "im2col.cu", "im2col3x3", Geometry{{"cdiv(H*W, 256)", "C*9", "N"}, {"256"}}, s);
    const std::vector<float> X = read_floats(o, 4), col = read_floats(o, 5);
    cpu::ConvShape cs{int(s.at("N")), int(s.at("C")), int(s.at("H")), int(s.at("W")), int(s.at("K"))};
    const size_t per_image = size_t(cs.C) * 9 * cs.H * cs.W;
    std::vector<float> want(per_image);
    for (int n = 0; n < cs.N; ++n) {
      cpu::im2col3x3(cs, X.data(), n, want.data());
      CHECK(std::equal(want.begin(), want.end(), col.begin() + ptrdiff_t(n * per_image)));
    }
  }
}

TEST_CASE("lesson 12: every CPU convolution the lesson times matches the float64 reference") {
  for (const SizeVars& s : kShapes) {
    cpu::ConvShape cs{int(s.at("N")), int(s.at("C")), int(s.at("H")), int(s.at("W")), int(s.at("K"))};
    std::vector<float> X(size_t(cs.N) * cs.C * cs.H * cs.W), F(size_t(cs.K) * cs.C * 9);
    for (size_t i = 0; i < X.size(); ++i) X[i] = float(int(i * 37 % 101) - 50) / 50.f;
    for (size_t i = 0; i < F.size(); ++i) F[i] = float(int(i * 53 % 97) - 48) / 48.f;
    const auto want = reference_conv(s, X, F);
    for (const auto& v : cpu::cpu_conv_versions()) {
      CAPTURE(v.name);
      std::vector<float> Y(want.size(), 7.f);  // stale values must be overwritten
      v.fn(cs, X.data(), F.data(), Y.data());
      CHECK(worst_error(Y, want) < 1e-4);
    }
  }
}

TEST_CASE("lesson 13: the unfused chain (scores, softmax, P V) computes attention, kernel by kernel") {
  Lesson L = load_lesson("lessons/13-attention");
  const Exercise& ex = *L.find_exercise("flash");
  Exercise as;
  const Handover hand_over;
  for (int64_t Ltok : {33, 70}) {
    const SizeVars s{{"BH", 2}, {"L", Ltok}};
    CAPTURE(Ltok);
    as = with_params(ex, {"i32 BH", "i32 L", "in f32 Q[BH][L][64]", "in f32 K[BH][L][64]", "out f32 S[BH][L][L]"});
    MeasureRun scores = measure_run_at(L, as, "naive.cu", "attn_scores", "H100", s,
                                       Geometry{{"cdiv(L, 32)", "cdiv(L, 32)", "BH"}, {"32", "32"}});
    sim::RunOutcome so = sim::run_kernel(scores.request);
    REQUIRE(so.result.ok);
    const std::vector<float> Q = read_floats(so, 2), K = read_floats(so, 3), S = read_floats(so, 4);
    std::vector<double> want_s(S.size());
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i = 0; i < Ltok; ++i)
        for (int64_t j = 0; j < Ltok; ++j) {
          double d = 0;
          for (int c = 0; c < 64; ++c) d += double(Q[size_t((h * Ltok + i) * 64 + c)]) * K[size_t((h * Ltok + j) * 64 + c)];
          want_s[size_t((h * Ltok + i) * Ltok + j)] = d / 8;
        }
    CHECK(worst_error(S, want_s) < 1e-5);

    as = with_params(ex, {"i32 BH", "i32 L", "in f32 S[BH][L][L]", "out f32 P[BH][L][L]"});
    MeasureRun softmax = measure_run_at(L, as, "naive.cu", "attn_softmax", "H100", s, Geometry{{"cdiv(L, 8)", "BH"}, {"32", "8"}});
    softmax.request.args[2] = hand_over(so, 4, "S", "f32", 4);
    sim::RunOutcome mo = sim::run_kernel(softmax.request);
    REQUIRE(mo.result.ok);
    const std::vector<float> P = read_floats(mo, 3);
    std::vector<double> want_p(P.size());
    for (size_t r = 0; r < size_t(2 * Ltok); ++r) {
      double mx = -INFINITY, sum = 0;
      for (size_t j = 0; j < size_t(Ltok); ++j) mx = std::max(mx, double(S[r * size_t(Ltok) + j]));
      for (size_t j = 0; j < size_t(Ltok); ++j) sum += std::exp(S[r * size_t(Ltok) + j] - mx);
      for (size_t j = 0; j < size_t(Ltok); ++j) want_p[r * size_t(Ltok) + j] = std::exp(S[r * size_t(Ltok) + j] - mx) / sum;
    }
    CHECK(worst_error(P, want_p) < 1e-5);

    as = with_params(ex, {"i32 BH", "i32 L", "in f32 P[BH][L][L]", "in f32 V[BH][L][64]", "out f32 O[BH][L][64]"});
    MeasureRun pv = measure_run_at(L, as, "naive.cu", "attn_pv", "H100", s, Geometry{{"2", "cdiv(L, 32)", "BH"}, {"32", "32"}});
    pv.request.args[2] = hand_over(mo, 3, "P", "f32", 4);
    sim::RunOutcome po = sim::run_kernel(pv.request);
    REQUIRE(po.result.ok);
    const std::vector<float> V = read_floats(po, 3), O = read_floats(po, 4);
    // The chain end to end against the exercise's reference, from the Q, K, V it started with.
    const Reference* ref = find_reference("attention");
    REQUIRE(ref);
    std::vector<double> q = widen(Q), k = widen(K), v = widen(V), want_o(O.size());
    ReferenceArgs a;
    a.in = {&q, &k, &v};
    a.out = {&want_o};
    a.sizes = s;
    ref->run(a);
    CHECK(worst_error(O, want_o) < 1e-4);
  }
}

TEST_CASE("lesson 13: the tensor-core chain and the tensor-core fused kernel compute attention (fp16 inputs)") {
  Lesson L = load_lesson("lessons/13-attention");
  const Exercise& ex = *L.find_exercise("flash");
  Exercise as;
  const Handover hand_over;
  auto reference = [&](const SizeVars& s, const std::vector<float>& Q, const std::vector<float>& K, const std::vector<float>& V) {
    std::vector<double> q = widen(Q), k = widen(K), v = widen(V), o(Q.size());
    ReferenceArgs a;
    a.in = {&q, &k, &v};
    a.out = {&o};
    a.sizes = s;
    find_reference("attention")->run(a);
    return o;
  };
  for (int64_t Ltok : {64, 192}) {
    const SizeVars s{{"BH", 2}, {"L", Ltok}};
    CAPTURE(Ltok);
    // Fused.
    as = with_params(ex, {"i32 BH", "i32 L", "in f16 Q[BH][L][64]", "in f16 K[BH][L][64]", "in f16 V[BH][L][64]", "out f32 O[BH][L][64]"});
    MeasureRun fused = measure_run_at(L, as, "tensor_core.cu", "tc_flash", "H100", s, Geometry{{"L/64", "BH"}, {"128"}});
    sim::RunOutcome fo = sim::run_kernel(fused.request);
    REQUIRE(fo.result.ok);
    const std::vector<float> Q = read_halves(fo, 2), K = read_halves(fo, 3), V = read_halves(fo, 4);
    const auto want = reference(s, Q, K, V);
    // fp16 probabilities (11-bit significands) feed the P V product: about 1e-3 relative.
    CHECK(worst_error(read_floats(fo, 5), want) < 5e-3);
    // The chain, from the same inputs.
    as = with_params(ex, {"i32 BH", "i32 L", "in f16 Q[BH][L][64]", "in f16 K[BH][L][64]", "out f32 S[BH][L][L]"});
    MeasureRun sc = measure_run_at(L, as, "tensor_core.cu", "tc_scores", "H100", s, Geometry{{"L/32", "L/32", "BH"}, {"128"}});
    sc.request.args[2] = hand_over(fo, 2, "Q", "f16", 2);
    sc.request.args[3] = hand_over(fo, 3, "K", "f16", 2);
    sim::RunOutcome so = sim::run_kernel(sc.request);
    REQUIRE(so.result.ok);
    as = with_params(ex, {"i32 BH", "i32 L", "in f32 S[BH][L][L]", "out f16 P[BH][L][L]"});
    MeasureRun sm = measure_run_at(L, as, "tensor_core.cu", "tc_softmax", "H100", s, Geometry{{"L/8", "BH"}, {"32", "8"}});
    sm.request.args[2] = hand_over(so, 4, "S", "f32", 4);
    sim::RunOutcome mo = sim::run_kernel(sm.request);
    REQUIRE(mo.result.ok);
    as = with_params(ex, {"i32 BH", "i32 L", "in f16 P[BH][L][L]", "in f16 V[BH][L][64]", "out f32 O[BH][L][64]"});
    MeasureRun pv = measure_run_at(L, as, "tensor_core.cu", "tc_pv", "H100", s, Geometry{{"L/64", "BH"}, {"128"}});
    pv.request.args[2] = hand_over(mo, 3, "P", "f16", 2);
    pv.request.args[3] = hand_over(fo, 4, "V", "f16", 2);
    sim::RunOutcome po = sim::run_kernel(pv.request);
    REQUIRE(po.result.ok);
    CHECK(worst_error(read_floats(po, 4), want) < 5e-3);
  }
}
