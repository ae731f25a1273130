// lab/sim/exec_int.cpp: integer and bit instructions (PTX ISA 9.7.1 integer
// arithmetic, 9.7.2 extended precision, 9.7.7 logic and shift).
//
// Values are computed in the unsigned type of the instruction's width so that
// wrap-around is defined, and stored zero-extended (bits<T>). Where PTX
// leaves a result undefined the hardware's answer is used and noted.
#include <bit>
#include <climits>
#include <limits>
#include <type_traits>

#include "lab/sim/exec.h"

namespace lab::sim {

using ptx::Op;
using ptx::Type;

namespace {

template <class F>
void with_int_type(Type t, F&& f) {
  switch (t) {
    case Type::S8: f(int8_t{}); break;
    case Type::B8: case Type::U8: f(uint8_t{}); break;
    case Type::S16: f(int16_t{}); break;
    case Type::B16: case Type::U16: f(uint16_t{}); break;
    case Type::S32: f(int32_t{}); break;
    case Type::S64: f(int64_t{}); break;
    case Type::B64: case Type::U64: f(uint64_t{}); break;
    default: f(uint32_t{}); break;  // B32, U32, and the typeless forms
  }
}

template <class T, class F>
inline void unop(WarpContext& c, const ptx::Instr& in, F f) {
  uint64_t ta[32];
  const uint64_t* a = src(c, in.ops[1], ta);
  uint64_t* d = dst(c, in.ops[0]);
  each_lane(c.mask, [&](uint32_t i) { d[i] = bits(f(as<T>(a[i]))); });
}

template <class T, class F>
inline void binop(WarpContext& c, const ptx::Instr& in, F f) {
  uint64_t ta[32], tb[32];
  const uint64_t* a = src(c, in.ops[1], ta);
  const uint64_t* b = src(c, in.ops[2], tb);
  uint64_t* d = dst(c, in.ops[0]);
  each_lane(c.mask, [&](uint32_t i) { d[i] = bits(f(as<T>(a[i]), as<T>(b[i]))); });
}

template <class T, class F>
inline void triop(WarpContext& c, const ptx::Instr& in, F f) {
  uint64_t ta[32], tb[32], tc[32];
  const uint64_t* a = src(c, in.ops[1], ta);
  const uint64_t* b = src(c, in.ops[2], tb);
  const uint64_t* cc = src(c, in.ops[3], tc);
  uint64_t* d = dst(c, in.ops[0]);
  each_lane(c.mask, [&](uint32_t i) { d[i] = bits(f(as<T>(a[i]), as<T>(b[i]), as<T>(cc[i]))); });
}

// The type twice as wide (mul.wide / mad.wide), as T's signedness.
template <class T> struct Wide;
template <> struct Wide<int8_t> { using type = int16_t; };
template <> struct Wide<uint8_t> { using type = uint16_t; };
template <> struct Wide<int16_t> { using type = int32_t; };
template <> struct Wide<uint16_t> { using type = uint32_t; };
template <> struct Wide<int32_t> { using type = int64_t; };
template <> struct Wide<uint32_t> { using type = uint64_t; };
template <> struct Wide<int64_t> { using type = __int128; };
template <> struct Wide<uint64_t> { using type = unsigned __int128; };

template <class T>
inline T mul_lo(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return T(U(uint64_t(U(a)) * uint64_t(U(b))));
}
template <class T>
inline T mul_hi(T a, T b) {
  using W = typename Wide<T>::type;
  return T(W(W(a) * W(b)) >> (sizeof(T) * 8));
}

template <class T>
constexpr int width() { return int(sizeof(T) * 8); }

template <class T>
inline T sat_add(T a, T b) {  // add.sat.s32: clamp to [MIN, MAX] (PTX ISA 9.7.1.1)
  int64_t r = int64_t(a) + int64_t(b);
  if (r > std::numeric_limits<T>::max()) return std::numeric_limits<T>::max();
  if (r < std::numeric_limits<T>::min()) return std::numeric_limits<T>::min();
  return T(r);
}

// Integer division. PTX leaves division by zero unspecified; the hardware's
// sequence yields all ones for the quotient and the dividend for the
// remainder (q = ~0, r = a - q*0), and MIN / -1 wraps to MIN. The host would trap.
template <class T>
inline T int_div(T a, T b) {
  if (b == 0) return T(~T(0));
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(std::make_unsigned_t<T>(0) - std::make_unsigned_t<T>(a));
  }
  return T(a / b);
}
template <class T>
inline T int_rem(T a, T b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return 0;
  }
  return T(a % b);
}

