// tests/test_exec_float.cpp: f32/f64/f16/bf16 arithmetic and cvt against the
// host (rounding modes via fesetround, NaN and infinity rules from the PTX ISA).
#include <doctest/doctest.h>

#include <cfenv>
#include <cmath>
#include <limits>
#include <random>

#include "exec_harness.h"
#include "lab/sim/float16.h"

using namespace exectest;

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

std::vector<float> inputs(uint32_t seed, size_t n = 32) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-100.f, 100.f);
  std::vector<float> v = {0.f, -0.f, 1.f, -1.f, kInf, -kInf, kNaN, 1e-40f, -1e-40f, 3.4e38f, 1.17549435e-38f};
  while (v.size() < n) v.push_back(d(rng) * std::pow(10.f, float(int(rng() % 9) - 4)));
  return v;
}
std::vector<uint64_t> bits_of(const std::vector<float>& v) {
  std::vector<uint64_t> out;
  for (float x : v) out.push_back(f32(x));
  return out;
}
bool same(float a, float b) { return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }

template <class F>
float host_round(int mode, F f) {
  std::fesetround(mode);
  volatile float r = f();
  std::fesetround(FE_TONEAREST);
  return r;
}
}  // namespace

TEST_CASE("f32 add/mul/fma/div/sqrt in every rounding mode match the host bit for bit") {
  auto a = inputs(1), b = inputs(2), c = inputs(3);
  auto A = bits_of(a), B = bits_of(b), C = bits_of(c);
  struct Mode { const char* suffix; int fe; };
  for (Mode m : {Mode{"rn", FE_TONEAREST}, Mode{"rz", FE_TOWARDZERO}, Mode{"rm", FE_DOWNWARD}, Mode{"rp", FE_UPWARD}}) {
    CAPTURE(m.suffix);
    std::string s = m.suffix;
    auto add = run("add." + s + ".f32 %f20, %f10, %f11; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", A, B);
    auto mul = run("mul." + s + ".f32 %f20, %f10, %f11; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", A, B);
    auto fma = run("fma." + s + ".f32 %f20, %f10, %f11, %f12; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", A, B, C);
    auto div = run("div." + s + ".f32 %f20, %f10, %f11; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", A, B);
    auto sq = run("sqrt." + s + ".f32 %f20, %f10; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", A);
    auto dadd = run("add." + s + ".f64 %fd20, %fd10, %fd11; mov.b64 %rd13, %fd20;",
                    {f64(1.0), f64(0.1), f64(-0.1)}, {f64(1e-17), f64(0.2), f64(-0.2)});
    for (size_t i = 0; i < a.size(); ++i) {
      float x = a[i], y = b[i], z = c[i];
      CAPTURE(x); CAPTURE(y); CAPTURE(z);
      CHECK(same(as_f32(add[i]), host_round(m.fe, [&] { volatile float p = x, q = y; return p + q; })));
      CHECK(same(as_f32(mul[i]), host_round(m.fe, [&] { volatile float p = x, q = y; return p * q; })));
      CHECK(same(as_f32(fma[i]), host_round(m.fe, [&] { volatile float p = x, q = y, r = z; return std::fma(p, q, r); })));
      CHECK(same(as_f32(div[i]), host_round(m.fe, [&] { volatile float p = x, q = y; return p / q; })));
      CHECK(same(as_f32(sq[i]), host_round(m.fe, [&] { volatile float p = x; return std::sqrt(p); })));
    }
    std::fesetround(m.fe);
    volatile double p0 = 1.0, q0 = 1e-17, p1 = 0.1, q1 = 0.2;
    double r0 = p0 + q0, r1 = p1 + q1, r2 = -p1 + -q1;
    std::fesetround(FE_TONEAREST);
    CHECK(as_f64(dadd[0]) == r0);
    CHECK(as_f64(dadd[1]) == r1);
    CHECK(as_f64(dadd[2]) == r2);
  }
}

