// tests/test_exec_int.cpp: integer, bit, compare/select instructions against
// the host's C++ semantics (and the PTX ISA's rules where C++ has none).
#include <doctest/doctest.h>

#include <climits>
#include <cstdint>
#include <random>

#include "exec_harness.h"

using namespace exectest;

namespace {
std::vector<uint64_t> edge32() {
  return {0, 1, 2, 3, 7, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff, 0xfffffffe, 12345, 0xdeadbeef,
          uint32_t(-1000), 31, 32, 33};
}
std::vector<uint64_t> shuffled(std::vector<uint64_t> v, uint32_t seed) {
  std::mt19937 rng(seed);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}
}  // namespace

TEST_CASE("32-bit add/sub/mul/mad signed and unsigned wrap like C++ unsigned arithmetic") {
  auto a = edge32(), b = shuffled(edge32(), 1), c = shuffled(edge32(), 2);
  std::string err;
  auto add = run("add.s32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", a, b, {}, &err);
  auto sub = run("sub.u32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", a, b);
  auto mlo = run("mul.lo.s32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", a, b);
  auto mhs = run("mul.hi.s32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", a, b);
  auto mhu = run("mul.hi.u32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", a, b);
  auto mws = run("mul.wide.s32 %rd13, %r10, %r11;", a, b);
  auto mwu = run("mul.wide.u32 %rd13, %r10, %r11;", a, b);
  auto mad = run("mad.lo.s32 %r20, %r10, %r11, %r12; cvt.u64.u32 %rd13, %r20;", a, b, c);
  auto madw = run("mad.wide.s32 %rd13, %r10, %r11, %rd12;", a, b, c);
  REQUIRE(err.empty());
  for (size_t i = 0; i < a.size(); ++i) {
    uint32_t x = uint32_t(a[i]), y = uint32_t(b[i]), z = uint32_t(c[i]);
    CAPTURE(x); CAPTURE(y);
    CHECK(add[i] == uint32_t(x + y));
    CHECK(sub[i] == uint32_t(x - y));
    CHECK(mlo[i] == uint32_t(x * y));
    CHECK(mhs[i] == uint32_t((int64_t(int32_t(x)) * int32_t(y)) >> 32));
    CHECK(mhu[i] == uint32_t((uint64_t(x) * y) >> 32));
    CHECK(mws[i] == uint64_t(int64_t(int32_t(x)) * int32_t(y)));
    CHECK(mwu[i] == uint64_t(x) * y);
    CHECK(mad[i] == uint32_t(x * y + z));
    CHECK(madw[i] == uint64_t(int64_t(int32_t(x)) * int32_t(y) + int64_t(c[i])));
  }
}

TEST_CASE("div and rem: C++ semantics, and the hardware's answers where PTX leaves them undefined") {
  std::vector<uint64_t> a = {7, u32(-7), 7, u32(-7), u32(INT_MIN), u32(INT_MIN), 5, u32(-5), 100, 0};
  std::vector<uint64_t> b = {2, 2, u32(-2), u32(-2), u32(-1), 1, 0, 0, 7, 3};
  auto ds = run("div.s32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", a, b);
  auto rs = run("rem.s32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", a, b);
  auto du = run("div.u32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", a, b);
  auto ru = run("rem.u32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", a, b);
  auto d64 = run("div.s64 %rd13, %rd10, %rd11;", {uint64_t(-9), 9, 1}, {2, 0, uint64_t(-1)});
  for (size_t i = 0; i < a.size(); ++i) {
    int32_t x = int32_t(a[i]), y = int32_t(b[i]);
    CAPTURE(x); CAPTURE(y);
    if (y == 0) {
      CHECK(ds[i] == 0xffffffffu);  // all ones, as the hardware's division sequence gives
      CHECK(du[i] == 0xffffffffu);
      CHECK(ru[i] == uint32_t(x));  // a - q*0
    } else if (x == INT_MIN && y == -1) {
      CHECK(ds[i] == uint32_t(INT_MIN));
      CHECK(rs[i] == 0);
    } else {
      CHECK(ds[i] == uint32_t(x / y));
      CHECK(rs[i] == uint32_t(x % y));
      CHECK(du[i] == uint32_t(a[i]) / uint32_t(b[i]));
      CHECK(ru[i] == uint32_t(a[i]) % uint32_t(b[i]));
    }
  }
  CHECK(d64[0] == uint64_t(-4));
  CHECK(d64[1] == ~0ull);
  CHECK(d64[2] == uint64_t(-1));
}