template <class T>
inline T shift_left(T a, uint32_t n) {  // shift amounts >= width give 0 (PTX ISA 9.7.7.7)
  using U = std::make_unsigned_t<T>;
  return n >= uint32_t(width<T>()) ? T(0) : T(U(U(a) << n));
}
template <class T>
inline T shift_right(T a, uint32_t n) {  // .s fills with the sign, .u/.b with zeros
  if (n >= uint32_t(width<T>())) {
    if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
    else return T(0);
  }
  return T(a >> n);
}

template <class T>
inline T bit_reverse(T a) {
  using U = std::make_unsigned_t<T>;
  U x = U(a), r = 0;
  for (int i = 0; i < width<T>(); ++i) r = U((r << 1) | ((x >> i) & 1));
  return T(r);
}

// bfe (PTX ISA 9.7.1.19): extract len bits at pos, sign-extended for .s types.
template <class T>
inline T bit_extract(T a, uint32_t pos, uint32_t len) {
  using U = std::make_unsigned_t<T>;
  const int msb = width<T>() - 1;
  pos &= 0xff;
  len &= 0xff;
  U x = U(a);
  bool sbit = false;
  if (std::is_signed_v<T> && len != 0) {
    uint32_t top = std::min<uint32_t>(pos + len - 1, uint32_t(msb));
    sbit = (x >> top) & 1;
  }
  U r = 0;
  for (int i = 0; i <= msb; ++i) {
    bool bit = (uint32_t(i) < len && pos + uint32_t(i) <= uint32_t(msb)) ? ((x >> (pos + i)) & 1) : sbit;
    r |= U(bit) << i;
  }
  return T(r);
}

// bfi (PTX ISA 9.7.1.20): insert len low bits of a into b at pos.
template <class T>
inline T bit_insert(T a, T b, uint32_t pos, uint32_t len) {
  using U = std::make_unsigned_t<T>;
  const uint32_t msb = uint32_t(width<T>() - 1);
  pos &= 0xff;
  len &= 0xff;
  U f = U(b);
  for (uint32_t i = 0; i < len && pos + i <= msb; ++i) {
    U bit = (U(a) >> i) & 1;
    f = U((f & ~(U(1) << (pos + i))) | (bit << (pos + i)));
  }
  return T(f);
}

// bfind (PTX ISA 9.7.1.16): bit position of the most significant non-sign
// bit, 0xffffffff if there is none.
template <class T>
inline uint32_t find_msb(T a) {
  using U = std::make_unsigned_t<T>;
  U x = U(a);
  if constexpr (std::is_signed_v<T>) {
    if (a < 0) x = U(~x);
  }
  if (x == 0) return 0xffffffffu;
  return uint32_t(width<T>() - 1 - std::countl_zero(x));
}

// prmt (PTX ISA 9.7.8.7): byte permute of {b, a}.
inline uint32_t permute(uint32_t a, uint32_t b, uint32_t sel, int mode) {
  uint64_t x = (uint64_t(b) << 32) | a;
  auto byte = [&](uint32_t i) { return uint32_t(x >> (8 * (i & 7))) & 0xff; };
  auto sbyte = [&](uint32_t i) { return (byte(i) & 0x80) ? 0xffu : 0u; };
  uint32_t r = 0;
  uint32_t s = sel & 3;
  switch (mode) {
    case 1:  // f4e: forward 4 extract
      for (uint32_t i = 0; i < 4; ++i) r |= byte(s + i) << (8 * i);
      return r;
    case 2:  // b4e: backward 4 extract
      for (uint32_t i = 0; i < 4; ++i) r |= byte((s + 8 - i) & 7) << (8 * i);
      return r;
    case 3:  // rc8: replicate byte
      return byte(s) * 0x01010101u;
    case 4: {  // ecl: edge clamp left
      uint32_t idx[4] = {s, std::max(s, 1u), std::max(s, 2u), 3};
      for (uint32_t i = 0; i < 4; ++i) r |= byte(idx[i]) << (8 * i);
      return r;
    }
    case 5: {  // ecr: edge clamp right
      uint32_t idx[4] = {0, std::min(s, 1u), std::min(s, 2u), s};
      for (uint32_t i = 0; i < 4; ++i) r |= byte(idx[i]) << (8 * i);
      return r;
    }
    case 6: {  // rc16: replicate half-word
      uint32_t h = (sel & 1) ? (a >> 16) : (a & 0xffff);
      return h | (h << 16);
    }
    default:  // generic: each selector nibble picks a byte; bit 3 replicates its sign
      for (uint32_t i = 0; i < 4; ++i) {
        uint32_t n = (sel >> (4 * i)) & 0xf;
        r |= ((n & 8) ? sbyte(n & 7) : byte(n & 7)) << (8 * i);
      }
      return r;
  }
}