TEST_CASE("min/max ignore a NaN operand; .ftz flushes subnormals; .sat clamps") {
  std::vector<uint64_t> a = {f32(kNaN), f32(1), f32(kNaN), f32(-0.f), f32(3)}, b = {f32(2), f32(kNaN), f32(kNaN), f32(0.f), f32(-4)};
  auto mn = run("min.f32 %f20, %f10, %f11; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", a, b);
  auto mx = run("max.f32 %f20, %f10, %f11; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", a, b);
  CHECK(as_f32(mn[0]) == 2.f);
  CHECK(as_f32(mn[1]) == 1.f);
  CHECK(std::isnan(as_f32(mn[2])));
  CHECK(mn[3] == f32(-0.f));
  CHECK(mx[3] == f32(0.f));
  CHECK(as_f32(mn[4]) == -4.f);
  CHECK(as_f32(mx[4]) == 3.f);
  auto ftz = run("add.ftz.f32 %f20, %f10, %f11; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", {f32(1e-40f), f32(-1e-40f), f32(1e-38f)},
                 {f32(0.f), f32(-0.f), f32(-0.99e-38f)});  // -0 + -0 = -0 keeps the sign
  CHECK(ftz[0] == f32(0.f));
  CHECK(ftz[1] == f32(-0.f));
  CHECK(ftz[2] == f32(0.f));  // the result 1e-40 is subnormal: flushed
  auto noftz = run("add.f32 %f20, %f10, %f11; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", {f32(1e-40f)}, {f32(0.f)});
  CHECK(as_f32(noftz[0]) == 1e-40f);
  auto sat = run("mul.sat.f32 %f20, %f10, %f11; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", {f32(2), f32(-2), f32(kNaN), f32(0.25f)},
                 {f32(3), f32(3), f32(1), f32(2)});
  CHECK(as_f32(sat[0]) == 1.f);
  CHECK(sat[1] == f32(0.f));
  CHECK(sat[2] == f32(0.f));
  CHECK(as_f32(sat[3]) == 0.5f);
  auto dmin = run("min.f64 %fd20, %fd10, %fd11; mov.b64 %rd13, %fd20;", {f64(std::nan("")), f64(1.5)}, {f64(-3), f64(std::nan(""))});
  CHECK(as_f64(dmin[0]) == -3);
  CHECK(as_f64(dmin[1]) == 1.5);
}

TEST_CASE("approximate functions are within their documented error; rcp/rsqrt/ex2/lg2/sin/cos") {
  std::vector<float> xs = {0.5f, 1.f, 2.f, 3.f, 10.f, 0.001f, 100.f, -1.5f};
  auto X = bits_of(xs);
  auto ex2 = run("ex2.approx.ftz.f32 %f20, %f10; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", X);
  auto lg2 = run("lg2.approx.f32 %f20, %f10; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", X);
  auto sn = run("sin.approx.f32 %f20, %f10; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", X);
  auto cs = run("cos.approx.f32 %f20, %f10; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", X);
  auto rcp = run("rcp.rn.f32 %f20, %f10; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", X);
  auto rsq = run("rsqrt.approx.f32 %f20, %f10; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", X);
  for (size_t i = 0; i < xs.size(); ++i) {
    float x = xs[i];
    CHECK(as_f32(ex2[i]) == doctest::Approx(std::exp2(x)).epsilon(1e-6));
    if (x > 0) CHECK(as_f32(lg2[i]) == doctest::Approx(std::log2(x)).epsilon(1e-6));
    else CHECK(std::isnan(as_f32(lg2[i])));
    CHECK(as_f32(sn[i]) == doctest::Approx(std::sin(x)).epsilon(1e-6));
    CHECK(as_f32(cs[i]) == doctest::Approx(std::cos(x)).epsilon(1e-6));
    CHECK(as_f32(rcp[i]) == 1.f / x);  // .rn: exact IEEE
    if (x > 0) CHECK(as_f32(rsq[i]) == doctest::Approx(1.0 / std::sqrt(double(x))).epsilon(1e-6));
  }
}

TEST_CASE("cvt float -> int saturates, NaN -> 0, integral rounding modes") {
  std::vector<float> v = {2.5f, -2.5f, 3.7f, -3.7f, 1e20f, -1e20f, kNaN, kInf, -0.5f, 4294967296.f};
  auto V = bits_of(v);
  auto rni = run("cvt.rni.s32.f32 %r20, %f10; cvt.u64.u32 %rd13, %r20;", V);
  auto rzi = run("cvt.rzi.s32.f32 %r20, %f10; cvt.u64.u32 %rd13, %r20;", V);
  auto rmi = run("cvt.rmi.s32.f32 %r20, %f10; cvt.u64.u32 %rd13, %r20;", V);
  auto rpi = run("cvt.rpi.s32.f32 %r20, %f10; cvt.u64.u32 %rd13, %r20;", V);
  auto u32r = run("cvt.rzi.u32.f32 %r20, %f10; cvt.u64.u32 %rd13, %r20;", V);
  auto s64 = run("cvt.rzi.s64.f32 %rd13, %f10;", V);
  auto clamp = [](double x, double lo, double hi) { return std::isnan(x) ? 0.0 : std::min(std::max(x, lo), hi); };
  for (size_t i = 0; i < v.size(); ++i) {
    double x = v[i];
    CAPTURE(x);
    CHECK(int32_t(rni[i]) == int32_t(clamp(std::nearbyint(x), INT32_MIN, INT32_MAX)));
    CHECK(int32_t(rzi[i]) == int32_t(clamp(std::trunc(x), INT32_MIN, INT32_MAX)));
    CHECK(int32_t(rmi[i]) == int32_t(clamp(std::floor(x), INT32_MIN, INT32_MAX)));
    CHECK(int32_t(rpi[i]) == int32_t(clamp(std::ceil(x), INT32_MIN, INT32_MAX)));
    CHECK(uint32_t(u32r[i]) == uint32_t(clamp(std::trunc(x), 0, 4294967295.0)));
    CHECK(int64_t(s64[i]) == (std::isnan(x) ? 0 : x >= 9.3e18 ? INT64_MAX : x <= -9.3e18 ? INT64_MIN : int64_t(std::trunc(x))));
  }
}

