#include "lab/sim/arg_spec.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include "lab/sim/float16.h"

namespace lab::sim {

namespace {

struct ElemInfo {
  const char* name;
  ElemType type;
  int bytes;
  bool is_float;
  bool is_signed;
};
constexpr ElemInfo kElems[] = {
    {"f32", ElemType::F32, 4, true, true},   {"f64", ElemType::F64, 8, true, true},
    {"f16", ElemType::F16, 2, true, true},   {"bf16", ElemType::BF16, 2, true, true},
    {"i8", ElemType::S8, 1, false, true},    {"u8", ElemType::U8, 1, false, false},
    {"i16", ElemType::S16, 2, false, true},  {"u16", ElemType::U16, 2, false, false},
    {"i32", ElemType::S32, 4, false, true},  {"u32", ElemType::U32, 4, false, false},
    {"i64", ElemType::S64, 8, false, true},  {"u64", ElemType::U64, 8, false, false},
};
const ElemInfo& info(ElemType t) {
  for (const auto& e : kElems)
    if (e.type == t) return e;
  return kElems[0];  // not an argument type: callers only pass types a spec made
}

[[noreturn]] void fail(std::string_view spec, const std::string& why) {
  throw ArgSpecError(fmt::format("--arg '{}': {}", spec, why));
}

// A fill value the element type cannot hold is an error, not a silent wrap
// (u8 fill:300 would store 44) or an infinity (f16 fill:1e6).
void check_fill_range(std::string_view text, const ElemInfo& e, double v) {
  if (e.is_float) {
    if (!std::isfinite(v)) return;  // inf, -inf, nan were asked for by name
    double max = e.type == ElemType::F16 ? 65504.0 : e.type == ElemType::F32 || e.type == ElemType::BF16 ? 3.4028234663852886e38 : 1.7976931348623157e308;
    if (std::fabs(v) > max)
      fail(text, fmt::format("fill value {} is out of range for {} (largest finite value {:g}); use fill:inf for an infinity", v, e.name, max));
    return;
  }
  if (!std::isfinite(v) || v != std::floor(v))
    fail(text, fmt::format("fill value {} is not a whole number, so it does not fit {} elements", v, e.name));
  double lo = e.is_signed ? -std::ldexp(1.0, 8 * e.bytes - 1) : 0.0;
  double hi = e.is_signed ? std::ldexp(1.0, 8 * e.bytes - 1) - 1 : std::ldexp(1.0, 8 * e.bytes) - 1;
  if (v < lo || v > hi)
    fail(text, fmt::format("fill value {:.17g} is out of range for {} ({:.17g} to {:.17g}); pick a value in range or a wider type",
                           v, e.name, lo, hi));
}

const ElemInfo* find_elem(std::string_view name) {
  for (const auto& e : kElems)
    if (name == e.name) return &e;
  return nullptr;
}

bool parse_int(std::string_view s, int64_t& out) {
  int base = 10;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) { neg = s[0] == '-'; s.remove_prefix(1); }
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; s.remove_prefix(2); }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return false;
  out = neg ? int64_t(0 - v) : int64_t(v);
  return true;
}

bool parse_double(std::string_view s, double& out) {
  std::string str(s);
  if (str == "inf" || str == "+inf") { out = INFINITY; return true; }
  if (str == "-inf") { out = -INFINITY; return true; }
  if (str == "nan") { out = NAN; return true; }
  char* end = nullptr;
  out = std::strtod(str.c_str(), &end);
  return !str.empty() && end == str.c_str() + str.size();
}

// Store `v` as element type t (floats rounded to nearest even; ints wrap).
void store_elem(ElemType t, uint8_t* dst, double v) {
  switch (t) {
    case ElemType::F32: { float f = float(v); std::memcpy(dst, &f, 4); break; }
    case ElemType::F64: std::memcpy(dst, &v, 8); break;
    case ElemType::F16: { uint16_t h = float_to_half(float(v)); std::memcpy(dst, &h, 2); break; }
    case ElemType::BF16: { uint16_t h = float_to_bf16(float(v)); std::memcpy(dst, &h, 2); break; }
    default: {
      // A double outside int64's range (or NaN) is undefined behaviour in the
      // cast (found by fuzz_arg_spec: i16[3]=fill:1e19): go through uint64 for
      // values of 2^63 and up, saturate beyond, NaN gives 0.
      uint64_t i;
      if (std::isnan(v)) i = 0;
      else if (v >= 18446744073709551616.0) i = UINT64_MAX;
      else if (v >= 9223372036854775808.0) i = uint64_t(v);
      else if (v < -9223372036854775808.0) i = uint64_t(INT64_MIN);
      else i = uint64_t(int64_t(v));
      std::memcpy(dst, &i, size_t(info(t).bytes));  // little-endian: the low bytes
    }
  }
}

}  // namespace