TEST_CASE("16- and 64-bit arithmetic, min/max/abs/neg, saturating add") {
  std::vector<uint64_t> a = {0x7fff, 0x8000, 0xffff, 1, 0x1234}, b = {1, 0xffff, 0xffff, 0x8000, 0x4321};
  auto add16 = run("add.s16 %h20, %h10, %h11; cvt.u64.u16 %rd13, %h20;", a, b);
  auto min16 = run("min.s16 %h20, %h10, %h11; cvt.u64.u16 %rd13, %h20;", a, b);
  auto max16u = run("max.u16 %h20, %h10, %h11; cvt.u64.u16 %rd13, %h20;", a, b);
  auto mul16 = run("mul.lo.u16 %h20, %h10, %h11; cvt.u64.u16 %rd13, %h20;", a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    int16_t x = int16_t(a[i]), y = int16_t(b[i]);
    CHECK(add16[i] == uint16_t(x + y));
    CHECK(min16[i] == uint16_t(std::min(x, y)));
    CHECK(max16u[i] == std::max(uint16_t(a[i]), uint16_t(b[i])));
    CHECK(mul16[i] == uint16_t(uint32_t(a[i]) * uint32_t(b[i])));
  }
  std::vector<uint64_t> a64 = {uint64_t(INT64_MIN), 5, uint64_t(-5), ~0ull}, b64 = {uint64_t(-1), 7, 3, 2};
  auto mhi64 = run("mul.hi.u64 %rd13, %rd10, %rd11;", a64, b64);
  auto min64 = run("min.s64 %rd13, %rd10, %rd11;", a64, b64);
  auto abs64 = run("abs.s64 %rd13, %rd10;", a64);
  auto neg32 = run("neg.s32 %r20, %r10; cvt.u64.u32 %rd13, %r20;", edge32());
  auto abs32 = run("abs.s32 %r20, %r10; cvt.u64.u32 %rd13, %r20;", edge32());
  auto sat = run("add.sat.s32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", {u32(INT_MAX), u32(INT_MIN), 5},
                 {1, u32(-1), u32(-9)});
  for (size_t i = 0; i < a64.size(); ++i) {
    CHECK(mhi64[i] == uint64_t((unsigned __int128)a64[i] * b64[i] >> 64));
    CHECK(min64[i] == uint64_t(std::min(int64_t(a64[i]), int64_t(b64[i]))));
    CHECK(abs64[i] == (int64_t(a64[i]) < 0 ? 0 - a64[i] : a64[i]));
  }
  auto e = edge32();
  for (size_t i = 0; i < e.size(); ++i) {
    CHECK(neg32[i] == uint32_t(0u - uint32_t(e[i])));
    CHECK(abs32[i] == (int32_t(e[i]) < 0 ? uint32_t(0u - uint32_t(e[i])) : uint32_t(e[i])));
  }
  CHECK(sat[0] == uint32_t(INT_MAX));
  CHECK(sat[1] == uint32_t(INT_MIN));
  CHECK(sat[2] == uint32_t(-4));
}

