// lab/ptx/parser.cpp: module structure of a PTX text.
//
// Index
//   [ERRORS]     ParseError construction with origin/line/kernel
//   [LITERALS]   integer and float literals
//   [MODULE]     .version/.target/.file, module variables, .func, .entry
//   [KERNEL]     params, .reg scopes, shared/local variables, labels, .loc
//   [OPERANDS]   registers, addresses, vectors, symbols
//   [FINISH]     shared layout, label targets, pointer hints
//
// Instruction families (modifiers, operand layout) live in decode.cpp.
#include "lab/ptx/parser.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "lab/ptx/decode.h"
#include "lab/ptx/lexer.h"

namespace lab::ptx {
namespace {

using detail::RawOperand;
using detail::Tok;
using detail::Token;

uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

// PTX ISA 10: special registers the simulator provides.
const std::unordered_map<std::string_view, Special>& special_registers() {
  static const std::unordered_map<std::string_view, Special> kMap = [] {
    std::unordered_map<std::string_view, Special> m = {
      {"%tid.x", Special::TidX},         {"%tid.y", Special::TidY},
      {"%tid.z", Special::TidZ},         {"%ntid.x", Special::NtidX},
      {"%ntid.y", Special::NtidY},       {"%ntid.z", Special::NtidZ},
      {"%ctaid.x", Special::CtaidX},     {"%ctaid.y", Special::CtaidY},
      {"%ctaid.z", Special::CtaidZ},     {"%nctaid.x", Special::NctaidX},
      {"%nctaid.y", Special::NctaidY},   {"%nctaid.z", Special::NctaidZ},
      {"%laneid", Special::Laneid},      {"%warpid", Special::Warpid},
      {"%nwarpid", Special::Nwarpid},    {"%smid", Special::Smid},
      {"%nsmid", Special::Nsmid},        {"%gridid", Special::Gridid},
      {"%lanemask_eq", Special::LanemaskEq}, {"%lanemask_le", Special::LanemaskLe},
      {"%lanemask_lt", Special::LanemaskLt}, {"%lanemask_ge", Special::LanemaskGe},
      {"%lanemask_gt", Special::LanemaskGt}, {"%clock", Special::Clock},
      {"%clock64", Special::Clock64},    {"%globaltimer", Special::Globaltimer},
      {"%globaltimer_lo", Special::GlobaltimerLo}, {"%globaltimer_hi", Special::GlobaltimerHi},
      {"%dynamic_smem_size", Special::DynamicSmemSize},
      {"%total_smem_size", Special::TotalSmemSize},
      // Shared memory the driver reserves per block; cooperative groups keep
      // their multi-warp scratch there (cooperative_groups/details/memory.h).
      {"%reserved_smem_offset_begin", Special::ReservedSmemBegin},
      {"%reserved_smem_offset_end", Special::ReservedSmemEnd},
      {"%reserved_smem_offset_cap", Special::ReservedSmemCap},
      {"%reserved_smem_offset_0", Special::ReservedSmem0},
      {"%reserved_smem_offset_1", Special::ReservedSmem1},
    };
    static std::array<std::string, 32> envreg_names;  // %envreg0..%envreg31 (the map keeps views of them)
    for (int i = 0; i < 32; ++i) {
      envreg_names[size_t(i)] = "%envreg" + std::to_string(i);
      m.emplace(envreg_names[size_t(i)], Special(int(Special::Envreg0) + i));
    }
    return m;
  }();
  return kMap;
}

Type type_word(std::string_view w) {  // ".f32" -> F32
  return w.size() > 1 && w[0] == '.' ? type_from_name(w.substr(1)) : Type::None;
}

struct RegEntry {
  std::string_view name;  // prefix for ranges ("%r"), full name for singles
  uint32_t count = 1;
  uint32_t first_slot = 0;
  bool range = false;
  Type type = Type::None;
};

enum class SymKind : uint8_t { None, Shared, Local, Param, Global };

class Parser {
 public:
  Parser(std::string_view text, std::string_view origin)
      : origin_(origin), toks_(detail::tokenize(text, origin)) {
    mod_.files.push_back("");
  }

  Module run() {
    prescan_funcs();
    parse_module();
    return std::move(mod_);
  }

 private:
  // [ERRORS] -----------------------------------------------------------------
  // Limits checked while parsing, before anything is sized from them.
  static constexpr uint32_t kMaxPtxMajor = 9;            // CUDA 13 writes PTX ISA 9.0
  static constexpr uint64_t kMaxRegSlots = 1u << 16;     // declared registers per kernel (all .reg lines)
  static constexpr uint64_t kMaxRegsPerDecl = kMaxRegSlots;
  static constexpr uint64_t kMaxAlign = 1u << 16;        // bytes; TMA's swizzled tiles want 1024
  std::map<std::string, uint32_t> entry_lines_;         // .entry names seen, for duplicates

  uint32_t checked_align(uint32_t line, uint64_t a) const {
    // PTX ISA ("Variable and Array Declarations": .align): a power of two.
    if (a == 0 || (a & (a - 1)) != 0) fail(line, ".align " + std::to_string(a) + " is not a power of two");
    if (a > kMaxAlign)
      fail(line, ".align " + std::to_string(a) + " is larger than the lab allows (" + std::to_string(kMaxAlign) +
                     " bytes); no GPU memory space needs more");
    return static_cast<uint32_t>(a);
  }

  // sm_NN, sm_NNa, sm_NNf or compute_NN... up to what CUDA 13 knows (sm_121).
  void check_target(uint32_t line, const std::string& t) const {
    size_t us = t.find('_');
    const std::string family = t.substr(0, us);
    std::string num = us == std::string::npos ? "" : t.substr(us + 1);
    if (!num.empty() && (num.back() == 'a' || num.back() == 'f')) num.pop_back();
    const bool digits = !num.empty() && num.size() <= 4 &&
                        std::all_of(num.begin(), num.end(), [](char c) { return c >= '0' && c <= '9'; });
    const int n = digits ? std::atoi(num.c_str()) : -1;
    if ((family != "sm" && family != "compute") || n < 10 || n > 121)
      fail(line, "unknown .target '" + t + "' (PTX targets run from sm_10 to sm_121, the newest CUDA 13 knows; the lab's GPU models are sm_70 to sm_90)");
  }

  // The .target's SM number (sm_90a -> 90), 0 when none was given.
  int target_sm() const {
    size_t us = mod_.target.find('_');
    return us == std::string::npos ? 0 : std::atoi(mod_.target.c_str() + us + 1);
  }

  // Instructions that need a newer target than the module names, as ptxas
  // would refuse them. mbarrier (PTX ISA 9.7.13.15, "Target ISA notes"):
  // init/arrive/arrive_drop/test_wait/pending_count/inval and
  // cp.async.mbarrier.arrive need sm_80; try_wait, expect_tx, complete_tx
  // and arrive.expect_tx need sm_90. bmsk ("bmsk") needs sm_70.
  void check_arch(uint32_t line, const Instr& in, std::string_view opcode) const {
    const int sm = target_sm();
    if (sm == 0) return;
    int need = 0;
    switch (in.op) {
      case Op::Bmsk: need = 70; break;
      case Op::MbarrierInit: case Op::MbarrierTestWait: case Op::MbarrierPendingCount: case Op::MbarrierInval:
      case Op::CpAsyncMbarrierArrive:
        need = 80;
        break;
      case Op::MbarrierArrive: need = (in.mode & kMbarExpectTx) ? 90 : 80; break;
      case Op::MbarrierTryWait: case Op::MbarrierExpectTx: case Op::MbarrierCompleteTx: case Op::CpAsyncBulk:
      case Op::CpAsyncBulkTensor:
        need = 90;
        break;
      case Op::WgmmaMmaAsync: case Op::WgmmaFence: case Op::WgmmaCommitGroup: case Op::WgmmaWaitGroup:
      case Op::Setmaxnreg:
        // Architecture-specific (PTX ISA 9.7.15, 9.7.17.1: "requires sm_90a").
        if (sm == 90 && mod_.target.size() > 0 && mod_.target.back() == 'a') return;
        fail(line,
             "'" + std::string(opcode) + "' needs .target sm_90a (the module targets " + mod_.target +
                 "); compile for the architecture-specific target (-arch=sm_90a)",
             opcode);
      default: return;
    }
    if (sm < need)
      fail(line,
           "'" + std::string(opcode) + "' needs .target sm_" + std::to_string(need) + " or later (the module targets " +
               mod_.target + "); compile for that architecture (-arch=sm_" + std::to_string(need) + ")",
           opcode);
  }