int elem_bytes(ElemType t) { return ptx::type_bytes(t); }
bool elem_from_name(std::string_view name, ElemType& out) {
  const ElemInfo* e = find_elem(name);
  if (e) out = e->type;
  return e != nullptr;
}
void store_element(ElemType t, uint8_t* dst, double v) { store_elem(t, dst, v); }
double load_element(ElemType t, const uint8_t* p) {
  auto get = [p](auto v) { std::memcpy(&v, p, sizeof v); return v; };
  switch (t) {
    case ElemType::F32: return get(float(0));
    case ElemType::F64: return get(double(0));
    case ElemType::F16: return half_to_float(get(uint16_t(0)));
    case ElemType::BF16: return bf16_to_float(get(uint16_t(0)));
    case ElemType::S8: return get(int8_t(0));
    case ElemType::U8: return get(uint8_t(0));
    case ElemType::S16: return get(int16_t(0));
    case ElemType::U16: return get(uint16_t(0));
    case ElemType::S32: return get(int32_t(0));
    case ElemType::U32: return get(uint32_t(0));
    case ElemType::S64: return double(get(int64_t(0)));
    case ElemType::U64: return double(get(uint64_t(0)));
    default: return 0;  // not an argument type
  }
}
const char* elem_name(ElemType t) { return info(t).name; }
bool elem_is_float(ElemType t) { return ptx::type_is_float(t); }

ArgSpec parse_arg_spec(std::string_view text) {
  ArgSpec spec;
  spec.text = std::string(text);
  auto bracket = text.find('[');
  auto eq = text.find('=');
  if (bracket != std::string_view::npos && (eq == std::string_view::npos || bracket < eq)) {
    // Buffer: TYPE[COUNT][=INIT]
    spec.is_buffer = true;
    const ElemInfo* e = find_elem(text.substr(0, bracket));
    if (!e) fail(text, fmt::format("unknown element type '{}' (use f32 f64 f16 bf16 i8 u8 i16 u16 i32 u32 i64 u64)",
                                   text.substr(0, bracket)));
    spec.type = e->type;
    auto close = text.find(']', bracket);
    if (close == std::string_view::npos) fail(text, "missing ']' after the element count");
    std::string_view count = text.substr(bracket + 1, close - bracket - 1);
    if (count.empty()) {
      spec.count_from_file = true;
    } else {
      int64_t n;
      if (!parse_int(count, n) || n <= 0) fail(text, fmt::format("element count '{}' must be a positive integer", count));
      // Bounded so that count * element size cannot wrap around 64 bits (found
      // by fuzzing: i64[2^61+1] became an 8-byte buffer filled with 2^64 bytes).
      if (uint64_t(n) > (uint64_t(1) << 48) / uint64_t(e->bytes))
        fail(text, fmt::format("element count {} is too large: at most 2^48 bytes per buffer", count));
      spec.count = uint64_t(n);
    }
    std::string_view rest = text.substr(close + 1);
    if (rest.empty()) {
      if (spec.count_from_file) fail(text, "an empty count '[]' needs a file to take the length from: TYPE[]=@PATH");
      return spec;
    }
    if (rest[0] != '=') fail(text, fmt::format("unexpected '{}' after ']' (expected '=INIT')", rest));
    std::string_view init = rest.substr(1);
    if (init == "zero") {
      spec.init = ArgSpec::Init::Zero;
    } else if (init == "iota") {
      spec.init = ArgSpec::Init::Iota;
    } else if (init == "uninit") {
      spec.init = ArgSpec::Init::Uninit;
    } else if (init == "rand" || init.substr(0, 5) == "rand:") {
      spec.init = ArgSpec::Init::Rand;
      if (init.size() > 4) {
        int64_t s;
        if (!parse_int(init.substr(5), s) || s < 0) fail(text, "rand:SEED needs a non-negative integer seed");
        spec.seed = uint64_t(s);
        spec.seed_given = true;
      }
    } else if (init.substr(0, 8) == "randint:") {
      spec.init = ArgSpec::Init::RandBelow;
      int64_t n;
      if (!parse_int(init.substr(8), n) || n < 1) fail(text, "randint:N needs a positive integer bound N");
      if (elem_is_float(spec.type)) fail(text, "randint:N fills integers; for floats use rand");
      spec.below = uint64_t(n);
    } else if (init.substr(0, 5) == "fill:") {
      spec.init = ArgSpec::Init::Fill;
      if (!parse_double(init.substr(5), spec.fill)) fail(text, fmt::format("fill value '{}' is not a number", init.substr(5)));
      check_fill_range(text, info(spec.type), spec.fill);
    } else if (!init.empty() && init[0] == '@') {
      spec.init = ArgSpec::Init::File;
      spec.path = std::string(init.substr(1));
      if (spec.path.empty()) fail(text, "'@' needs a file path: TYPE[COUNT]=@data.bin");
    } else {
      fail(text, fmt::format("unknown initialiser '{}' (use zero, iota, fill:V, rand, rand:SEED, randint:N, uninit or @PATH)", init));
    }
    if (spec.count_from_file && spec.init != ArgSpec::Init::File)
      fail(text, "an empty count '[]' is only allowed with a file initialiser: TYPE[]=@PATH");
    return spec;
  }
  // Scalar: TYPE=VALUE
  if (eq == std::string_view::npos)
    fail(text, "expected TYPE=VALUE for a scalar (i32=5, f32=1.5) or TYPE[COUNT]=INIT for a buffer (f32[1024]=rand)");
  std::string_view tname = text.substr(0, eq), value = text.substr(eq + 1);
  const ElemInfo* e = find_elem(tname);
  // Integers of every width (a `bool` or `char` parameter is .u8/.s8 in PTX),
  // floats of 32 and 64 bits.
  if (!e || (e->is_float && e->type != ElemType::F32 && e->type != ElemType::F64))
    fail(text, fmt::format("unknown scalar type '{}' (use i8 u8 i16 u16 i32 u32 i64 u64 f32 f64)", tname));
  spec.type = e->type;
  if (e->is_float) {
    double d;
    if (!parse_double(value, d)) fail(text, fmt::format("'{}' is not a number", value));
    if (e->type == ElemType::F32) spec.scalar_bits = std::bit_cast<uint32_t>(float(d));
    else spec.scalar_bits = std::bit_cast<uint64_t>(d);
  } else {
    int64_t v;
    if (!parse_int(value, v)) fail(text, fmt::format("'{}' is not an integer", value));
    const int bits = e->bytes * 8;
    if (bits < 64) {
      const int64_t lo = e->is_signed ? -(int64_t(1) << (bits - 1)) : 0;
      const int64_t hi = e->is_signed ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
      if (v < lo || v > hi)
        fail(text, fmt::format("value does not fit in {} {}-bit integer", e->is_signed ? "a signed" : "an unsigned", bits));
      spec.scalar_bits = uint64_t(v) & ((uint64_t(1) << bits) - 1);
    } else {
      if (!e->is_signed && v < 0 && value[0] == '-') fail(text, "an unsigned value cannot be negative");
      spec.scalar_bits = uint64_t(v);
    }
  }
  return spec;
}