TEST_CASE("bit instructions: popc clz bfind brev bfe bfi prmt lop3 shf") {
  auto e = edge32();
  auto popc = run("popc.b32 %r20, %r10; cvt.u64.u32 %rd13, %r20;", e);
  auto clz = run("clz.b32 %r20, %r10; cvt.u64.u32 %rd13, %r20;", e);
  auto bfu = run("bfind.u32 %r20, %r10; cvt.u64.u32 %rd13, %r20;", e);
  auto bfs = run("bfind.s32 %r20, %r10; cvt.u64.u32 %rd13, %r20;", e);
  auto brev = run("brev.b32 %r20, %r10; cvt.u64.u32 %rd13, %r20;", e);
  auto popc64 = run("popc.b64 %r20, %rd10; cvt.u64.u32 %rd13, %r20;", {~0ull, 0x8000000000000001ull});
  for (size_t i = 0; i < e.size(); ++i) {
    uint32_t x = uint32_t(e[i]);
    CHECK(popc[i] == uint32_t(std::popcount(x)));
    CHECK(clz[i] == uint32_t(std::countl_zero(x)));
    CHECK(bfu[i] == (x ? 31u - uint32_t(std::countl_zero(x)) : 0xffffffffu));
    uint32_t s = int32_t(x) < 0 ? ~x : x;
    CHECK(bfs[i] == (s ? 31u - uint32_t(std::countl_zero(s)) : 0xffffffffu));
    uint32_t r = 0;
    for (int k = 0; k < 32; ++k) r |= ((x >> k) & 1u) << (31 - k);
    CHECK(brev[i] == r);
  }
  CHECK(popc64[0] == 64);
  CHECK(popc64[1] == 2);
  // bfe: (value, pos, len) -> reference from the PTX ISA pseudocode.
  std::vector<uint64_t> v = {0xf0f0abcd, 0x80000000, 0x12345678, 0xffffffff, 0x0000ff00};
  std::vector<uint64_t> pos = {4, 28, 0, 40, 8}, len = {8, 8, 0, 5, 8};
  auto bfeu = run("bfe.u32 %r20, %r10, %r11, %r12; cvt.u64.u32 %rd13, %r20;", v, pos, len);
  auto bfes = run("bfe.s32 %r20, %r10, %r11, %r12; cvt.u64.u32 %rd13, %r20;", v, pos, len);
  CHECK(bfeu[0] == 0xbc);
  CHECK(bfes[0] == 0xffffffbc);
  CHECK(bfeu[1] == 0x8);        // bits 28..31 only (35 > msb)
  CHECK(bfes[1] == 0xfffffff8); // sign taken from bit 31
  CHECK(bfeu[2] == 0);          // len 0
  CHECK(bfes[3] == 0xffffffff); // pos past msb: the sign bit replicated
  CHECK(bfeu[4] == 0xff);
  auto bfi = run("bfi.b32 %r20, %r10, %r11, 8, 8; cvt.u64.u32 %rd13, %r20;", {0xab, 0x1ff}, {0x11223344, 0});
  CHECK(bfi[0] == 0x1122ab44);
  CHECK(bfi[1] == 0x0000ff00);
  // prmt default mode: selector nibbles pick bytes of {b, a}; bit 3 replicates the sign.
  auto prmt = run("prmt.b32 %r20, %r10, %r11, %r12; cvt.u64.u32 %rd13, %r20;", {0x44332211, 0x44332211},
                  {0x88776655, 0x88776655}, {0x3210, 0x7f40});
  CHECK(prmt[0] == 0x44332211);
  CHECK(prmt[1] == 0x88ff5511);
  auto f4e = run("prmt.b32.f4e %r20, %r10, %r11, %r12; cvt.u64.u32 %rd13, %r20;", {0x44332211}, {0x88776655}, {1});
  CHECK(f4e[0] == 0x55443322);
  auto lop = run("lop3.b32 %r20, %r10, %r11, %r12, 0x96; cvt.u64.u32 %rd13, %r20;", e, shuffled(e, 3), shuffled(e, 4));
  auto eb = shuffled(e, 3), ec = shuffled(e, 4);
  for (size_t i = 0; i < e.size(); ++i) CHECK(lop[i] == (uint32_t(e[i]) ^ uint32_t(eb[i]) ^ uint32_t(ec[i])));
  auto shfl = run("shf.l.wrap.b32 %r20, %r10, %r11, %r12; cvt.u64.u32 %rd13, %r20;", {0x89abcdef, 1, 1},
                  {0x01234567, 0, 0x80000000}, {8, 36, 40});
  CHECK(shfl[0] == 0x234567 * 256 + 0x89);
  CHECK(shfl[1] == 0);        // (1 << 4) >> 32 = 0 with n = 36 mod 32 = 4
  CHECK(shfl[2] == 0x0);      // {0x80000000:1} << 8 -> high word 0
  auto shfr = run("shf.r.clamp.b32 %r20, %r10, %r11, %r12; cvt.u64.u32 %rd13, %r20;", {0x89abcdef, 5},
                  {0x01234567, 0x77}, {8, 40});
  CHECK(shfr[0] == 0x6789abcd);
  CHECK(shfr[1] == 0x77);     // clamped to 32: the high word
}