TEST_CASE("cvt int -> float rounding modes; int -> int extension and saturation") {
  std::vector<uint64_t> big = {16777217, 16777219, uint64_t(-16777217), 0x7fffffff, 3};
  for (auto [suffix, fe] : {std::pair<const char*, int>{"rn", FE_TONEAREST}, {"rz", FE_TOWARDZERO}, {"rm", FE_DOWNWARD}, {"rp", FE_UPWARD}}) {
    auto r = run(std::string("cvt.") + suffix + ".f32.s32 %f20, %r10; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", big);
    for (size_t i = 0; i < big.size(); ++i) {
      std::fesetround(fe);
      volatile int32_t x = int32_t(big[i]);
      float expect = float(x);
      std::fesetround(FE_TONEAREST);
      CHECK(as_f32(r[i]) == expect);
    }
  }
  auto u64f = run("cvt.rn.f32.u64 %f20, %rd10; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", {~0ull, (1ull << 53) + 1});
  CHECK(as_f32(u64f[0]) == float(~0ull));
  CHECK(as_f32(u64f[1]) == float((1ull << 53) + 1));
  auto sext = run("cvt.s64.s16 %rd13, %h10;", {0x8000, 0x7fff, 0xffff});
  CHECK(sext[0] == uint64_t(-32768));
  CHECK(sext[1] == 0x7fff);
  CHECK(sext[2] == ~0ull);
  auto zext = run("cvt.u64.u16 %rd13, %h10;", {0x8000});
  CHECK(zext[0] == 0x8000);
  auto sat8 = run("cvt.sat.s8.s32 %r20, %r10; cvt.u64.u32 %rd13, %r20;", {300, u32(-300), 100});
  CHECK(int8_t(sat8[0]) == 127);
  CHECK(int8_t(sat8[1]) == -128);
  CHECK(sat8[2] == 100);
  auto satu = run("cvt.sat.u16.s32 %h20, %r10; cvt.u64.u16 %rd13, %h20;", {u32(-5), 70000});
  CHECK(satu[0] == 0);
  CHECK(satu[1] == 0xffff);
  auto trunc = run("cvt.u16.u32 %h20, %r10; cvt.u64.u16 %rd13, %h20;", {0x12345678});
  CHECK(trunc[0] == 0x5678);
}