void fill_elements(const ArgSpec& spec, uint8_t* dst, uint64_t count, uint64_t default_seed) {
  const int eb = elem_bytes(spec.type);
  switch (spec.init) {
    case ArgSpec::Init::Zero:
    case ArgSpec::Init::Uninit:
      std::memset(dst, 0, count * eb);
      break;
    case ArgSpec::Init::Iota:
      for (uint64_t i = 0; i < count; ++i) store_elem(spec.type, dst + i * eb, double(i));
      break;
    case ArgSpec::Init::Fill:
      for (uint64_t i = 0; i < count; ++i) store_elem(spec.type, dst + i * eb, spec.fill);
      break;
    case ArgSpec::Init::Rand: {
      std::mt19937_64 rng(spec.seed_given ? spec.seed : default_seed);
      if (spec.type == ElemType::F32) {
        // The float loop below without store_elem's switch per element: a
        // 256 MB array took seconds to draw.
        for (uint64_t i = 0; i < count; ++i) {
          const float f = float(uniform_minus_one_to_one(rng()));
          std::memcpy(dst + i * 4, &f, 4);
        }
      } else if (elem_is_float(spec.type)) {
        for (uint64_t i = 0; i < count; ++i) store_elem(spec.type, dst + i * eb, uniform_minus_one_to_one(rng()));
      } else {
        for (uint64_t i = 0; i < count; ++i) {
          uint64_t r = rng();
          std::memcpy(dst + i * eb, &r, size_t(eb));  // full range of the type
        }
      }
      break;
    }
    case ArgSpec::Init::RandBelow: {
      std::mt19937_64 rng(default_seed);
      for (uint64_t i = 0; i < count; ++i) store_elem(spec.type, dst + i * eb, double(rng() % spec.below));
      break;
    }
    case ArgSpec::Init::File: {
      std::ifstream in(spec.path, std::ios::binary);
      if (!in) throw ArgSpecError(fmt::format("--arg '{}': cannot open '{}'", spec.text, spec.path));
      in.read(reinterpret_cast<char*>(dst), std::streamsize(count * eb));
      if (uint64_t(in.gcount()) != count * eb)
        throw ArgSpecError(fmt::format("--arg '{}': '{}' holds {} bytes, fewer than the {} bytes of {} x {}",
                                       spec.text, spec.path, in.gcount(), count * eb, count, elem_name(spec.type)));
      break;
    }
  }
}