TEST_CASE("bmsk.clamp and bmsk.wrap: a mask of b bits from bit a, edge cases of the PTX ISA's 'bmsk'") {
  // Expected values worked out by hand from the ISA's description: the mask
  // is 0 when a >= 32 under .clamp, or when b (or b mod 32 under .wrap) is 0;
  // a + b past bit 31 stops at bit 31; .wrap takes a and b mod 32; a width
  // b >= 32 under .clamp runs to bit 31.
  struct Row { uint32_t a, b, clamp, wrap; };
  const Row rows[] = {
      {1, 2, 0x00000006, 0x00000006},    // the ISA's own example
      {0, 0, 0, 0},                      // a = 0, b = 0
      {5, 0, 0, 0},                      // zero width anywhere
      {4, 8, 0x00000ff0, 0x00000ff0},
      {0, 31, 0x7fffffff, 0x7fffffff},
      {31, 1, 0x80000000, 0x80000000},
      {28, 8, 0xf0000000, 0xf0000000},   // a + b > 32: stops at bit 31
      {16, 16, 0xffff0000, 0xffff0000},  // a + b = 32
      {0, 32, 0xffffffff, 0},            // b = 32: clamp = all bits, wrap = width 0
      {8, 40, 0xffffff00, 0x0000ff00},   // b >= 32: clamp runs to bit 31, wrap b = 8
      {32, 4, 0, 0x0000000f},            // a = 32: clamp 0, wrap a = 0
      {33, 4, 0, 0x0000001e},            // a > 32: wrap a = 1
      {36, 36, 0, 0x000000f0},           // both >= 32
      {0xffffffff, 1, 0, 0x80000000},    // a = -1: wrap a = 31
      {3, 0xffffffff, 0xfffffff8, 0xfffffff8},  // b huge: clamp to 32; wrap b = 31, a + b > 32
  };
  std::vector<uint64_t> a, b;
  for (const Row& r : rows) { a.push_back(r.a); b.push_back(r.b); }
  auto clamp = run("bmsk.clamp.b32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", a, b);
  auto wrap = run("bmsk.wrap.b32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", a, b);
  for (size_t i = 0; i < std::size(rows); ++i) {
    CAPTURE(rows[i].a);
    CAPTURE(rows[i].b);
    CHECK(clamp[i] == rows[i].clamp);
    CHECK(wrap[i] == rows[i].wrap);
  }
  // Immediate operands, as the ISA's example writes it.
  CHECK(run("bmsk.wrap.b32 %r20, 1, 2; cvt.u64.u32 %rd13, %r20;", {0})[0] == 6);
  // The mode is required, and only .b32 exists.
  CHECK_THROWS(exectest::run("bmsk.b32 %r20, %r10, %r11;", {0}));
  CHECK_THROWS(exectest::run("bmsk.clamp.b64 %rd20, %rd10, %rd11;", {0}));
}

TEST_CASE("shifts clamp at the type width; add.cc/addc carry chain; mul24; sad; dp4a") {
  auto shl = run("shl.b32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", {1, 1, 1, 0xff}, {31, 32, 1000, 4});
  CHECK(shl[0] == 0x80000000u);
  CHECK(shl[1] == 0);
  CHECK(shl[2] == 0);
  CHECK(shl[3] == 0xff0);
  auto shrs = run("shr.s32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", {0x80000000, 0x80000000, 0x40}, {4, 40, 3});
  CHECK(shrs[0] == 0xf8000000u);
  CHECK(shrs[1] == 0xffffffffu);
  CHECK(shrs[2] == 8);
  auto shru = run("shr.u32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", {0x80000000}, {33});
  CHECK(shru[0] == 0);
  // 64-bit add from two 32-bit halves through the carry flag.
  auto cc = run(R"(
    mov.b64 {%r20, %r21}, %rd10;
    mov.b64 {%r22, %r23}, %rd11;
    add.cc.u32 %r24, %r20, %r22;
    addc.u32 %r25, %r21, %r23;
    mov.b64 %rd13, {%r24, %r25};)",
                {0xffffffffull, 0x00000001ffffffffull, 123}, {1, 0xffffffffull, 456});
  CHECK(cc[0] == 0x100000000ull);
  CHECK(cc[1] == 0x00000001ffffffffull + 0xffffffffull);
  CHECK(cc[2] == 579);
  auto sc = run(R"(
    mov.b64 {%r20, %r21}, %rd10;
    mov.b64 {%r22, %r23}, %rd11;
    sub.cc.u32 %r24, %r20, %r22;
    subc.u32 %r25, %r21, %r23;
    mov.b64 %rd13, {%r24, %r25};)",
                {0x100000000ull, 5}, {1, 7});
  CHECK(sc[0] == 0xffffffffull);
  CHECK(sc[1] == uint64_t(-2));
  auto m24 = run("mul24.lo.s32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", {0x00800000, 3, 0xff000005}, {2, 5, 2});
  CHECK(m24[0] == uint32_t(int64_t(-0x800000) * 2));  // bit 23 is the 24-bit sign
  CHECK(m24[1] == 15);
  CHECK(m24[2] == 10);  // upper byte ignored
  auto sad = run("sad.u32 %r20, %r10, %r11, %r12; cvt.u64.u32 %rd13, %r20;", {3, 10}, {10, 3}, {100, 1});
  CHECK(sad[0] == 107);
  CHECK(sad[1] == 8);
  auto dp = run("dp4a.s32.s32 %r20, %r10, %r11, %r12; cvt.u64.u32 %rd13, %r20;", {0x01ff02fe}, {0x03040506}, {10});
  // bytes a = (-2, 2, -1, 1), b = (6, 5, 4, 3): -12 + 10 - 4 + 3 = -3, + 10
  CHECK(dp[0] == 7);
}