inline uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  if (lut & 0x01) r |= ~a & ~b & ~c;
  if (lut & 0x02) r |= ~a & ~b & c;
  if (lut & 0x04) r |= ~a & b & ~c;
  if (lut & 0x08) r |= ~a & b & c;
  if (lut & 0x10) r |= a & ~b & ~c;
  if (lut & 0x20) r |= a & ~b & c;
  if (lut & 0x40) r |= a & b & ~c;
  if (lut & 0x80) r |= a & b & c;
  return r;
}

inline int32_t sext24(uint32_t v) { return int32_t(v << 8) >> 8; }

void exec_carry(const ptx::Instr& in, WarpContext& c) {
  // Extended precision (PTX ISA 9.7.2): CC.CF is a per-lane carry (add) or
  // borrow (sub) flag in WarpState::carry.
  uint64_t ta[32], tb[32], tc[32];
  const uint64_t* a = src(c, in.ops[1], ta);
  const uint64_t* b = src(c, in.ops[2], tb);
  const uint64_t* cv = (in.op == Op::MadCC || in.op == Op::MadC) ? src(c, in.ops[3], tc) : nullptr;
  uint64_t* d = dst(c, in.ops[0]);
  const bool is64 = ptx::type_bytes(in.type) == 8;
  const bool use_cf = in.op == Op::AddC || in.op == Op::SubC || in.op == Op::MadC;
  const bool write_cf = in.op == Op::AddCC || in.op == Op::SubCC || in.op == Op::MadCC ||
                        (in.flags & ptx::kFlagCarryOut);
  uint32_t carry = c.warp->carry;
  uint32_t out_cf = carry;
  each_lane(c.mask, [&](uint32_t i) {
    unsigned __int128 cf = (carry >> i) & 1;
    unsigned __int128 mask = is64 ? ~uint64_t(0) : 0xffffffffull;
    unsigned __int128 x = a[i] & uint64_t(mask), y = b[i] & uint64_t(mask);
    unsigned __int128 r;
    bool flag;
    if (in.op == Op::SubCC || in.op == Op::SubC) {
      unsigned __int128 sub = y + (use_cf ? cf : 0);
      r = (x - sub) & mask;
      flag = x < sub;  // borrow out
    } else {
      unsigned __int128 base;
      if (cv) {
        bool sgn = ptx::type_is_signed(in.type);
        unsigned __int128 p;
        if (sgn) {
          __int128 sp = is64 ? __int128(int64_t(a[i])) * __int128(int64_t(b[i]))
                             : __int128(int64_t(int32_t(a[i])) * int64_t(int32_t(b[i])));
          p = (unsigned __int128)sp;
        } else {
          p = x * y;
        }
        base = (in.mul == ptx::MulMode::Hi ? (p >> (is64 ? 64 : 32)) : p) & mask;
        y = cv[i] & uint64_t(mask);
        x = base;
      }
      unsigned __int128 full = x + y + (use_cf ? cf : 0);
      r = full & mask;
      flag = (full >> (is64 ? 64 : 32)) & 1;
    }
    d[i] = uint64_t(r);
    out_cf = (out_cf & ~(1u << i)) | (uint32_t(flag) << i);
  });
  if (write_cf) c.warp->carry = out_cf;
}

