// tests/exec_harness.h: runs a few lines of PTX per lane over input vectors.
//
// Each thread t loads a[t], b[t], c[t] as 64-bit values into %rd10..%rd12 and
// gets the same values as %r10..12 (low 32 bits), %f10..12 (f32 bits),
// %fd10..12 (f64), %h10..12 (low 16 bits, .b16). The body leaves its result
// in %rd13, which is stored to out[t]. Scratch: %r20..%r39, %rd20..%rd39,
// %f20..39, %fd20..39, %h20..39, %p1..%p9.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "sim_harness.h"

namespace exectest {

inline std::string kernel_ptx(const std::string& body, const std::string& decls = "") {
  return R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry lanes(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
  .reg .pred %p<10>;
  .reg .b16 %h<40>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<40>;
  .reg .f32 %f<40>;
  .reg .f64 %fd<40>;
)" + decls + R"(
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pd];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 8;
  add.s64 %rd6, %rd1, %rd5;
  add.s64 %rd7, %rd2, %rd5;
  add.s64 %rd8, %rd3, %rd5;
  add.s64 %rd9, %rd4, %rd5;
  ld.global.u64 %rd10, [%rd6];
  ld.global.u64 %rd11, [%rd7];
  ld.global.u64 %rd12, [%rd8];
  cvt.u32.u64 %r10, %rd10;
  cvt.u32.u64 %r11, %rd11;
  cvt.u32.u64 %r12, %rd12;
  mov.b32 %f10, %r10;
  mov.b32 %f11, %r11;
  mov.b32 %f12, %r12;
  mov.b64 %fd10, %rd10;
  mov.b64 %fd11, %rd11;
  mov.b64 %fd12, %rd12;
  cvt.u16.u32 %h10, %r10;
  cvt.u16.u32 %h11, %r11;
  cvt.u16.u32 %h12, %r12;
  mov.u64 %rd13, 0;
)" + body + R"(
  st.global.u64 [%rd9], %rd13;
  ret;
}
)";
}

// Runs `body` with one thread per input element (a, b, c padded with zeros).
inline std::vector<uint64_t> run(const std::string& body, std::vector<uint64_t> a, std::vector<uint64_t> b = {},
                                 std::vector<uint64_t> c = {}, std::string* error = nullptr) {
  size_t n = std::max({a.size(), b.size(), c.size(), size_t(1)});
  a.resize(n);
  b.resize(n);
  c.resize(n);
  simtest::Program p = simtest::Program::from_ptx(kernel_ptx(body), "lanes");
  uint64_t da = p.buffer(a, "a"), db = p.buffer(b, "b"), dc = p.buffer(c, "c");
  uint64_t dd = p.buffer(std::vector<uint64_t>(n, 0xdeadbeefdeadbeefull), "d");
  p.arg(da);
  p.arg(db);
  p.arg(dc);
  p.arg(dd);
  auto r = p.run(lab::sim::Dim3{1}, lab::sim::Dim3{uint32_t(n)});
  if (!r.ok && error) *error = r.errors[0].kind + ": " + r.errors[0].message;
  return p.read<uint64_t>(dd, n);
}

inline uint64_t f32(float x) { return std::bit_cast<uint32_t>(x); }
inline uint64_t f64(double x) { return std::bit_cast<uint64_t>(x); }
inline float as_f32(uint64_t v) { return std::bit_cast<float>(uint32_t(v)); }
inline double as_f64(uint64_t v) { return std::bit_cast<double>(v); }
inline uint64_t u32(int64_t v) { return uint32_t(v); }

}  // namespace exectest