PreparedArgs prepare_args(const ptx::Kernel& kernel, const std::vector<ArgSpec>& specs, GlobalMemory& memory) {
  const auto& params = kernel.params;
  auto signature = [&] {
    std::string s;
    for (size_t i = 0; i < params.size(); ++i)
      s += fmt::format("{}{}", i ? ", " : "", ptx::type_name(params[i].type));
    return s;
  };
  if (specs.size() != params.size())
    throw ArgSpecError(fmt::format(
        "kernel '{}' takes {} parameter{} ({}), but {} --arg {} given: pass one --arg per parameter, in order",
        kernel.name, params.size(), params.size() == 1 ? "" : "s", signature(), specs.size(),
        specs.size() == 1 ? "was" : "were"));
  // Room for every buffer at once: grown one buffer at a time, the arena
  // copies the ones before (a 128 MB copy's second array moved the first).
  uint64_t buffer_bytes = 0;
  uint32_t buffers = 0;
  for (const ArgSpec& s : specs)
    if (s.is_buffer && !s.count_from_file) buffer_bytes += s.count * uint64_t(elem_bytes(s.type)), ++buffers;
  try {
    memory.reserve(buffer_bytes, buffers);
  } catch (const std::exception&) {
    // More than the host can hold: the buffer that does not fit says so below.
  }
  PreparedArgs out;
  out.params.assign(kernel.param_bytes, 0);
  out.buffer_address.assign(specs.size(), 0);
  out.buffer_bytes.assign(specs.size(), 0);
  for (size_t i = 0; i < specs.size(); ++i) {
    const ArgSpec& s = specs[i];
    const ptx::Param& p = params[i];
    const bool p_float = ptx::type_is_float(p.type);
    auto mismatch = [&](const std::string& why) {
      throw ArgSpecError(fmt::format("--arg {} '{}' does not match parameter {} of kernel '{}' ({} {}): {}", i, s.text,
                                     i, kernel.name, ptx::type_name(p.type), p.name, why));
    };
    if (s.is_buffer) {
      if (p.size != 8 || p_float)
        mismatch(fmt::format("a buffer is passed as a 64-bit pointer, but this parameter is a {}-byte {}", p.size,
                             p_float ? "float" : "integer"));
      uint64_t count = s.count;
      if (s.count_from_file) {
        std::error_code ec;
        auto size = std::filesystem::file_size(s.path, ec);
        if (ec) throw ArgSpecError(fmt::format("--arg '{}': cannot read '{}': {}", s.text, s.path, ec.message()));
        if (size == 0 || size % elem_bytes(s.type))
          throw ArgSpecError(fmt::format("--arg '{}': '{}' is {} bytes, not a whole number of {} elements", s.text,
                                         s.path, size, elem_name(s.type)));
        count = size / elem_bytes(s.type);
      }
      uint64_t bytes = count * uint64_t(elem_bytes(s.type));
      uint64_t addr = memory.allocate(bytes, s.name.empty() ? fmt::format("arg{}", i) : s.name,
                                      s.init != ArgSpec::Init::Uninit);
      // A new buffer's bytes are zero already (GlobalMemory::allocate grows
      // the arena): a zero fill would only touch every page of it.
      if (s.init != ArgSpec::Init::Uninit && s.init != ArgSpec::Init::Zero) {
        uint8_t* host = memory.host(addr, bytes);
        fill_elements(s, host, count, 0x9e3779b97f4a7c15ull * (i + 1));
      }
      out.buffer_address[i] = addr;
      out.buffer_bytes[i] = bytes;
      std::memcpy(out.params.data() + p.offset, &addr, 8);
    } else {
      const bool s_float = elem_is_float(s.type);
      int sb = elem_bytes(s.type);
      if (s_float != p_float)
        mismatch(p_float ? fmt::format("the kernel expects a float; write f{}=VALUE", p.size * 8)
                         : fmt::format("the kernel expects an integer or pointer; write {}=VALUE or a buffer",
                                       p.size == 8 ? "i64/u64" : "i32/u32"));
      if (uint32_t(sb) != p.size)
        mismatch(fmt::format("the value is {} bytes but the parameter is {} bytes; write {}{}=VALUE", sb, p.size,
                             s_float ? "f" : (ptx::type_is_signed(p.type) ? "i" : "u"), p.size * 8));
      std::memcpy(out.params.data() + p.offset, &s.scalar_bits, size_t(sb));
    }
  }
  return out;
}

}  // namespace lab::sim