TEST_CASE("setp with unordered compares and predicate logic; selp; slct; set") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<uint64_t> a = {f32(1), f32(nan), f32(2), f32(-0.f), f32(nan)}, b = {f32(2), f32(1), f32(2), f32(0.f), f32(nan)};
  auto lt = run("setp.lt.f32 %p1, %f10, %f11; selp.u64 %rd13, 1, 0, %p1;", a, b);
  auto ltu = run("setp.ltu.f32 %p1, %f10, %f11; selp.u64 %rd13, 1, 0, %p1;", a, b);
  auto ne = run("setp.ne.f32 %p1, %f10, %f11; selp.u64 %rd13, 1, 0, %p1;", a, b);
  auto neu = run("setp.neu.f32 %p1, %f10, %f11; selp.u64 %rd13, 1, 0, %p1;", a, b);
  auto eq = run("setp.eq.f32 %p1, %f10, %f11; selp.u64 %rd13, 1, 0, %p1;", a, b);
  auto nn = run("setp.nan.f32 %p1, %f10, %f11; selp.u64 %rd13, 1, 0, %p1;", a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    float x = as_f32(a[i]), y = as_f32(b[i]);
    bool un = std::isnan(x) || std::isnan(y);
    CHECK(lt[i] == uint64_t(x < y));
    CHECK(ltu[i] == uint64_t(un || x < y));
    CHECK(ne[i] == uint64_t(!un && x != y));
    CHECK(neu[i] == uint64_t(un || x != y));
    CHECK(eq[i] == uint64_t(x == y));
    CHECK(nn[i] == uint64_t(un));
  }
  auto e = edge32(), f = shuffled(edge32(), 7);
  auto lo = run("setp.lo.u32 %p1, %r10, %r11; selp.u64 %rd13, 1, 0, %p1;", e, f);
  auto lts = run("setp.lt.s32 %p1, %r10, %r11; selp.u64 %rd13, 1, 0, %p1;", e, f);
  // p|q with .and: p = (a > b) & c, q = !(a > b) & c.
  auto pq = run(R"(
    setp.ne.u32 %p3, %r12, 0;
    setp.gt.s32.and %p1|%p2, %r10, %r11, %p3;
    selp.u64 %rd20, 2, 0, %p1;
    selp.u64 %rd21, 1, 0, %p2;
    or.b64 %rd13, %rd20, %rd21;)",
                e, f, shuffled(std::vector<uint64_t>{0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1}, 9));
  auto cs = shuffled(std::vector<uint64_t>{0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1}, 9);
  for (size_t i = 0; i < e.size(); ++i) {
    CHECK(lo[i] == uint64_t(uint32_t(e[i]) < uint32_t(f[i])));
    CHECK(lts[i] == uint64_t(int32_t(e[i]) < int32_t(f[i])));
    bool g = int32_t(e[i]) > int32_t(f[i]);
    bool cc = cs[i] != 0;
    CHECK(pq[i] == uint64_t((g && cc ? 2 : 0) | (!g && cc ? 1 : 0)));
  }
  auto slct = run("slct.u32.f32 %r20, %r10, %r11, %f12; cvt.u64.u32 %rd13, %r20;", {1, 1, 1, 1}, {2, 2, 2, 2},
                  {f32(0.5f), f32(-0.f), f32(-1.f), f32(nan)});
  CHECK(slct[0] == 1);
  CHECK(slct[1] == 1);  // -0.0 >= 0
  CHECK(slct[2] == 2);
  CHECK(slct[3] == 2);  // NaN is not >= 0
  auto set = run("set.lt.u32.s32 %r20, %r10, %r11; cvt.u64.u32 %rd13, %r20;", {1, 5}, {2, 3});
  CHECK(set[0] == 0xffffffffu);
  CHECK(set[1] == 0);
  auto setf = run("set.lt.f32.s32 %f20, %r10, %r11; mov.b32 %r20, %f20; cvt.u64.u32 %rd13, %r20;", {1, 5}, {2, 3});
  CHECK(as_f32(setf[0]) == 1.0f);
  CHECK(setf[1] == 0);
}