  [[noreturn]] void fail(uint32_t line, const std::string& what, std::string_view opcode = {}) const {
    std::string msg = origin_ + ":" + std::to_string(line) + ": ";
    if (in_kernel_) msg += "in kernel '" + k_.name + "': ";
    msg += what;
    throw ParseError(msg, origin_, line, in_kernel_ ? k_.name : std::string(), std::string(opcode));
  }

  const Token& peek(size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  static bool is_punct(const Token& t, char c) { return t.kind == Tok::Punct && t.punct == c; }
  bool accept(char c) {
    if (!is_punct(peek(), c)) return false;
    next();
    return true;
  }
  static std::string show(const Token& t) {
    if (t.kind == Tok::End) return "end of file";
    return "'" + std::string(t.text) + "'";
  }
  void expect(char c, const char* where) {
    if (!accept(c)) fail(peek().line, std::string("expected '") + c + "' " + where + ", found " + show(peek()));
  }
  std::string_view expect_word(const char* what) {
    if (peek().kind != Tok::Word) fail(peek().line, std::string("expected ") + what + ", found " + show(peek()));
    return next().text;
  }
  uint64_t expect_uint(const char* what) {
    const Token& t = peek();
    RawOperand r;
    if (t.kind != Tok::Word || !parse_number(t.text, r) || r.literal != detail::kLitInt || r.op.imm < 0)
      fail(t.line, std::string("expected ") + what + ", found " + show(t));
    next();
    return static_cast<uint64_t>(r.op.imm);
  }
  void skip_to_semicolon() {
    while (peek().kind != Tok::End && !is_punct(peek(), ';')) next();
    accept(';');
  }
  void skip_line(uint32_t line) {
    while (peek().kind != Tok::End && peek().line == line) next();
  }
  void skip_braced() {  // at '{': skip to the matching '}'
    int depth = 0;
    do {
      const Token& t = next();
      if (t.kind == Tok::End) fail(t.line, "unterminated '{' block");
      if (is_punct(t, '{')) ++depth;
      if (is_punct(t, '}')) --depth;
    } while (depth > 0);
  }

  // [LITERALS] ---------------------------------------------------------------
  // PTX ISA 4.5: 0x hex, 0b binary, leading-0 octal, decimal, optional U
  // suffix; 0fXXXXXXXX and 0dXXXXXXXXXXXXXXXX give float bits; decimal
  // floats with a '.' or exponent.
  static bool parse_number(std::string_view w, RawOperand& r) {
    if (w.empty() || w[0] < '0' || w[0] > '9') return false;
    r.op.kind = OperandKind::Imm;
    r.literal = detail::kLitInt;
    auto hex = [](std::string_view s, uint64_t& out) {
      if (s.empty() || s.size() > 16) return false;
      out = 0;
      for (char c : s) {
        int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (d < 0) return false;
        out = out * 16 + d;
      }
      return true;
    };
    if (w.size() == 10 && w[0] == '0' && (w[1] == 'f' || w[1] == 'F')) {
      uint64_t v;
      if (!hex(w.substr(2), v)) return false;
      r.op.imm = static_cast<int64_t>(v);
      r.literal = detail::kLitF32Bits;
      return true;
    }
    if (w.size() == 18 && w[0] == '0' && (w[1] == 'd' || w[1] == 'D')) {
      uint64_t v;
      if (!hex(w.substr(2), v)) return false;
      r.op.imm = static_cast<int64_t>(v);
      r.literal = detail::kLitF64Bits;
      return true;
    }
    if (w.back() == 'U' || w.back() == 'u') w.remove_suffix(1);
    if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
      uint64_t v;
      if (!hex(w.substr(2), v)) return false;
      r.op.imm = static_cast<int64_t>(v);
      return true;
    }
    if (w.size() > 2 && w[0] == '0' && (w[1] == 'b' || w[1] == 'B')) {
      uint64_t v = 0;
      for (char c : w.substr(2)) {
        if (c != '0' && c != '1') return false;
        v = v * 2 + (c - '0');
      }
      r.op.imm = static_cast<int64_t>(v);
      return true;
    }
    if (w.find_first_of(".eE") != std::string_view::npos) {
      std::string s(w);
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (end != s.c_str() + s.size()) return false;
      r.literal = detail::kLitDecimal;
      r.decimal = d;
      r.op.imm = 0;
      return true;
    }
    uint64_t v = 0;
    unsigned base = (w.size() > 1 && w[0] == '0') ? 8 : 10;
    for (char c : w) {
      if (c < '0' || c > '9' || (base == 8 && c > '7')) return false;
      v = v * base + (c - '0');
    }
    r.op.imm = static_cast<int64_t>(v);
    return true;
  }
  static void negate_literal(RawOperand& r) {
    if (r.literal == detail::kLitInt) r.op.imm = -r.op.imm;
    else if (r.literal == detail::kLitF32Bits) r.op.imm ^= 0x8000'0000ll;
    else if (r.literal == detail::kLitF64Bits) r.op.imm = static_cast<int64_t>(static_cast<uint64_t>(r.op.imm) ^ 0x8000'0000'0000'0000ull);
    else r.decimal = -r.decimal;
  }

  // [MODULE] -----------------------------------------------------------------
  void parse_module() {
    while (peek().kind != Tok::End) {
      const Token& t = peek();
      if (is_punct(t, ';')) { next(); continue; }
      if (t.kind != Tok::Word) fail(t.line, "unexpected " + show(t) + " at module scope");
      std::string_view w = t.text;
      uint32_t line = t.line;
      if (w == ".version") {
        next();
        std::string_view v = expect_word("a version number");
        size_t dot = v.find('.');
        mod_.version_major = static_cast<uint32_t>(std::atoi(std::string(v.substr(0, dot)).c_str()));
        if (dot != std::string_view::npos) mod_.version_minor = static_cast<uint32_t>(std::atoi(std::string(v.substr(dot + 1)).c_str()));
        // CUDA 13's compilers write PTX ISA 9.0 (the PTX ISA reference's release
        // notes); a later version may use what this lab does not read.
        if (mod_.version_major < 1 || mod_.version_major > kMaxPtxMajor)
          fail(line, "PTX ISA version " + std::string(v) + " is not one this lab reads (1.0 to " +
                         std::to_string(kMaxPtxMajor) + ".x, what CUDA 13's compilers write): regenerate the PTX with "
                         "nvcc -ptx or give the .cu file");
      } else if (w == ".target") {
        next();
        mod_.target = std::string(expect_word("a target"));
        while (accept(',')) expect_word("a target option");
        check_target(line, mod_.target);
      } else if (w == ".address_size") {
        next();
        mod_.address_size = static_cast<uint32_t>(expect_uint("an address size"));
        if (mod_.address_size != 64) fail(line, "only 64-bit PTX (.address_size 64) is supported");
      } else if (w == ".file") {
        next();
        parse_file(line);
      } else if (w == ".section") {
        next();
        expect_word("a section name");
        if (is_punct(peek(), '{')) skip_braced();
      } else if (w == ".loc") {
        skip_line(line);
      } else if (w == ".pragma") {
        skip_to_semicolon();
      } else if (w == ".visible" || w == ".weak" || w == ".common") {
        next();
      } else if (w == ".extern") {
        next();
        pending_extern_ = true;
        continue;
      } else if (w == ".entry") {
        next();
        if (pending_extern_) fail(line, "external .entry declarations are not supported");
        parse_entry(line);
        const std::string& name = mod_.kernels.back().name;
        if (auto [it, fresh] = entry_lines_.emplace(name, line); !fresh)
          fail(line, "a second .entry named '" + name + "' (the first is at line " + std::to_string(it->second) +
                         "): kernel names must be unique in a module");
      } else if (w == ".func") {
        next();
        skip_func();
      } else if (w == ".global" || w == ".const" || w == ".shared") {
        next();
        Space sp = w == ".global" ? Space::Global : w == ".const" ? Space::Const : Space::Shared;
        parse_var_decl(sp, pending_extern_, line);
      } else {
        fail(line, "unsupported directive " + show(t) + " at module scope");
      }
      pending_extern_ = false;
    }
  }

  void parse_file(uint32_t line) {
    uint64_t idx = expect_uint("a file number");
    if (peek().kind != Tok::String) fail(line, "expected a file name in .file");
    std::string name(next().text);
    while (accept(',')) expect_word("a .file attribute");
    if (idx > 100000) fail(line, ".file number out of range");
    if (mod_.files.size() <= idx) mod_.files.resize(idx + 1);
    mod_.files[idx] = std::move(name);
  }

  void skip_func() {
    // .func [(ret params)] name (params) [attributes] ; | { body }
    if (is_punct(peek(), '(')) skip_parens();
    std::string_view name = expect_word("a function name");
    funcs_.insert(name);
    if (is_punct(peek(), '(')) skip_parens();
    while (peek().kind == Tok::Word) next();
    if (is_punct(peek(), '{')) skip_braced();
    else expect(';', "after a .func declaration");
  }
  void skip_parens() {
    int depth = 0;
    do {
      const Token& t = next();
      if (t.kind == Tok::End) fail(t.line, "unterminated '('");
      if (is_punct(t, '(')) ++depth;
      if (is_punct(t, ')')) --depth;
    } while (depth > 0);
  }

  // `.global .align 4 .b8 name[16] = {...};` and friends.
  void parse_var_decl(Space space, bool is_extern, uint32_t line) {
    VarDecl v;
    v.space = space;
    v.is_extern = is_extern;
    Type elem = Type::None;
    uint32_t vec = 1;
    uint32_t explicit_align = 0;
    while (peek().kind == Tok::Word && !peek().text.empty() && peek().text[0] == '.') {
      std::string_view w = next().text;
      if (w == ".align") explicit_align = checked_align(line, expect_uint("an alignment"));
      else if (w == ".v2") vec = 2;
      else if (w == ".v4") vec = 4;
      else if (w == ".v8") vec = 8;
      else if (Type t = type_word(w); t != Type::None) elem = t;
      else fail(line, "unsupported variable attribute '" + std::string(w) + "'");
    }
    if (elem == Type::None || elem == Type::Pred) fail(line, "variable declaration without a data type");
    std::string_view name = expect_word("a variable name");
    v.name = std::string(name);
    uint64_t count = 1;
    bool unsized = false;
    while (accept('[')) {
      if (accept(']')) { unsized = true; continue; }
      count *= expect_uint("an array size");
      expect(']', "after an array size");
    }
    uint32_t esize = static_cast<uint32_t>(type_bytes(elem)) * vec;
    v.align = explicit_align ? explicit_align : esize;
    v.size = unsized ? 0 : count * esize;
    if (accept('=')) {
      if (space != Space::Global && space != Space::Const) fail(line, "only .global/.const variables may have initialisers");
      parse_initializer(v, elem, line);
      if (unsized) v.size = v.init.size();
      if (v.init.size() > v.size) fail(line, "initialiser of '" + v.name + "' is larger than the variable");
    }
    expect(';', "after a variable declaration");

    if (in_kernel_) {
      if (space == Space::Shared) {
        if (kshared_index_.count(name)) fail(line, "shared variable '" + v.name + "' declared twice");
        kshared_index_[name] = static_cast<uint32_t>(k_.shared_vars.size());
        k_.shared_vars.push_back(std::move(v));
      } else if (space == Space::Local) {
        if (klocal_index_.count(name) && inline_depth_ == 0) fail(line, "local variable '" + v.name + "' declared twice");
        uint64_t off = align_up(k_.local_bytes, v.align);
        v.offset = off;
        k_.local_bytes = static_cast<uint32_t>(align_up(off + v.size, 1));
        klocal_index_[name] = static_cast<uint32_t>(k_.local_vars.size());
        k_.local_vars.push_back(std::move(v));
      } else if (space == Space::Param) {
        // Call arguments/results (`{ .param .b64 param0; st.param ...; call ...; }`)
        // live in the per-thread local frame; calls are inlined (see inline_call).
        uint64_t off = align_up(k_.local_bytes, v.align);
        v.offset = off;
        v.space = Space::Local;
        k_.local_bytes = static_cast<uint32_t>(off + v.size);
        klocal_index_[name] = static_cast<uint32_t>(k_.local_vars.size());
        call_param_vars_.insert(static_cast<uint32_t>(k_.local_vars.size()));
        k_.local_vars.push_back(std::move(v));
      } else {
        fail(line, "a kernel may declare only .reg, .shared and .local variables");
      }
      return;
    }
    if (space == Space::Shared) {
      module_shared_index_[name] = module_shared_.size();
      module_shared_.push_back(std::move(v));
      return;
    }
    // .global and .const share the module's global segment at kGlobalBase.
    v.offset = align_up(mod_.global_segment_bytes, v.align);
    mod_.global_segment_bytes = v.offset + v.size;
    globals_index_[name] = mod_.globals.size();
    mod_.globals.push_back(std::move(v));
  }

  void parse_initializer(VarDecl& v, Type elem, uint32_t line) {
    int esize = type_bytes(elem);
    auto put = [&](const Token& t, bool neg) {
      RawOperand r;
      if (t.kind != Tok::Word || !parse_number(t.text, r))
        fail(t.line, "unsupported initialiser element " + show(t) + " in '" + v.name +
                         "' (address initialisers are not supported)");
      if (neg) negate_literal(r);
      uint64_t bits;
      if (elem == Type::F32 || elem == Type::F64) {
        double d = r.literal == detail::kLitF32Bits ? std::bit_cast<float>(static_cast<uint32_t>(r.op.imm))
                 : r.literal == detail::kLitF64Bits ? std::bit_cast<double>(static_cast<uint64_t>(r.op.imm))
                 : r.literal == detail::kLitDecimal ? r.decimal
                                                    : static_cast<double>(r.op.imm);
        bits = elem == Type::F32 ? std::bit_cast<uint32_t>(static_cast<float>(d)) : std::bit_cast<uint64_t>(d);
      } else {
        if (r.literal == detail::kLitDecimal) fail(t.line, "float literal in an integer initialiser");
        bits = static_cast<uint64_t>(r.op.imm);
      }
      for (int b = 0; b < esize; ++b) v.init.push_back(static_cast<uint8_t>(bits >> (8 * b)));
    };
    int depth = 0;
    do {
      const Token& t = next();
      if (t.kind == Tok::End) fail(line, "unterminated initialiser");
      if (is_punct(t, '{')) { ++depth; continue; }
      if (is_punct(t, '}')) { --depth; continue; }
      if (is_punct(t, ',')) continue;
      if (is_punct(t, '-')) { put(next(), true); continue; }
      put(t, false);
    } while (depth > 0);
  }

  // [KERNEL] -----------------------------------------------------------------
  void parse_entry(uint32_t line) {
    k_ = Kernel{};
    k_.name = std::string(expect_word("a kernel name"));
    k_.ptx_line = line;
    k_.locs.push_back(SourceLoc{});
    in_kernel_ = true;
    regs_.clear();
    scope_marks_.clear();
    kshared_index_.clear();
    klocal_index_.clear();
    kparam_index_.clear();
    labels_.clear();
    label_fixups_.clear();
    label_scope_.clear();
    call_param_vars_.clear();
    reg_floor_ = 0;
    inline_count_ = 0;
    inline_outer_.clear();
    cur_loc_ = SourceLoc{};
    cur_loc_index_ = 0;

    expect('(', "after the kernel name");
    uint32_t offset = 0;
    if (!accept(')')) {
      do parse_param(offset);
      while (accept(','));
      expect(')', "after the kernel parameters");
    }
    k_.param_bytes = offset;
    // Performance directives (PTX ISA 11.4).
    while (peek().kind == Tok::Word) {
      const Token& d = next();
      auto dims = [&](uint32_t* out) {
        int i = 0;
        do {
          uint64_t v = expect_uint("a dimension");
          if (i < 3) out[i++] = static_cast<uint32_t>(v);
        } while (accept(','));
      };
      if (d.text == ".maxntid") dims(k_.max_ntid);
      else if (d.text == ".reqntid") dims(k_.reqntid);
      else if (d.text == ".minnctapersm") k_.min_ctas_per_sm = static_cast<uint32_t>(expect_uint("a count"));
      else if (d.text == ".maxnreg" || d.text == ".maxnctapersm") expect_uint("a count");
      else if (d.text == ".noreturn") {}
      else if (d.text == ".pragma") skip_to_semicolon();
      else fail(d.line, "unsupported kernel directive " + show(d) +
                            " (thread-block clusters are not modelled)");
    }
    if (!is_punct(peek(), '{')) fail(peek().line, "expected '{' to open the body of kernel '" + k_.name + "'");
    parse_body();
    finish_kernel();
    in_kernel_ = false;
    mod_.kernels.push_back(std::move(k_));
  }

  void parse_param(uint32_t& offset) {
    const Token& first = peek();
    if (first.text != ".param") fail(first.line, "expected .param in the kernel parameter list, found " + show(first));
    next();
    Param p;
    bool after_ptr = false;
    uint32_t align = 0;
    uint32_t count = 1;
    while (peek().kind == Tok::Word && !peek().text.empty() && peek().text[0] == '.') {
      std::string_view w = next().text;
      if (w == ".align") {
        uint32_t a = checked_align(first.line, expect_uint("an alignment"));
        if (!after_ptr) align = a;  // after .ptr, .align is the pointee's alignment
      } else if (w == ".ptr") {
        after_ptr = true;
        p.is_pointer_hint = true;
      } else if (w == ".global" || w == ".shared" || w == ".const" || w == ".local") {
        if (!after_ptr) fail(first.line, "state space '" + std::string(w) + "' on a parameter without .ptr");
      } else if (Type t = type_word(w); t != Type::None) {
        p.type = t;
      } else {
        fail(first.line, "unsupported parameter attribute '" + std::string(w) + "'");
      }
    }
    if (p.type == Type::None || p.type == Type::Pred) fail(first.line, "parameter without a data type");
    std::string_view name = expect_word("a parameter name");
    p.name = std::string(name);
    if (accept('[')) {
      count = static_cast<uint32_t>(expect_uint("an array size"));
      expect(']', "after an array size");
    }
    uint32_t esize = static_cast<uint32_t>(type_bytes(p.type));
    p.size = esize * count;
    // PTX ISA 5.1.6.1: parameters are aligned to their natural size unless .align says otherwise.
    p.align = align ? align : esize;
    p.offset = static_cast<uint32_t>(align_up(offset, p.align));
    offset = p.offset + p.size;
    kparam_index_[name] = static_cast<uint32_t>(k_.params.size());
    k_.params.push_back(std::move(p));
  }

  void parse_body() {
    size_t outer = scope_marks_.size();
    expect('{', "to open the kernel body");
    scope_marks_.push_back(regs_.size());
    while (scope_marks_.size() > outer) {
      const Token& t = peek();
      uint32_t line = t.line;
      if (t.kind == Tok::End) fail(line, "kernel body is not closed (missing '}')");
      if (is_punct(t, '{')) {
        next();
        scope_marks_.push_back(regs_.size());
        continue;
      }
      if (is_punct(t, '}')) {
        next();
        regs_.resize(scope_marks_.back());
        scope_marks_.pop_back();
        continue;
      }
      if (is_punct(t, ';')) { next(); continue; }
      if (is_punct(t, '@')) {
        next();
        parse_instruction(line, true);
        continue;
      }
      if (t.kind != Tok::Word) fail(line, "unexpected " + show(t));
      std::string_view w = t.text;
      if (is_punct(peek(1), ':')) {
        next();
        next();
        std::string q = label_scope_ + std::string(w);
        if (labels_.count(q)) fail(line, "label '" + std::string(w) + "' defined twice");
        labels_[q] = static_cast<int32_t>(k_.code.size());
        continue;
      }
      if (w[0] == '.') {
        next();
        if (w == ".reg") parse_reg_decl(line, Type::None);
        else if (w.substr(0, 5) == ".reg.") parse_reg_decl(line, type_word(w.substr(4)));  // `.reg.b16 t;` (cuda_fp16.hpp asm)
        else if (w == ".shared") parse_var_decl(Space::Shared, false, line);
        else if (w == ".local") parse_var_decl(Space::Local, false, line);
        else if (w == ".loc") parse_loc(line);
        else if (w == ".pragma") {
          if (peek().kind == Tok::String && peek().text == "nounroll") k_.nounroll.push_back(uint32_t(k_.code.size()));
          if (peek().kind == Tok::String && peek().text.rfind("used_bytes_mask ", 0) == 0) {
            char* end = nullptr;
            const std::string digits = std::string(peek().text.substr(16));
            const unsigned long mask = std::strtoul(digits.c_str(), &end, 0);
            if (end != digits.c_str()) k_.used_bytes_masks.push_back({uint32_t(k_.code.size()), uint32_t(mask)});
          }
          skip_to_semicolon();
        } else if (w == ".param") parse_var_decl(Space::Param, false, line);
        else fail(line, "unsupported directive " + show(t) + " inside a kernel");
        continue;
      }
      parse_instruction(line, false);
    }
  }

  // [CALLS] ------------------------------------------------------------------
  // A `.func` with a body is inlined at each call: its registers get fresh
  // slots, its labels a private namespace, its `ret` becomes a jump to the
  // end of the copy, and its .param arguments/results are bound to the
  // caller's call variables in the local frame. The interpreter never sees a
  // call. (libdevice's double-precision sin/pow call such helpers.)
  void prescan_funcs() {
    int depth = 0;
    for (size_t i = 0; i < toks_.size(); ++i) {
      const Token& t = toks_[i];
      if (is_punct(t, '{')) ++depth;
      else if (is_punct(t, '}')) --depth;
      else if (depth == 0 && t.kind == Tok::Word && t.text == ".func") {
        size_t save = pos_;
        pos_ = i + 1;
        FuncDef f;
        if (is_punct(peek(), '(')) f.rets = param_names();
        if (peek().kind == Tok::Word) {
          std::string_view name = next().text;
          if (is_punct(peek(), '(')) f.params = param_names();
          while (peek().kind == Tok::Word) next();
          if (is_punct(peek(), '{')) f.body = pos_;
          auto it = func_defs_.find(name);
          if (it == func_defs_.end() || f.body) func_defs_[name] = f;
        }
        pos_ = save;
      }
    }
  }
  std::vector<std::string_view> param_names() {  // at '(' of `(.param .b64 a, .param .align 8 .b8 b[16])`
    std::vector<std::string_view> names;
    next();
    while (!accept(')')) {
      const Token& t = next();
      if (t.kind == Tok::End) fail(t.line, "unterminated parameter list");
      if (t.kind == Tok::Word && t.text[0] != '.' && !(t.text[0] >= '0' && t.text[0] <= '9')) names.push_back(t.text);
    }
    return names;
  }
  std::vector<std::string_view> call_list(uint32_t line) {  // at '(' of `(param0, param1)`
    std::vector<std::string_view> names;
    next();
    if (accept(')')) return names;
    do names.push_back(expect_word("a call argument"));
    while (accept(','));
    expect(')', "to close a call's argument list");
    (void)line;
    return names;
  }

  void inline_call(uint32_t line) {
    std::vector<std::string_view> rets, args;
    if (is_punct(peek(), '(')) {
      rets = call_list(line);
      expect(',', "after a call's return list");
    }
    std::string_view callee = expect_word("a function name");
    if (accept(',')) {
      if (!is_punct(peek(), '(')) fail(line, "indirect calls (call through a register) are not supported", "call");
      args = call_list(line);
    }
    if (accept(',')) fail(line, "indirect calls with a prototype are not supported", "call");
    expect(';', "after a call");
    auto it = func_defs_.find(callee);
    if ((it == func_defs_.end() || it->second.body == 0) && device_runtime_call(callee) != DeviceCall::None) {
      emit_runtime_call(line, callee, rets, args);
      return;
    }
    if (it == func_defs_.end() || it->second.body == 0) fail_call(line, std::string(callee));
    const FuncDef& f = it->second;
    for (std::string_view active : inline_stack_)
      if (active == callee) fail(line, "recursive call to '" + std::string(callee) + "' is not supported", "call");
    if (rets.size() != f.rets.size() || args.size() != f.params.size())
      fail(line, "call to '" + std::string(callee) + "' with the wrong number of arguments", "call");
    if (k_.code.size() > 2'000'000) fail(line, "inlining calls makes the kernel too large", "call");
    std::vector<std::pair<std::string_view, int64_t>> saved;  // -1 = was absent
    auto bind = [&](std::string_view callee_name, std::string_view caller_var) {
      auto a = klocal_index_.find(caller_var);
      if (a == klocal_index_.end() || !call_param_vars_.count(a->second))
        fail(line, "call argument '" + std::string(caller_var) + "' is not a declared .param", "call");
      uint32_t idx = a->second;
      auto old = klocal_index_.find(callee_name);
      saved.push_back({callee_name, old == klocal_index_.end() ? -1 : int64_t(old->second)});
      klocal_index_[callee_name] = idx;
    };
    for (size_t i = 0; i < args.size(); ++i) bind(f.params[i], args[i]);
    for (size_t i = 0; i < rets.size(); ++i) bind(f.rets[i], rets[i]);

    size_t save_pos = pos_;
    std::string save_scope = label_scope_;
    size_t save_floor = reg_floor_;
    label_scope_ = "#" + std::to_string(++inline_count_) + "/";
    inline_stack_.push_back(callee);
    inline_call_loc_.push_back(cur_loc_);  // the call's own line, restored after the body
    ++inline_depth_;
    reg_floor_ = regs_.size();  // the callee sees only its own registers
    pos_ = f.body;
    parse_body();
    labels_[label_scope_ + "#end"] = static_cast<int32_t>(k_.code.size());
    --inline_depth_;
    inline_stack_.pop_back();
    if (cur_loc_.line != inline_call_loc_.back().line || cur_loc_.inner_line != inline_call_loc_.back().inner_line) {
      cur_loc_ = inline_call_loc_.back();
      loc_dirty_ = true;
    }
    inline_call_loc_.pop_back();
    reg_floor_ = save_floor;
    label_scope_ = save_scope;
    pos_ = save_pos;
    for (auto r = saved.rbegin(); r != saved.rend(); ++r) {
      if (r->second < 0) klocal_index_.erase(r->first);
      else klocal_index_[r->first] = static_cast<uint32_t>(r->second);
    }
  }

  // vprintf (printf) and __assertfail (assert) are the CUDA device runtime's,
  // not PTX the module defines: they stay one `call` instruction whose
  // operands are the local-frame offsets of the call's .param variables
  // (ops[0] the result or None, ops[1..] the arguments; Instr::mode says which,
  // ptx::DeviceCall). lab/sim/exec_call.cpp runs them.
  static ptx::DeviceCall device_runtime_call(std::string_view callee) {
    if (callee == "vprintf") return DeviceCall::Vprintf;
    if (callee == "__assertfail") return DeviceCall::Assertfail;
    return DeviceCall::None;
  }
  void emit_runtime_call(uint32_t line, std::string_view callee, const std::vector<std::string_view>& rets,
                         const std::vector<std::string_view>& args) {
    DeviceCall which = device_runtime_call(callee);
    size_t want = which == DeviceCall::Vprintf ? 2 : 5;
    if (args.size() != want || rets.size() > 1 || size_t(1) + args.size() > size_t(kMaxOperands))
      fail(line, "call to '" + std::string(callee) + "' with the wrong number of arguments", "call");
    Instr in;
    in.op = Op::Call;
    in.mode = uint8_t(which);
    in.ptx_line = line;
    auto frame_addr = [&](std::string_view var) {
      auto a = klocal_index_.find(var);
      if (a == klocal_index_.end() || !call_param_vars_.count(a->second))
        fail(line, "call to '" + std::string(callee) + "': argument '" + std::string(var) + "' is not a declared .param", "call");
      Operand o;
      o.kind = OperandKind::Addr;
      o.space = Space::Local;
      o.imm = static_cast<int64_t>(k_.local_vars[a->second].offset);
      return o;
    };
    if (!rets.empty()) in.ops[0] = frame_addr(rets[0]);
    for (size_t i = 0; i < args.size(); ++i) in.ops[1 + i] = frame_addr(args[i]);
    in.num_ops = uint8_t(1 + args.size());
    if (loc_dirty_) {
      const SourceLoc& last = k_.locs.back();
      if (k_.locs.size() == 1 || !last.same(cur_loc_)) k_.locs.push_back(cur_loc_);
      cur_loc_index_ = static_cast<uint32_t>(k_.locs.size() - 1);
      loc_dirty_ = false;
    }
    in.loc = cur_loc_index_;
    k_.code.push_back(in);
  }

  [[noreturn]] void fail_call(uint32_t line, const std::string& callee) {
    std::string what = callee.empty() ? std::string("calls a device function")
                                      : "calls the device function '" + callee + "'";
    if (callee == "vprintf")
      what += " (printf); the lab's simulator does not support printf: remove it";
    else if (callee == "__assertfail")
      what += " (assert); the lab's simulator does not support assert: remove it";
    else if (callee == "malloc" || callee == "free")
      what += "; device-side malloc/free is not supported";
    else
      what += ", which was not inlined; the lab's simulator does not support calls: mark it __forceinline__";
    fail(line, what, "call");
  }

  void parse_reg_decl(uint32_t line, Type type) {
    while (peek().kind == Tok::Word && !peek().text.empty() && peek().text[0] == '.') {
      std::string_view w = next().text;
      Type t = type_word(w);
      if (t == Type::None) fail(line, "unsupported register attribute '" + std::string(w) + "' (vector registers are not supported)");
      type = t;
    }
    if (type == Type::None) fail(line, ".reg without a type");
    do {
      std::string_view name = expect_word("a register name");
      RegEntry e;
      e.name = name;
      e.type = type;
      if (accept('<')) {
        e.range = true;
        const uint64_t n = expect_uint("a register count");
        // Checked before anything is allocated: the interpreter keeps every
        // declared register for all 32 lanes of every warp.
        if (n > kMaxRegsPerDecl || k_.num_slots + n > kMaxRegSlots)
          fail(line, "declares " + std::to_string(n) + " registers '" + std::string(name) + "<N>'; the lab's limit is " +
                         std::to_string(kMaxRegSlots) + " per kernel (compiled kernels declare thousands at most)");
        e.count = static_cast<uint32_t>(n);
        expect('>', "after a register count");
      }
      e.first_slot = k_.num_slots;
      k_.num_slots += e.count;
      k_.regs.push_back(RegDecl{std::string(name), type, e.count, e.first_slot});
      regs_.push_back(e);
    } while (accept(','));
    expect(';', "after a .reg declaration");
  }

  // `.loc file line col[, function_name X, inlined_at file line col]`.
  // The recorded location is the outermost call site: that is the line the
  // student wrote (module.h, SourceLoc).
  void parse_loc(uint32_t line) {
    SourceLoc here;
    here.file = static_cast<uint32_t>(expect_uint("a file number"));
    here.line = static_cast<uint32_t>(expect_uint("a line number"));
    here.column = static_cast<uint32_t>(expect_uint("a column number"));
    SourceLoc result = here;
    while (peek().line == line && accept(',')) {
      std::string_view key = expect_word("a .loc attribute");
      if (key == "inlined_at") {
        SourceLoc at;
        at.file = static_cast<uint32_t>(expect_uint("a file number"));
        at.line = static_cast<uint32_t>(expect_uint("a line number"));
        at.column = static_cast<uint32_t>(expect_uint("a column number"));
        auto it = inline_outer_.find(loc_key(at));
        SourceLoc outer = it == inline_outer_.end() ? at : it->second;
        inline_outer_[loc_key(here)] = outer;
        result = outer;
        result.inner_file = here.file;
        result.inner_line = here.line;
      } else {
        if (peek().line == line && peek().kind == Tok::Word) next();  // function_name $L__info_stringN
      }
    }
    skip_line(line);
    if (inline_depth_ > 0) {
      // A called function the parser inlines: the outermost call site's
      // line, with this statement's own line inside the function beside it.
      SourceLoc site = inline_call_loc_.front();
      if (site.line) {
        site.inner_file = result.inner_line ? result.inner_file : here.file;
        site.inner_line = result.inner_line ? result.inner_line : here.line;
      }
      cur_loc_ = site;
      loc_dirty_ = true;
      return;
    }
    cur_loc_ = result;
    loc_dirty_ = true;
  }
  static uint64_t loc_key(const SourceLoc& l) {
    return (uint64_t(l.file & 0xffff) << 48) | (uint64_t(l.line) << 16) | (l.column & 0xffff);
  }

  // [OPERANDS] ---------------------------------------------------------------
  const RegEntry* find_reg(std::string_view name, uint32_t* slot) const {
    size_t d = name.size();
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') --d;
    std::string_view prefix = name.substr(0, d);
    bool has_num = d < name.size() && d > 0;
    uint64_t num = 0;
    if (has_num) {
      if (name.size() - d > 9) has_num = false;
      for (size_t i = d; i < name.size(); ++i) num = num * 10 + (name[i] - '0');
      if (name.size() - d > 1 && name[d] == '0') has_num = false;  // %r01 is not %r1
    }
    for (size_t i = regs_.size(); i-- > reg_floor_;) {
      const RegEntry& e = regs_[i];
      if (e.range) {
        if (has_num && e.name == prefix && num < e.count) {
          *slot = e.first_slot + static_cast<uint32_t>(num);
          return &e;
        }
      } else if (e.name == name) {
        *slot = e.first_slot;
        return &e;
      }
    }
    return nullptr;
  }

  // A word used as a value: register, special register, number, symbol.
  RawOperand resolve_word(const Token& t) {
    RawOperand r;
    std::string_view w = t.text;
    if (parse_number(w, r)) return r;
    if (w[0] >= '0' && w[0] <= '9') fail(t.line, "malformed number '" + std::string(w) + "'");
    uint32_t slot;
    if (find_reg(w, &slot)) {
      r.op.kind = OperandKind::Reg;
      r.op.reg = slot;
      return r;
    }
    if (w[0] == '%') {
      auto it = special_registers().find(w);
      if (it != special_registers().end()) {
        r.op.kind = OperandKind::Special;
        r.op.reg = static_cast<uint32_t>(it->second);
        return r;
      }
      if (w.rfind("%cluster", 0) == 0 || w.rfind("%is_explicit_cluster", 0) == 0)
        fail(t.line, "special register '" + std::string(w) + "' is not supported (clusters are not modelled)");
      fail(t.line, "undeclared register '" + std::string(w) + "'");
    }
    if (w == "_") {
      r.op.kind = OperandKind::Reg;
      r.op.reg = kSinkReg;
      return r;
    }
    if (w == "WARP_SZ") {  // PTX ISA 5.4: the warp size constant
      r.op.kind = OperandKind::Imm;
      r.op.imm = 32;
      return r;
    }
    if (symbol(w, t.line, r.op)) return r;
    if (funcs_.count(w)) fail(t.line, "function pointers ('" + std::string(w) + "') are not supported");
    fail(t.line, "unknown symbol '" + std::string(w) + "' (not a declared register, variable or parameter)");
  }

  // Variable name -> Symbol operand (address of the variable in its space).
  bool symbol(std::string_view w, uint32_t line, Operand& o) {
    if (auto it = kshared_index_.find(w); it != kshared_index_.end()) {
      o.kind = OperandKind::Symbol;
      o.space = Space::Shared;
      o.reg = detail::kSharedSymbolBase + it->second;
      o.imm = 0;
      return true;
    }
    if (auto it = module_shared_index_.find(w); it != module_shared_index_.end()) {
      // A module-scope .shared variable: each kernel that uses it gets it in
      // its own shared window.
      uint32_t idx = static_cast<uint32_t>(k_.shared_vars.size());
      k_.shared_vars.push_back(module_shared_[it->second]);
      kshared_index_[w] = idx;
      o.kind = OperandKind::Symbol;
      o.space = Space::Shared;
      o.reg = detail::kSharedSymbolBase + idx;
      o.imm = 0;
      return true;
    }
    if (auto it = klocal_index_.find(w); it != klocal_index_.end()) {
      o.kind = OperandKind::Symbol;
      o.space = Space::Local;
      o.reg = detail::kLocalSymbolBase + it->second;
      o.imm = 0;
      return true;
    }
    if (auto it = kparam_index_.find(w); it != kparam_index_.end()) {
      o.kind = OperandKind::Symbol;
      o.space = Space::Param;
      o.reg = kNoReg;
      o.imm = k_.params[it->second].offset;
      return true;
    }
    if (auto it = globals_index_.find(w); it != globals_index_.end()) {
      const VarDecl& g = mod_.globals[it->second];
      o.kind = OperandKind::Symbol;
      o.space = g.space == Space::Const ? Space::Const : Space::Global;
      o.reg = kNoReg;
      o.imm = static_cast<int64_t>(kGlobalBase + g.offset);
      return true;
    }
    (void)line;
    return false;
  }

  RawOperand parse_address() {
    const Token& open = next();  // '['
    RawOperand r;
    r.op.kind = OperandKind::Addr;
    r.op.reg = kNoReg;
    const Token& base = peek();
    if (base.kind != Tok::Word) fail(open.line, "expected a register, variable or number inside [...]");
    next();
    RawOperand b = resolve_word(base);
    switch (b.op.kind) {
      case OperandKind::Reg: r.op.reg = b.op.reg; break;
      case OperandKind::Imm:
        if (b.literal != detail::kLitInt) fail(open.line, "float literal used as an address");
        r.op.imm = b.op.imm;
        break;
      case OperandKind::Symbol:
        r.op.reg = b.op.reg;
        r.op.imm = b.op.imm;
        r.op.space = b.op.space;
        break;
      default: fail(open.line, "'" + std::string(base.text) + "' cannot be used as an address");
    }
    if (is_punct(peek(), '+') || is_punct(peek(), '-')) {
      bool neg = next().punct == '-';
      if (accept('-')) neg = !neg;
      const Token& off = peek();
      RawOperand o;
      if (off.kind != Tok::Word || !parse_number(off.text, o) || o.literal != detail::kLitInt)
        fail(off.line, "expected an integer offset in [...], found " + show(off));
      next();
      r.op.imm += neg ? -o.op.imm : o.op.imm;
    }
    // `[tensorMap, {c0, c1}]` (cp.async.bulk.tensor): the coordinates become
    // the operand after the address (the instruction loop takes them from here).
    if (accept(',')) {
      if (!is_punct(peek(), '{')) fail(open.line, "expected {coordinates} after ',' inside [...]");
      address_vector_ = parse_vector(open.line);
      has_address_vector_ = true;
    }
    expect(']', "to close an address");
    return r;
  }

  RawOperand parse_vector(uint32_t line) {
    next();  // '{'
    RawOperand r;
    r.op.kind = OperandKind::Vec;
    r.op.reg = static_cast<uint32_t>(k_.vec_slots.size());
    uint32_t n = 0;
    do {
      const Token& t = peek();
      bool neg = false;
      if (is_punct(t, '-')) { next(); neg = true; }
      const Token& e = peek();
      if (e.kind != Tok::Word) fail(line, "expected a register in {...}, found " + show(e));
      next();
      RawOperand v = resolve_word(e);
      if (neg) {
        if (v.op.kind != OperandKind::Imm) fail(line, "'-' before a register");
        negate_literal(v);
      }
      if (v.op.kind == OperandKind::Reg) {
        k_.vec_slots.push_back(v.op.reg);
      } else if (v.op.kind == OperandKind::Imm) {
        // `mov.b32 %f1, {0, %rs1}` (cuda_bf16.hpp): a constant element gets a
        // hidden register, filled by a mov emitted before the instruction.
        uint32_t slot = k_.num_slots++;
        k_.regs.push_back(RegDecl{"%lab_const", Type::B64, 1, slot});
        k_.vec_slots.push_back(slot);
        pending_consts_.push_back({slot, v});
      } else {
        fail(line, "vector elements must be registers or constants");
      }
      ++n;
    } while (accept(','));
    expect('}', "to close a vector operand");
    if (n > 255) fail(line, "vector operand too long");
    r.op.vec_len = static_cast<uint8_t>(n);
    return r;
  }

  RawOperand parse_operand(uint32_t line, bool label_context) {
    const Token& t = peek();
    if (is_punct(t, '[')) return parse_address();
    if (is_punct(t, '{')) return parse_vector(line);
    if (is_punct(t, '!')) {
      next();
      const Token& p = peek();
      if (p.kind != Tok::Word) fail(line, "expected a predicate after '!'");
      next();
      RawOperand r = resolve_word(p);
      if (r.op.kind != OperandKind::Reg) fail(line, "'!' must precede a predicate register");
      r.op.negate = true;
      return r;
    }
    if (is_punct(t, '-')) {
      next();
      const Token& n = peek();
      RawOperand r;
      if (n.kind != Tok::Word || !parse_number(n.text, r)) fail(line, "expected a number after '-'");
      next();
      negate_literal(r);
      return r;
    }
    if (t.kind != Tok::Word) fail(line, "expected an operand, found " + show(t));
    next();
    if (label_context) {
      RawOperand r;
      r.op.kind = OperandKind::Label;
      label_fixups_.push_back({0, label_scope_ + std::string(t.text), line});  // index set by the caller
      return r;
    }
    return resolve_word(t);
  }

  void parse_instruction(uint32_t line, bool guarded) {
    Instr in;
    in.ptx_line = line;
    if (guarded) {
      bool neg = accept('!');
      const Token& p = peek();
      if (p.kind != Tok::Word) fail(line, "expected a predicate after '@'");
      next();
      uint32_t slot;
      const RegEntry* e = find_reg(p.text, &slot);
      if (!e) fail(line, "undeclared predicate register '" + std::string(p.text) + "'");
      if (e->type != Type::Pred) fail(line, "guard '" + std::string(p.text) + "' is not a .pred register");
      in.guard = slot;
      in.guard_negated = neg;
    }
    const Token& opt = peek();
    if (opt.kind != Tok::Word || opt.text[0] == '.') fail(line, "expected an instruction, found " + show(opt));
    next();
    std::string_view opcode = opt.text;
    std::string_view base = opcode.substr(0, opcode.find('.'));
    if (base == "call") {
      if (in.guard != kNoReg) fail(line, "predicated calls are not supported", opcode);
      inline_call(line);
      return;
    }
    if (const char* why = detail::unsupported_family(opcode))
      fail(line, "unsupported instruction '" + std::string(opcode) + "' (" + why + ")", opcode);
    bool label_context = base == "bra";
    size_t fixups_before = label_fixups_.size();
    raw_.clear();
    pending_consts_.clear();
    if (!accept(';')) {
      for (;;) {
        raw_.push_back(parse_operand(line, label_context));
        if (has_address_vector_) {
          raw_.push_back(address_vector_);
          has_address_vector_ = false;
        }
        if (accept('|')) {
          raw_.push_back(parse_operand(line, label_context));
          raw_.back().pipe = true;
        }
        if (accept(',')) continue;
        if (accept(';')) break;
        fail(line, "expected ',' or ';' after an operand of '" + std::string(opcode) + "', found " + show(peek()), opcode);
      }
    }
    if (inline_depth_ > 0 && (base == "ret")) {
      // `ret` of an inlined function: jump to the end of its body.
      in.op = Op::Bra;
      in.ops[0].kind = OperandKind::Label;
      in.num_ops = 1;
      label_fixups_.push_back({0, label_scope_ + "#end", line});
      fixups_before = label_fixups_.size() - 1;
      if (!raw_.empty()) fail(line, "'ret' takes no operands", opcode);
      goto decoded;
    }
    try {
      detail::decode_instruction(opcode, raw_, in);
    } catch (const detail::DecodeError& e) {
      fail(line, e.message, opcode);
    }
    check_arch(line, in, opcode);
  decoded:
    // st.param/ld.param on a call argument: that variable lives in the local frame.
    if (in.space == Space::Param) {
      for (int i = 0; i < in.num_ops; ++i)
        if (in.ops[i].kind == OperandKind::Addr && detail::is_pending_local(in.ops[i].reg)) in.space = Space::Local;
    }
    // Symbols: local offsets are known now; shared ones wait for the layout.
    for (int i = 0; i < in.num_ops; ++i) {
      Operand& o = in.ops[i];
      if (o.kind != OperandKind::Addr && o.kind != OperandKind::Symbol) continue;
      bool generic_addr = o.kind == OperandKind::Addr && in.space == Space::Generic;
      if (detail::is_pending_local(o.reg)) {
        o.imm += static_cast<int64_t>(k_.local_vars[o.reg - detail::kLocalSymbolBase].offset);
        if (generic_addr) o.imm += static_cast<int64_t>(kLocalWindow);
        o.reg = kNoReg;
      } else if (detail::is_pending_shared(o.reg)) {
        if (generic_addr) o.imm += static_cast<int64_t>(kSharedWindow);
      }
      if (o.kind == OperandKind::Addr) o.space = Space::Generic;
    }
    if (loc_dirty_) {
      const SourceLoc& last = k_.locs.back();
      if (k_.locs.size() == 1 || !last.same(cur_loc_)) k_.locs.push_back(cur_loc_);
      cur_loc_index_ = static_cast<uint32_t>(k_.locs.size() - 1);
      loc_dirty_ = false;
    }
    in.loc = cur_loc_index_;
    for (const auto& [slot, value] : pending_consts_) {
      Instr mv;
      mv.op = Op::Mov;
      int bytes = in.op == Op::Mov ? type_bytes(in.type) / std::max<int>(1, vec_len_of_const(in, slot)) : type_bytes(in.type);
      mv.type = bytes <= 2 ? Type::B16 : bytes == 8 ? Type::B64 : Type::B32;
      mv.ops[0].kind = OperandKind::Reg;
      mv.ops[0].reg = slot;
      mv.ops[1] = value.op;
      mv.num_ops = 2;
      mv.ptx_line = line;
      mv.loc = in.loc;
      k_.code.push_back(mv);
    }
    for (size_t f = fixups_before; f < label_fixups_.size(); ++f)
      label_fixups_[f].instr = static_cast<uint32_t>(k_.code.size());
    k_.code.push_back(in);
  }
  uint32_t vec_len_of_const(const Instr& in, uint32_t slot) const {
    for (int i = 0; i < in.num_ops; ++i) {
      const Operand& o = in.ops[i];
      if (o.kind != OperandKind::Vec) continue;
      for (uint32_t j = 0; j < o.vec_len; ++j)
        if (k_.vec_slots[o.reg + j] == slot) return o.vec_len;
    }
    return 1;
  }

  // [FINISH] -----------------------------------------------------------------
  void finish_kernel() {
    // Shared layout: static variables in declaration order with their
    // alignment, then every `extern .shared` array at the aligned end
    // (dynamic shared memory starts after static shared, CUDA C++
    // Programming Guide, "Shared Memory").
    uint64_t off = 0;
    uint32_t dyn_align = 16;
    for (VarDecl& v : k_.shared_vars) {
      if (v.is_extern) {
        dyn_align = std::max(dyn_align, v.align);
        continue;
      }
      off = align_up(off, v.align);
      v.offset = off;
      off += v.size;
    }
    k_.static_shared_bytes = static_cast<uint32_t>(off);
    k_.dynamic_shared_offset = static_cast<uint32_t>(align_up(off, dyn_align));
    for (VarDecl& v : k_.shared_vars)
      if (v.is_extern) v.offset = k_.dynamic_shared_offset;
    for (Instr& in : k_.code) {
      for (int i = 0; i < in.num_ops; ++i) {
        Operand& o = in.ops[i];
        if ((o.kind == OperandKind::Addr || o.kind == OperandKind::Symbol) && detail::is_pending_shared(o.reg)) {
          o.imm += static_cast<int64_t>(k_.shared_vars[o.reg - detail::kSharedSymbolBase].offset);
          o.reg = kNoReg;
        }
      }
    }
    // Labels.
    k_.labels.assign(k_.code.size(), std::string());
    for (const auto& [name, idx] : labels_)
      if (idx >= 0 && static_cast<size_t>(idx) < k_.code.size() && (k_.labels[idx].empty() || name[0] != '#'))
        k_.labels[idx] = name;
    for (const auto& f : label_fixups_) {
      auto it = labels_.find(f.name);
      if (it == labels_.end()) {
        std::string shown = f.name[0] == '#' ? f.name.substr(f.name.find('/') + 1) : f.name;
        fail(f.line, "unknown label '" + shown + "'", "bra");
      }
      Instr& in = k_.code[f.instr];
      in.target = it->second;
      in.ops[0].imm = it->second;
    }
    // Pointer hints: a 64-bit parameter whose register is converted with
    // cvta.to.global or used as an address.
    std::unordered_map<uint32_t, uint32_t> param_of_slot;
    for (const Instr& in : k_.code) {
      if (in.op == Op::Ld && in.space == Space::Param && in.ops[0].kind == OperandKind::Reg &&
          in.ops[1].reg == kNoReg && type_bytes(in.type) == 8) {
        for (uint32_t p = 0; p < k_.params.size(); ++p)
          if (k_.params[p].offset == in.ops[1].imm && k_.params[p].size == 8) param_of_slot[in.ops[0].reg] = p;
        continue;
      }
      uint32_t used = kNoReg;
      if (in.op == Op::Cvta && in.cvta_to && in.space == Space::Global && in.ops[1].kind == OperandKind::Reg) used = in.ops[1].reg;
      for (int i = 0; i < in.num_ops && used == kNoReg; ++i)
        if (in.ops[i].kind == OperandKind::Addr && in.space != Space::Param) used = in.ops[i].reg;
      if (used == kNoReg) continue;
      if (auto it = param_of_slot.find(used); it != param_of_slot.end()) k_.params[it->second].is_pointer_hint = true;
    }
  }

  struct LabelFixup {
    uint32_t instr;
    std::string name;  // qualified
    uint32_t line;
  };
  // A .func with a body, found by a pre-scan so calls may precede it.
  struct FuncDef {
    std::vector<std::string_view> rets, params;  // names of return/argument .params
    size_t body = 0;                               // token index of '{', 0 = no body
  };

  std::string origin_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  Module mod_;
  bool pending_extern_ = false;
  std::unordered_map<std::string_view, size_t> globals_index_;
  std::vector<VarDecl> module_shared_;
  std::unordered_map<std::string_view, size_t> module_shared_index_;
  std::unordered_set<std::string_view> funcs_;
  std::unordered_map<std::string_view, FuncDef> func_defs_;
  std::vector<std::string_view> inline_stack_;
  int inline_depth_ = 0;
  std::vector<SourceLoc> inline_call_loc_;  // per inlined call: where it was called
  uint32_t inline_count_ = 0;
  size_t reg_floor_ = 0;                    // regs_ below this are invisible (caller's, while inlining)
  std::unordered_set<uint32_t> call_param_vars_;  // local_vars that hold call arguments/results

  // Kernel being parsed.
  bool in_kernel_ = false;
  Kernel k_;
  std::vector<RegEntry> regs_;        // visible declarations, innermost last
  std::vector<size_t> scope_marks_;   // regs_.size() at each open '{'
  std::unordered_map<std::string_view, uint32_t> kshared_index_, klocal_index_, kparam_index_;
  RawOperand address_vector_;  // the {coordinates} of the last `[map, {...}]` address
  bool has_address_vector_ = false;
  std::unordered_map<std::string, int32_t> labels_;  // qualified by label_scope_
  std::string label_scope_;            // "" in the kernel, "#N/" inside inlined call N
  std::vector<LabelFixup> label_fixups_;
  std::unordered_map<uint64_t, SourceLoc> inline_outer_;
  SourceLoc cur_loc_;
  uint32_t cur_loc_index_ = 0;
  bool loc_dirty_ = false;
  std::vector<RawOperand> raw_;
  std::vector<std::pair<uint32_t, RawOperand>> pending_consts_;
};

}  // namespace

Module parse(std::string_view ptx_text, std::string_view origin_name) {
  Parser p(ptx_text, origin_name);
  return p.run();
}

}  // namespace lab::ptx