TEST_CASE("f16 and bf16: cvt with rounding, half arithmetic, packed x2") {
  auto a = inputs(11, 24);
  auto A = bits_of(a);
  auto rn = run("cvt.rn.f16.f32 %h20, %f10; cvt.u64.u16 %rd13, %h20;", A);
  auto rz = run("cvt.rz.f16.f32 %h20, %f10; cvt.u64.u16 %rd13, %h20;", A);
  auto bf = run("cvt.rn.bf16.f32 %h20, %f10; cvt.u64.u16 %rd13, %h20;", A);
  auto back = run("cvt.rn.f16.f32 %h20, %f10; cvt.f32.f16 %f20, %h20; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", A);
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(a[i]);
    if (std::isnan(a[i])) {
      CHECK((rn[i] & 0x7c00) == 0x7c00);
      CHECK((rn[i] & 0x3ff) != 0);
      continue;
    }
    CHECK(rn[i] == lab::sim::float_to_half(a[i]));
    CHECK(rz[i] == lab::sim::float_to_half(a[i], lab::sim::NarrowRound::Zero));
    CHECK(bf[i] == lab::sim::float_to_bf16(a[i]));
    CHECK(same(as_f32(back[i]), lab::sim::half_to_float(lab::sim::float_to_half(a[i]))));
  }
  // f64 -> f16 rounds once (no double rounding through f32).
  double tricky = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);  // just above a half-way point
  auto d2h = run("cvt.rn.f16.f64 %h20, %fd10; cvt.u64.u16 %rd13, %h20;", {f64(tricky)});
  CHECK(d2h[0] == 0x3c01);
  // Half arithmetic: 1 + 2^-11 is a tie in f16 -> rounds to even (1.0).
  uint16_t one = 0x3c00, eps = lab::sim::float_to_half(std::ldexp(1.f, -11));
  auto hadd = run("add.rn.f16 %h20, %h10, %h11; cvt.u64.u16 %rd13, %h20;", {one, 0x3c01}, {eps, eps});
  CHECK(hadd[0] == 0x3c00);
  CHECK(hadd[1] == 0x3c02);
  auto hfma = run("fma.rn.f16x2 %r20, %r10, %r11, %r12; cvt.u64.u32 %rd13, %r20;",
                  {(uint64_t(0x4000) << 16) | 0x3c00}, {(uint64_t(0x4200) << 16) | 0x4000}, {(uint64_t(0x3c00) << 16) | 0xbc00});
  // low: 1*2 - 1 = 1 (0x3c00); high: 2*3 + 1 = 7 (0x4700)
  CHECK(hfma[0] == ((uint64_t(0x4700) << 16) | 0x3c00));
  auto pack = run("cvt.rn.f16x2.f32 %r20, %f10, %f11; cvt.u64.u32 %rd13, %r20;", {f32(1.f)}, {f32(-2.f)});
  CHECK(pack[0] == ((uint64_t(0x3c00) << 16) | 0xc000));
  auto overflow = run("cvt.rn.f16.f32 %h20, %f10; cvt.u64.u16 %rd13, %h20;", {f32(70000.f), f32(-70000.f)});
  CHECK(overflow[0] == 0x7c00);
  CHECK(overflow[1] == 0xfc00);
  auto ovz = run("cvt.rz.f16.f32 %h20, %f10; cvt.u64.u16 %rd13, %h20;", {f32(70000.f)});
  CHECK(ovz[0] == 0x7bff);
}

TEST_CASE("mov packing and unpacking; f64 <-> f32") {
  auto pk = run("mov.b32 %r20, {%h10, %h11}; cvt.u64.u32 %rd13, %r20;", {0x1111}, {0x2222});
  CHECK(pk[0] == 0x22221111);
  auto up = run("mov.b64 {%r20, %r21}, %rd10; cvt.u64.u32 %rd13, %r21;", {0xaaaabbbbccccddddull});
  CHECK(up[0] == 0xaaaabbbb);
  auto d2f = run("cvt.rn.f32.f64 %f20, %fd10; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", {f64(0.1), f64(1e300), f64(-1e-300)});
  CHECK(as_f32(d2f[0]) == 0.1f);
  CHECK(std::isinf(as_f32(d2f[1])));
  CHECK(d2f[2] == f32(-0.f));
  auto d2fz = run("cvt.rz.f32.f64 %f20, %fd10; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", {f64(1e300), f64(0.1)});
  CHECK(as_f32(d2fz[0]) == std::numeric_limits<float>::max());
  CHECK(as_f32(d2fz[1]) <= 0.1f);
  auto f2d = run("cvt.f64.f32 %fd20, %f10; mov.b64 %rd13, %fd20;", {f32(0.1f)});
  CHECK(as_f64(f2d[0]) == double(0.1f));
}

TEST_CASE("float -> half round-to-nearest-even: the integer fast path equals the exact scaling, bit for bit") {
  using lab::sim::NarrowRound;
  size_t checked = 0;
  auto same = [&](uint32_t x) {
    const float f = std::bit_cast<float>(x);
    const uint16_t fast = lab::sim::float_to_half_nearest(f), exact = lab::sim::float_to_half_rounded(f, NarrowRound::NearestEven);
    ++checked;
    if (fast != exact) {
      CAPTURE(x);
      CHECK(fast == exact);
    }
  };
  // Every 997th bit pattern (all exponents, both signs), and every pattern
  // around each place the rounding changes: the half's subnormal/normal
  // border, its largest finite value and the overflow to infinity, ties.
  for (uint64_t x = 0; x < (1ull << 32); x += 997) same(uint32_t(x));
  for (uint32_t edge : {0x33000000u, 0x387fe000u, 0x38800000u, 0x477fe000u, 0x477ff000u, 0x47800000u, 0x7f800000u,
                        0x3f801000u, 0x3f803000u, 0x00000001u})
    for (uint32_t d = 0; d < 4096; ++d) {
      same(edge + d - 2048);
      same((edge + d - 2048) | 0x80000000u);
    }
  CHECK(checked > 4000000);
  CHECK(lab::sim::float_to_half(65520.f) == 0x7c00);  // rounds to infinity
  CHECK(lab::sim::float_to_half(65504.f) == 0x7bff);
  CHECK(lab::sim::float_to_half(std::numeric_limits<float>::quiet_NaN()) == 0x7e00);
}