// The integer semantics in register type T. With kOp = Op::Invalid the
// opcode is read from the instruction; resolve_int fixes it for the common
// opcodes, so that the switch folds away and the handler is the lane loop.
template <class T, Op kOp = Op::Invalid>
void int_typed(const ptx::Instr& in, WarpContext& c) {
  using U = std::make_unsigned_t<T>;
  switch (kOp == Op::Invalid ? in.op : kOp) {
    case Op::Add:
      if ((in.flags & ptx::kFlagSat) && std::is_signed_v<T>)
        binop<T>(c, in, [](T a, T b) { return sat_add<T>(a, b); });
      else
        binop<T>(c, in, [](T a, T b) { return T(U(a) + U(b)); });
      return;
    case Op::Sub:
      if ((in.flags & ptx::kFlagSat) && std::is_signed_v<T>)
        binop<T>(c, in, [](T a, T b) {
          int64_t r = int64_t(a) - int64_t(b);
          return r > std::numeric_limits<T>::max() ? std::numeric_limits<T>::max()
                 : r < std::numeric_limits<T>::min() ? std::numeric_limits<T>::min() : T(r);
        });
      else
        binop<T>(c, in, [](T a, T b) { return T(U(a) - U(b)); });
      return;
    case Op::Mul:
      if (in.mul == ptx::MulMode::Hi) binop<T>(c, in, [](T a, T b) { return mul_hi<T>(a, b); });
      else if (in.mul == ptx::MulMode::Wide) {
        if constexpr (sizeof(T) <= 4) {
          using W = typename Wide<T>::type;
          binop<T>(c, in, [](T a, T b) { return W(W(a) * W(b)); });
        }
      } else binop<T>(c, in, [](T a, T b) { return mul_lo<T>(a, b); });
      return;
    case Op::Mad:
      if (in.mul == ptx::MulMode::Hi) {
        triop<T>(c, in, [](T a, T b, T d) { return T(U(mul_hi<T>(a, b)) + U(d)); });
      } else if (in.mul == ptx::MulMode::Wide) {
        if constexpr (sizeof(T) <= 4) {
          using W = typename Wide<T>::type;
          using UW = std::make_unsigned_t<W>;
          uint64_t ta[32], tb[32], tc[32];
          const uint64_t* a = src(c, in.ops[1], ta);
          const uint64_t* b = src(c, in.ops[2], tb);
          const uint64_t* cc = src(c, in.ops[3], tc);
          uint64_t* d = dst(c, in.ops[0]);
          each_lane(c.mask, [&](uint32_t i) {
            W p = W(W(as<T>(a[i])) * W(as<T>(b[i])));
            d[i] = bits(W(UW(p) + UW(as<W>(cc[i]))));
          });
        }
      } else {
        triop<T>(c, in, [](T a, T b, T d) { return T(U(mul_lo<T>(a, b)) + U(d)); });
      }
      return;
    case Op::Mul24: case Op::Mad24: {
      // 24x24 -> 48-bit product; .lo keeps bits 0..31, .hi bits 16..47 (PTX ISA 9.7.1.9).
      const bool sgn = std::is_signed_v<T>;
      const bool hi = in.mul == ptx::MulMode::Hi;
      const bool mad = in.op == Op::Mad24;
      uint64_t ta[32], tb[32], tc[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      const uint64_t* b = src(c, in.ops[2], tb);
      const uint64_t* cc = mad ? src(c, in.ops[3], tc) : nullptr;
      uint64_t* d = dst(c, in.ops[0]);
      each_lane(c.mask, [&](uint32_t i) {
        int64_t p = sgn ? int64_t(sext24(uint32_t(a[i]))) * sext24(uint32_t(b[i]))
                        : int64_t((a[i] & 0xffffff) * (b[i] & 0xffffff));
        uint32_t r = hi ? uint32_t(uint64_t(p) >> 16) : uint32_t(p);
        if (mad) r += uint32_t(cc[i]);
        d[i] = r;
      });
      return;
    }
    case Op::Sad:
      triop<T>(c, in, [](T a, T b, T d) { return T(U(d) + U(a < b ? U(U(b) - U(a)) : U(U(a) - U(b)))); });
      return;
    case Op::Div: binop<T>(c, in, [](T a, T b) { return int_div<T>(a, b); }); return;
    case Op::Rem: binop<T>(c, in, [](T a, T b) { return int_rem<T>(a, b); }); return;
    case Op::Abs: unop<T>(c, in, [](T a) { return a < 0 ? T(U(0) - U(a)) : a; }); return;
    case Op::Neg: unop<T>(c, in, [](T a) { return T(U(0) - U(a)); }); return;
    case Op::Min: binop<T>(c, in, [](T a, T b) { return a < b ? a : b; }); return;
    case Op::Max: binop<T>(c, in, [](T a, T b) { return a > b ? a : b; }); return;
    case Op::Popc: unop<T>(c, in, [](T a) { return uint32_t(std::popcount(U(a))); }); return;
    case Op::Clz: unop<T>(c, in, [](T a) { return uint32_t(std::countl_zero(U(a))); }); return;
    case Op::Bfind: unop<T>(c, in, [](T a) { return find_msb<T>(a); }); return;
    case Op::Brev: unop<T>(c, in, [](T a) { return bit_reverse<T>(a); }); return;
    case Op::Bfe: {
      uint64_t ta[32], tb[32], tc[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      const uint64_t* b = src(c, in.ops[2], tb);
      const uint64_t* cc = src(c, in.ops[3], tc);
      uint64_t* d = dst(c, in.ops[0]);
      each_lane(c.mask, [&](uint32_t i) { d[i] = bits(bit_extract<T>(as<T>(a[i]), uint32_t(b[i]), uint32_t(cc[i]))); });
      return;
    }
    case Op::Bfi: {
      uint64_t ta[32], tb[32], tc[32], td[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      const uint64_t* b = src(c, in.ops[2], tb);
      const uint64_t* pos = src(c, in.ops[3], tc);
      const uint64_t* len = src(c, in.ops[4], td);
      uint64_t* d = dst(c, in.ops[0]);
      each_lane(c.mask, [&](uint32_t i) {
        d[i] = bits(bit_insert<T>(as<T>(a[i]), as<T>(b[i]), uint32_t(pos[i]), uint32_t(len[i])));
      });
      return;
    }
    case Op::Fns: {
      // fns.b32 d, mask, base, offset (PTX ISA 9.7.1.23): the n-th set bit.
      uint64_t ta[32], tb[32], tc[32];
      const uint64_t* mk = src(c, in.ops[1], ta);
      const uint64_t* base = src(c, in.ops[2], tb);
      const uint64_t* off = src(c, in.ops[3], tc);
      uint64_t* d = dst(c, in.ops[0]);
      each_lane(c.mask, [&](uint32_t i) {
        uint32_t m = uint32_t(mk[i]), b = uint32_t(base[i]) & 31;
        int32_t o = int32_t(off[i]);
        uint32_t r = 0xffffffffu;
        if (o == 0) {
          r = b;  // offset 0 returns base (PTX)
        } else if (o > 0) {
          int n = o;
          for (uint32_t p = b; p < 32; ++p)
            if ((m >> p) & 1 && --n == 0) { r = p; break; }
        } else {
          int n = -o;
          for (int p = int(b); p >= 0; --p)
            if ((m >> p) & 1 && --n == 0) { r = uint32_t(p); break; }
        }
        d[i] = r;
      });
      return;
    }
    case Op::Prmt: {
      // Instr::mode is a ptx::PrmtMode: 0 generic, 1 f4e, 2 b4e, 3 rc8, 4 ecl, 5 ecr, 6 rc16.
      int mode = int(in.mode);
      uint64_t ta[32], tb[32], tc[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      const uint64_t* b = src(c, in.ops[2], tb);
      const uint64_t* s = src(c, in.ops[3], tc);
      uint64_t* d = dst(c, in.ops[0]);
      each_lane(c.mask, [&](uint32_t i) { d[i] = permute(uint32_t(a[i]), uint32_t(b[i]), uint32_t(s[i]), mode); });
      return;
    }
    case Op::Dp4a: case Op::Dp2a: {
      // dp4a.atype.btype d, a, b, c: c + sum of byte products (PTX ISA 9.7.1.22).
      const bool sa = ptx::type_is_signed(in.type);
      const bool sb = ptx::type_is_signed(in.type2 == Type::None ? in.type : in.type2);
      const bool dp2 = in.op == Op::Dp2a;
      const bool hi = in.mul == ptx::MulMode::Hi;
      uint64_t ta[32], tb[32], tc[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      const uint64_t* b = src(c, in.ops[2], tb);
      const uint64_t* cc = src(c, in.ops[3], tc);
      uint64_t* d = dst(c, in.ops[0]);
      each_lane(c.mask, [&](uint32_t i) {
        uint32_t x = uint32_t(a[i]), y = uint32_t(b[i]);
        int64_t acc = int32_t(cc[i]);
        auto bb = [&](uint32_t k) { uint32_t v = (y >> (8 * k)) & 0xff; return sb ? int64_t(int8_t(v)) : int64_t(v); };
        if (!dp2) {
          for (uint32_t k = 0; k < 4; ++k) {
            uint32_t v = (x >> (8 * k)) & 0xff;
            acc += (sa ? int64_t(int8_t(v)) : int64_t(v)) * bb(k);
          }
        } else {
          for (uint32_t k = 0; k < 2; ++k) {
            uint32_t v = (x >> (16 * k)) & 0xffff;
            acc += (sa ? int64_t(int16_t(v)) : int64_t(v)) * bb(k + (hi ? 2 : 0));
          }
        }
        d[i] = uint32_t(acc);
      });
      return;
    }
    case Op::And: binop<T>(c, in, [](T a, T b) { return T(U(a) & U(b)); }); return;
    case Op::Or: binop<T>(c, in, [](T a, T b) { return T(U(a) | U(b)); }); return;
    case Op::Xor: binop<T>(c, in, [](T a, T b) { return T(U(a) ^ U(b)); }); return;
    case Op::Not: unop<T>(c, in, [](T a) { return T(~U(a)); }); return;
    case Op::Cnot: unop<T>(c, in, [](T a) { return T(a == 0 ? 1 : 0); }); return;
    case Op::Lop3: {
      uint64_t ta[32], tb[32], tc[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      const uint64_t* b = src(c, in.ops[2], tb);
      const uint64_t* cc = src(c, in.ops[3], tc);
      uint32_t lut = uint32_t(in.ops[4].imm);
      uint64_t* d = dst(c, in.ops[0]);
      each_lane(c.mask, [&](uint32_t i) { d[i] = lop3(uint32_t(a[i]), uint32_t(b[i]), uint32_t(cc[i]), lut); });
      return;
    }
    case Op::Shl: case Op::Shr: {
      // The shift amount is always .u32 (PTX ISA 9.7.7.7 / 9.7.7.8).
      uint64_t ta[32], tb[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      const uint64_t* b = src(c, in.ops[2], tb);
      uint64_t* d = dst(c, in.ops[0]);
      if (in.op == Op::Shl)
        each_lane(c.mask, [&](uint32_t i) { d[i] = bits(shift_left<T>(as<T>(a[i]), uint32_t(b[i]))); });
      else
        each_lane(c.mask, [&](uint32_t i) { d[i] = bits(shift_right<T>(as<T>(a[i]), uint32_t(b[i]))); });
      return;
    }
    case Op::Shf: {
      // Funnel shift of {b:a} (PTX ISA 9.7.7.9): .clamp limits n to 32, .wrap takes n mod 32.
      const bool left = in.flags & ptx::kFlagShiftLeft;
      const bool clamp = in.flags & ptx::kFlagShiftClamp;
      uint64_t ta[32], tb[32], tc[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      const uint64_t* b = src(c, in.ops[2], tb);
      const uint64_t* nn = src(c, in.ops[3], tc);
      uint64_t* d = dst(c, in.ops[0]);
      each_lane(c.mask, [&](uint32_t i) {
        uint32_t n = uint32_t(nn[i]);
        n = clamp ? std::min(n, 32u) : (n & 31);
        uint64_t x = (uint64_t(uint32_t(b[i])) << 32) | uint32_t(a[i]);
        d[i] = left ? uint32_t((x << n) >> 32) : uint32_t(x >> n);
      });
      return;
    }
    case Op::Bmsk: {
      // bmsk.{clamp,wrap}.b32 d, a, b (PTX ISA, integer instructions, "bmsk", pseudocode
      // "Semantics"): a mask of b bits starting at bit a. Both operands are
      // taken mod 32; .clamp then zeroes the mask for a >= 32 and lets a
      // width b >= 32 run to bit 31, and a + b >= 32 also runs to bit 31.
      // A wrapped width of 0 gives 0.
      const bool clamp = in.flags & ptx::kFlagShiftClamp;
      uint64_t ta[32], tb[32];
      const uint64_t* a = src(c, in.ops[1], ta);
      const uint64_t* b = src(c, in.ops[2], tb);
      uint64_t* d = dst(c, in.ops[0]);
      each_lane(c.mask, [&](uint32_t i) {
        const uint32_t av = uint32_t(a[i]), bv = uint32_t(b[i]);
        const uint32_t a1 = av & 31, b1 = bv & 31, sum = a1 + b1;
        uint32_t mask0 = ~0u << a1;
        bool to_top = sum >= 32;  // sum-overflow: the mask runs to bit 31
        if (clamp) {
          if (av >= 32) { mask0 = 0; to_top = true; }  // bit-position-overflow
          if (bv >= 32) to_top = true;                 // bit-width-overflow
        }
        // ~0 << sum; the ISA's `b1 == 0 -> mask1 = ~0` makes the result 0.
        const uint32_t mask1 = to_top ? 0u : b1 == 0 ? ~0u : ~0u << sum;
        d[i] = mask0 & ~mask1;
      });
      return;
    }
    default:
      raise_fault(c, "unsupported", std::string("integer instruction '") + ptx::op_name(in.op) + "' is not supported",
                  uint32_t(std::countr_zero(c.mask)));
      return;
  }
}

}  // namespace

void exec_int(const ptx::Instr& in, WarpContext& c) {
  switch (in.op) {
    case Op::AddCC: case Op::AddC: case Op::SubCC: case Op::SubC: case Op::MadCC: case Op::MadC:
      exec_carry(in, c);
      return;
    default: break;
  }
  // Predicate logic: values are 0/1.
  if (in.type == Type::Pred) {
    switch (in.op) {
      case Op::And: binop<uint8_t>(c, in, [](uint8_t a, uint8_t b) { return uint8_t(a & b & 1); }); return;
      case Op::Or: binop<uint8_t>(c, in, [](uint8_t a, uint8_t b) { return uint8_t((a | b) & 1); }); return;
      case Op::Xor: binop<uint8_t>(c, in, [](uint8_t a, uint8_t b) { return uint8_t((a ^ b) & 1); }); return;
      case Op::Not: unop<uint8_t>(c, in, [](uint8_t a) { return uint8_t(~a & 1); }); return;
      default: break;
    }
  }
  with_int_type(in.type, [&](auto tag) { int_typed<decltype(tag)>(in, c); });
}

namespace {

// The handler for one register type: the opcodes of address arithmetic and
// loop counters (32- and 64-bit) get their own function, the rest share
// int_typed<T>'s switch.
template <class T>
ExecFn int_handler(Op op) {
  if constexpr (sizeof(T) >= 4) {
    switch (op) {
      case Op::Add: return int_typed<T, Op::Add>;
      case Op::Sub: return int_typed<T, Op::Sub>;
      case Op::Mul: return int_typed<T, Op::Mul>;
      case Op::Mad: return int_typed<T, Op::Mad>;
      case Op::Shl: return int_typed<T, Op::Shl>;
      case Op::Shr: return int_typed<T, Op::Shr>;
      case Op::And: return int_typed<T, Op::And>;
      default: break;
    }
  }
  return int_typed<T>;
}

}  // namespace

ExecFn resolve_int(const ptx::Instr& in) {
  switch (in.op) {
    case Op::AddCC: case Op::AddC: case Op::SubCC: case Op::SubC: case Op::MadCC: case Op::MadC:
      return exec_carry;
    default: break;
  }
  if (in.type == Type::Pred) return exec_int;  // predicate logic
  ExecFn fn = exec_int;
  with_int_type(in.type, [&](auto tag) { fn = int_handler<decltype(tag)>(in.op); });
  return fn;
}

}  // namespace lab::sim
