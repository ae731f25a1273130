// lab/ptx/decode.cpp: instruction families -> Instr fields and operand layout.
//
// Modifiers are classified in two steps: the ones every family shares (types,
// rounding, .ftz/.sat, state spaces, vector width, cache and memory-order
// hints) first, then the family's own words. A word neither step knows is an
// error, so a modifier that would change results is never dropped silently.
#include "lab/ptx/decode.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace lab::ptx::detail {
namespace {

[[noreturn]] void fail(std::string msg) { throw DecodeError{std::move(msg)}; }

struct Mods {
  Type types[4] = {};
  int ntypes = 0;
  Space spaces[2] = {};
  int nspaces = 0;
  Round round = Round::None;
  uint32_t flags = 0;
  uint8_t vec = 1;
  bool cache_hint_operand = false;  // .L2::cache_hint adds a trailing operand
  std::vector<std::string_view> rest;  // family-specific words, in order
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

Mods classify(std::string_view opcode, std::string_view* base) {
  Mods m;
  size_t dot = opcode.find('.');
  *base = opcode.substr(0, dot);
  while (dot != std::string_view::npos) {
    size_t next = opcode.find('.', dot + 1);
    std::string_view w = opcode.substr(dot + 1, next == std::string_view::npos ? next : next - dot - 1);
    dot = next;
    if (Type t = type_from_name(w); t != Type::None) {
      if (m.ntypes == 4) fail("too many type modifiers");
      m.types[m.ntypes++] = t;
      continue;
    }
    static const struct { std::string_view name; Round r; } kRound[] = {
        {"rn", Round::Rn},   {"rz", Round::Rz},   {"rm", Round::Rm},   {"rp", Round::Rp},
        {"rni", Round::Rni}, {"rzi", Round::Rzi}, {"rmi", Round::Rmi}, {"rpi", Round::Rpi},
        {"rna", Round::Rna},
    };
    bool done = false;
    for (const auto& r : kRound)
      if (w == r.name) { m.round = r.r; done = true; }
    if (done) continue;
    static const struct { std::string_view name; uint32_t f; } kFlags[] = {
        {"ftz", kFlagFtz},       {"sat", kFlagSat},   {"approx", kFlagApprox}, {"full", kFlagFull},
        {"nc", kFlagNc},         {"uni", kFlagUni},   {"volatile", kFlagVolatile | kFlagStrong},
        {"aligned", kFlagAligned}, {"relu", kFlagRelu}, {"cc", kFlagCarryOut}, {"NaN", kFlagNaN},
        {"cg", kFlagCacheGlobal},
    };
    for (const auto& f : kFlags)
      if (w == f.name) { m.flags |= f.f; done = true; }
    if (done) continue;
    Space sp = Space::Generic;
    if (w == "global") sp = Space::Global;
    else if (w == "shared" || w == "shared::cta") sp = Space::Shared;
    else if (w == "shared::cluster") sp = Space::SharedCluster;
    else if (w == "local") sp = Space::Local;
    else if (w == "param" || w == "param::entry") sp = Space::Param;
    else if (w == "const") sp = Space::Const;
    if (sp != Space::Generic) {
      if (m.nspaces == 2) fail("too many state spaces");
      m.spaces[m.nspaces++] = sp;
      continue;
    }
    if (w == "v2") { m.vec = 2; continue; }
    if (w == "v4") { m.vec = 4; continue; }
    if (w == "v8") { m.vec = 8; continue; }
    if (w == "L2::cache_hint") { m.cache_hint_operand = true; continue; }
    // Cache operators, eviction hints, memory-order semantics and scopes do
    // not change the values an instruction computes in a simulator that runs
    // one warp instruction at a time (PTX ISA 8.x sections 9.7.9.1, 8).
    // The memory-order words are kept as flags for the checks (kFlagStrong).
    if (w == "relaxed") m.flags |= kFlagStrong;
    if (w == "acquire") m.flags |= kFlagStrong | kFlagAcquire;
    if (w == "release") m.flags |= kFlagStrong | kFlagRelease;
    if (w == "acq_rel" || w == "sc") m.flags |= kFlagStrong | kFlagAcquire | kFlagRelease;
    if (w == "ca" || w == "cg" || w == "cs" || w == "lu" || w == "cv" || w == "wb" || w == "wt" ||
        starts_with(w, "L1::") || starts_with(w, "L2::") || starts_with(w, "level::") ||
        w == "relaxed" || w == "acquire" || w == "release" || w == "acq_rel" || w == "sc" ||
        w == "weak" || w == "mmio" || w == "cta" || w == "gpu" || w == "sys" || w == "cluster" ||
        w == "noftz" || w == "sync" || w == "unified") {
      continue;
    }
    m.rest.push_back(w);
  }
  return m;
}

// Family-specific word lookup helpers.
bool take(Mods& m, std::string_view w) {
  for (size_t i = 0; i < m.rest.size(); ++i)
    if (m.rest[i] == w) { m.rest.erase(m.rest.begin() + i); return true; }
  return false;
}
void no_rest(const Mods& m, std::string_view opcode) {
  if (!m.rest.empty())
    fail("unsupported modifier '." + std::string(m.rest.front()) + "' in '" + std::string(opcode) + "'");
}
Space one_space(const Mods& m) {
  if (m.nspaces > 1) fail("more than one state space");
  return m.nspaces ? m.spaces[0] : Space::Generic;
}

void check_count(const std::vector<RawOperand>& raw, size_t lo, size_t hi, std::string_view opcode) {
  if (raw.size() < lo || raw.size() > hi) {
    std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
    fail("'" + std::string(opcode) + "' takes " + want + " operands, found " + std::to_string(raw.size()));
  }
  for (size_t i = 0; i < raw.size(); ++i)
    if (raw[i].pipe) fail("'" + std::string(opcode) + "' has no second destination (`a|b`)");
}

void copy_ops(Instr& in, const std::vector<RawOperand>& raw, size_t from = 0, int at = 0) {
  for (size_t i = from; i < raw.size(); ++i) in.ops[at++] = raw[i].op;
  in.num_ops = static_cast<uint8_t>(at);
}

// Immediates: ints stay as written; float literals become the bit pattern of
// the operand's type (PTX ISA 4.5.1: 0f is f32 bits, 0d f64 bits, decimal
// floats are f64 values).
int64_t float_imm(const RawOperand& r, Type ctx) {
  if (r.literal == kLitInt) return r.op.imm;
  double v;
  if (r.literal == kLitF32Bits) v = std::bit_cast<float>(static_cast<uint32_t>(r.op.imm));
  else if (r.literal == kLitF64Bits) v = std::bit_cast<double>(static_cast<uint64_t>(r.op.imm));
  else v = r.decimal;
  if (ctx == Type::F64 || type_bytes(ctx) == 8) {
    if (r.literal == kLitF64Bits) return r.op.imm;
    return static_cast<int64_t>(std::bit_cast<uint64_t>(v));
  }
  if (r.literal == kLitF32Bits) return r.op.imm;
  return static_cast<int64_t>(std::bit_cast<uint32_t>(static_cast<float>(v)));
}

Cmp cmp_from(std::string_view w) {
  static const struct { std::string_view name; Cmp c; } kCmp[] = {
      {"eq", Cmp::Eq},   {"ne", Cmp::Ne},   {"lt", Cmp::Lt},   {"le", Cmp::Le},   {"gt", Cmp::Gt},
      {"ge", Cmp::Ge},   {"lo", Cmp::Lo},   {"ls", Cmp::Ls},   {"hi", Cmp::Hi},   {"hs", Cmp::Hs},
      {"equ", Cmp::Equ}, {"neu", Cmp::Neu}, {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu},
      {"geu", Cmp::Geu}, {"num", Cmp::Num}, {"nan", Cmp::Nan},
  };
  for (const auto& e : kCmp)
    if (w == e.name) return e.c;
  return Cmp::None;
}

void take_cmp(Mods& m, Instr& in, std::string_view opcode) {
  for (size_t i = 0; i < m.rest.size(); ++i) {
    if (Cmp c = cmp_from(m.rest[i]); c != Cmp::None) {
      in.cmp = c;
      m.rest.erase(m.rest.begin() + i);
      break;
    }
  }
  if (in.cmp == Cmp::None) fail("'" + std::string(opcode) + "' needs a comparison (.eq, .lt, ...)");
  if (take(m, "and")) in.bool_op = BoolOp::And;
  else if (take(m, "or")) in.bool_op = BoolOp::Or;
  else if (take(m, "xor")) in.bool_op = BoolOp::Xor;
}

bool parse_shape(Mods& m, Instr& in) {
  for (size_t i = 0; i < m.rest.size(); ++i) {
    std::string_view w = m.rest[i];
    if (w.size() < 4 || w[0] != 'm') continue;
    unsigned mm = 0, nn = 0, kk = 0;
    size_t p = 1;
    auto num = [&](unsigned& out) {
      size_t s = p;
      while (p < w.size() && w[p] >= '0' && w[p] <= '9') out = out * 10 + (w[p++] - '0');
      return p > s;
    };
    if (!num(mm) || p >= w.size() || w[p] != 'n') continue;
    ++p;
    if (!num(nn)) continue;
    if (p < w.size()) {
      if (w[p] != 'k') continue;
      ++p;
      if (!num(kk) || p != w.size()) continue;
    }
    in.shape_m = static_cast<uint8_t>(mm);
    in.shape_n = static_cast<uint16_t>(nn);
    in.shape_k = static_cast<uint8_t>(kk);
    m.rest.erase(m.rest.begin() + i);
    return true;
  }
  return false;
}

// row/col words in order -> layouts.
int take_layouts(Mods& m, uint8_t* out, int max) {
  int n = 0;
  for (size_t i = 0; i < m.rest.size();) {
    if (m.rest[i] == "row" || m.rest[i] == "col") {
      if (n == max) fail("too many layouts");
      out[n++] = m.rest[i] == "col" ? 1 : 0;
      m.rest.erase(m.rest.begin() + i);
    } else {
      ++i;
    }
  }
  return n;
}

void require_vec(const Operand& o, std::string_view opcode, const char* what) {
  if (o.kind != OperandKind::Vec) fail("'" + std::string(opcode) + "': " + what + " must be a vector {...}");
}
void require_addr(const Operand& o, std::string_view opcode) {
  if (o.kind != OperandKind::Addr) fail("'" + std::string(opcode) + "': expected an address [...]");
}

// Families whose operands are plain PTX order (d, a, b, c ...): the rows of
// the opcode table (opcodes.def) that give operand counts.
Op plain_family(std::string_view base) {
  for (size_t i = 0; i < size_t(Op::Count_); ++i)
    if (kOpTable[i].min_ops && base == kOpTable[i].name) return Op(i);
  return Op::Invalid;
}

// The one cp.async.bulk form the lab models: global -> this CTA's shared
// memory, completing on an mbarrier (PTX ISA 9.7.9.25 "cp.async.bulk"). The
// tensor, prefetch, shared -> global (bulk_group) and multicast forms stay
// unsupported.
bool is_bulk_to_shared(std::string_view opcode) {
  return (opcode.substr(0, 30) == "cp.async.bulk.shared::cluster." || opcode.substr(0, 26) == "cp.async.bulk.shared::cta.") &&
         opcode.find(".global.mbarrier::complete_tx::bytes") != std::string_view::npos &&
         opcode.find("multicast") == std::string_view::npos;
}

// The tensor form the lab models (TMA): a tile-mode box global -> this CTA's
// shared memory through a tensor map, completing on an mbarrier (PTX ISA
// 9.7.9.25.5.1 "cp.async.bulk.tensor"). im2col mode, multicast, prefetch and
// shared -> global stay unsupported.
bool is_tensor_to_shared(std::string_view opcode) {
  return starts_with(opcode, "cp.async.bulk.tensor.") &&
         (opcode.find(".shared::cluster.global") != std::string_view::npos ||
          opcode.find(".shared::cta.global") != std::string_view::npos) &&
         opcode.find(".mbarrier::complete_tx::bytes") != std::string_view::npos &&
         opcode.find("multicast") == std::string_view::npos && opcode.find("im2col") == std::string_view::npos;
}

}  // namespace

const char* unsupported_family(std::string_view opcode) {
  std::string_view base = opcode.substr(0, opcode.find('.'));
  if (base == "tex" || base == "tld4" || base == "txq")
    return "the lab's simulator does not model texture fetches";
  if (base == "suld" || base == "sust" || base == "sured" || base == "suq")
    return "the lab's simulator does not model surfaces";
  if (base == "brkpt") return "the lab's simulator does not model breakpoints; remove brkpt";
  if (base == "brx") return "indirect branches (switch jump tables) are not modelled";
  if (base == "tcgen05" || base == "elect" ||
      base == "mapa" || base == "getctarank" || base == "multimem" || base == "tensormap" ||
      base == "clusterlaunchcontrol" ||
      (opcode.substr(0, 13) == "cp.async.bulk" && !is_bulk_to_shared(opcode) && !is_tensor_to_shared(opcode)) ||
      opcode.substr(0, 15) == "cp.reduce.async")
    return "Hopper/Blackwell asynchronous and cluster features are not modelled";
  if (base == "vabsdiff" || base == "vadd" || base == "vsub" || base == "vmad" || base == "vmin" ||
      base == "vmax" || base == "vset" || base == "vshl" || base == "vshr" || base == "vabsdiff2" ||
      base == "vabsdiff4" || base == "vadd2" || base == "vadd4" || base == "vsub2" || base == "vsub4" ||
      base == "vavrg2" || base == "vavrg4" || base == "vmin2" || base == "vmin4" || base == "vmax2" ||
      base == "vmax4" || base == "vset2" || base == "vset4")
    return "video (SIMD) instructions are not modelled";
  if (base == "istypep" || base == "alloca" || base == "stacksave" || base == "stackrestore")
    return "the lab's simulator does not model it";
  return nullptr;
}

void decode_instruction(std::string_view opcode, std::vector<RawOperand>& raw, Instr& in) {
  std::string_view base;
  Mods m = classify(opcode, &base);
  if (m.cache_hint_operand) {
    if (raw.empty()) fail("'" + std::string(opcode) + "' is missing its cache-policy operand");
    raw.pop_back();  // the 64-bit cache policy: a hint only
  }
  in.flags = m.flags;
  in.round = m.round;
  in.vec = m.vec;

  auto set_types = [&](int want_lo, int want_hi) {
    if (m.ntypes < want_lo || m.ntypes > want_hi)
      fail("'" + std::string(opcode) + "': expected " + std::to_string(want_lo) + " type modifier(s)");
    in.type = m.ntypes > 0 ? m.types[0] : Type::None;
    in.type2 = m.ntypes > 1 ? m.types[1] : Type::None;
    in.type3 = m.ntypes > 2 ? m.types[2] : Type::None;
  };

  // ---- plain PTX-order families --------------------------------------------
  if (const Op plain = plain_family(base); plain != Op::Invalid) {
    in.op = plain;
    check_count(raw, op_info(plain).min_ops, op_info(plain).max_ops, opcode);
    copy_ops(in, raw);
    switch (plain) {
      case Op::Mul: case Op::Mad: case Op::MadC: case Op::Dp2a: {
        if (take(m, "lo")) in.mul = MulMode::Lo;
        else if (take(m, "hi")) in.mul = MulMode::Hi;
        else if (take(m, "wide")) in.mul = MulMode::Wide;
        if (plain == Op::Mad && (in.flags & kFlagCarryOut)) in.op = Op::MadCC;
        set_types(1, 2);
        break;
      }
      case Op::Add: case Op::Sub:
        if (in.flags & kFlagCarryOut) in.op = plain == Op::Add ? Op::AddCC : Op::SubCC;
        set_types(1, 1);
        break;
      case Op::Mul24: case Op::Mad24:
        if (take(m, "lo")) in.mul = MulMode::Lo;
        else if (take(m, "hi")) in.mul = MulMode::Hi;
        set_types(1, 1);
        break;
      case Op::Dp4a: set_types(2, 2); break;
      case Op::Bfind:
        if (take(m, "shiftamt")) in.mode = 1;
        set_types(1, 1);
        break;
      case Op::Shf:
        if (take(m, "l")) in.flags |= kFlagShiftLeft;
        else if (!take(m, "r")) fail("'shf' needs .l or .r");
        if (take(m, "clamp")) in.flags |= kFlagShiftClamp;
        else if (!take(m, "wrap")) fail("'shf' needs .wrap or .clamp");
        set_types(1, 1);
        break;
      case Op::Bmsk:
        // bmsk.mode.b32 d, a, b (PTX ISA, integer instructions, "bmsk"): .clamp or .wrap is required.
        if (take(m, "clamp")) in.flags |= kFlagShiftClamp;
        else if (!take(m, "wrap")) fail("'" + std::string(opcode) + "' needs .clamp or .wrap (bmsk.clamp.b32 / bmsk.wrap.b32)");
        set_types(1, 1);
        if (in.type != Type::B32) fail("'" + std::string(opcode) + "': bmsk is defined for .b32 only");
        break;
      case Op::Prmt: {
        static const struct { std::string_view n; PrmtMode p; } kModes[] = {
            {"f4e", PrmtMode::F4e}, {"b4e", PrmtMode::B4e}, {"rc8", PrmtMode::Rc8},
            {"ecl", PrmtMode::Ecl}, {"ecr", PrmtMode::Ecr}, {"rc16", PrmtMode::Rc16}};
        for (const auto& e : kModes)
          if (take(m, e.n)) in.mode = static_cast<uint8_t>(e.p);
        set_types(1, 1);
        break;
      }
      case Op::Testp: {
        static const struct { std::string_view n; TestpMode t; } kModes[] = {
            {"finite", TestpMode::Finite},         {"infinite", TestpMode::Infinite},
            {"number", TestpMode::Number},         {"notanumber", TestpMode::NotANumber},
            {"normal", TestpMode::Normal},         {"subnormal", TestpMode::Subnormal}};
        for (const auto& e : kModes)
          if (take(m, e.n)) in.mode = static_cast<uint8_t>(e.t);
        if (in.mode == 0) fail("'testp' needs a test (.finite, .notanumber, ...)");
        set_types(1, 1);
        break;
      }
      case Op::Slct: set_types(2, 2); break;
      case Op::Cvt:
        set_types(2, 2);
        break;
      case Op::Cvta:
        if (take(m, "to")) in.cvta_to = true;
        in.space = one_space(m);
        if (in.space == Space::Generic) fail("'cvta' needs a state space");
        set_types(1, 1);
        break;
      case Op::Isspacep:
        in.space = one_space(m);
        set_types(0, 0);
        break;
      case Op::Activemask: case Op::Nanosleep:
        set_types(1, 1);
        break;
      default:
        set_types(1, 1);
        break;
    }
    if (plain != Op::Cvta && plain != Op::Isspacep && m.nspaces) fail("'" + std::string(opcode) + "': unexpected state space");
    no_rest(m, opcode);
    // Float literals.
    for (int i = 0; i < in.num_ops; ++i) {
      if (in.ops[i].kind != OperandKind::Imm) continue;
      Type t = in.type;
      if (in.op == Op::Cvt && i >= 1) t = in.type2;
      if (in.op == Op::Slct && i == 3) t = in.type2;
      in.ops[i].imm = float_imm(raw[i], t);
    }
    return;
  }

  // ---- comparison ----------------------------------------------------------
  if (base == "setp" || base == "set") {
    bool is_setp = base == "setp";
    in.op = is_setp ? Op::Setp : Op::Set;
    take_cmp(m, in, opcode);
    if (is_setp) {
      set_types(1, 1);
      in.type2 = in.type;
    } else {
      set_types(2, 2);
    }
    no_rest(m, opcode);
    size_t i = 0;
    if (raw.empty()) fail("'" + std::string(opcode) + "' has no operands");
    in.ops[0] = raw[i++].op;
    if (i < raw.size() && raw[i].pipe) {
      if (!is_setp) fail("'set' has no second destination");
      in.ops[1] = raw[i++].op;
    }
    size_t srcs = raw.size() - i;
    size_t want = in.bool_op == BoolOp::None ? 2 : 3;
    if (srcs != want)
      fail("'" + std::string(opcode) + "' takes " + std::to_string(want) + " source operands, found " + std::to_string(srcs));
    for (int k = 0; k < static_cast<int>(srcs); ++k, ++i) {
      if (raw[i].pipe) fail("unexpected '|' operand");
      in.ops[2 + k] = raw[i].op;
      if (in.ops[2 + k].kind == OperandKind::Imm && k < 2) in.ops[2 + k].imm = float_imm(raw[i], in.type2);
    }
    in.num_ops = 5;
    return;
  }

  // ---- memory --------------------------------------------------------------
  if (base == "ld" || base == "ldu" || base == "st") {
    bool store = base == "st";
    in.op = store ? Op::St : (base == "ld" ? Op::Ld : Op::Ldu);
    in.space = one_space(m);
    set_types(1, 1);
    no_rest(m, opcode);
    check_count(raw, 2, 2, opcode);
    copy_ops(in, raw);
    const Operand& addr = in.ops[store ? 0 : 1];
    require_addr(addr, opcode);
    const Operand& val = in.ops[store ? 1 : 0];
    if (in.vec > 1 && (val.kind != OperandKind::Vec || val.vec_len != in.vec))
      fail("'" + std::string(opcode) + "' needs a vector of " + std::to_string(in.vec) + " registers");
    if (in.vec == 1 && val.kind == OperandKind::Vec) fail("'" + std::string(opcode) + "': vector operand without .v2/.v4");
    if (store && in.ops[1].kind == OperandKind::Imm) in.ops[1].imm = float_imm(raw[1], in.type);
    if (!store && in.ops[0].kind != OperandKind::Reg && in.ops[0].kind != OperandKind::Vec)
      fail("'" + std::string(opcode) + "': destination must be a register");
    return;
  }
  if (base == "prefetch" || base == "prefetchu") {
    in.op = Op::Prefetch;
    take(m, "L1");
    take(m, "L2");
    in.space = one_space(m);
    no_rest(m, opcode);
    check_count(raw, 1, 1, opcode);
    copy_ops(in, raw);
    require_addr(in.ops[0], opcode);
    return;
  }
  if (base == "atom" || base == "red") {
    bool is_red = base == "red";
    in.op = is_red ? Op::Red : Op::Atom;
    static const struct { std::string_view n; AtomOp a; } kAtom[] = {
        {"add", AtomOp::Add}, {"min", AtomOp::Min}, {"max", AtomOp::Max}, {"exch", AtomOp::Exch},
        {"cas", AtomOp::Cas}, {"and", AtomOp::And}, {"or", AtomOp::Or},   {"xor", AtomOp::Xor},
        {"inc", AtomOp::Inc}, {"dec", AtomOp::Dec}};
    for (const auto& e : kAtom)
      if (take(m, e.n)) in.atom = e.a;
    if (in.atom == AtomOp::None) fail("'" + std::string(opcode) + "' needs an operation (.add, .cas, ...)");
    if (is_red && (in.atom == AtomOp::Cas || in.atom == AtomOp::Exch)) fail("'red' cannot " + std::string(in.atom == AtomOp::Cas ? "cas" : "exch"));
    if (in.vec != 1) fail("vector atomics are not supported");
    in.space = one_space(m);
    set_types(1, 1);
    no_rest(m, opcode);
    size_t want = is_red ? 2 : (in.atom == AtomOp::Cas ? 4 : 3);
    check_count(raw, want, want, opcode);
    copy_ops(in, raw);
    require_addr(in.ops[is_red ? 0 : 1], opcode);
    for (int i = is_red ? 1 : 2; i < in.num_ops; ++i)
      if (in.ops[i].kind == OperandKind::Imm) in.ops[i].imm = float_imm(raw[i], in.type);
    return;
  }

  // ---- control flow --------------------------------------------------------
  if (base == "bra") {
    in.op = Op::Bra;
    no_rest(m, opcode);
    if (m.ntypes) fail("'bra' takes no type");
    check_count(raw, 1, 1, opcode);
    copy_ops(in, raw);
    if (in.ops[0].kind != OperandKind::Label) fail("'bra' needs a label");
    return;
  }
  if (base == "ret" || base == "exit" || base == "trap") {
    in.op = base == "ret" ? Op::Ret : Op::Exit;
    if (base == "trap") in.mode = kExitTrap;
    no_rest(m, opcode);
    check_count(raw, 0, 0, opcode);
    return;
  }

  // ---- synchronisation -----------------------------------------------------
  if (base == "bar" || base == "barrier") {
    if (take(m, "warp")) {
      in.op = Op::BarWarpSync;
      no_rest(m, opcode);
      check_count(raw, 1, 1, opcode);
      copy_ops(in, raw);
      return;
    }
    if (take(m, "arrive")) in.op = Op::BarArrive;
    else if (take(m, "red")) in.op = Op::BarRed;
    else in.op = Op::BarSync;  // bar.sync, barrier.sync, barrier.cta.sync, plain `bar 0` (PTX ISA 9.7.13.1)
    if (in.op == Op::BarRed) {
      if (take(m, "popc")) in.redux = ReduxOp::Add;
      else if (take(m, "and")) in.redux = ReduxOp::And;
      else if (take(m, "or")) in.redux = ReduxOp::Or;
      else fail("'bar.red' needs .popc, .and or .or");
      set_types(1, 1);
      no_rest(m, opcode);
      check_count(raw, 3, 4, opcode);
      in.ops[0] = raw[0].op;
      in.ops[1] = raw[1].op;
      if (raw.size() == 4) in.ops[2] = raw[2].op;
      in.ops[3] = raw.back().op;
      in.num_ops = 4;
      return;
    }
    no_rest(m, opcode);
    if (m.ntypes) fail("'" + std::string(opcode) + "' takes no type");
    check_count(raw, 1, 2, opcode);
    copy_ops(in, raw);
    in.num_ops = 2;
    return;
  }
  if (base == "membar" || base == "fence") {
    in.op = base == "membar" ? Op::Membar : Op::Fence;
    take(m, "gl");
    if (in.op == Op::Fence) m.rest.clear();  // proxy/async kinds: ordering only
    no_rest(m, opcode);
    if (!raw.empty()) fail("'" + std::string(opcode) + "' with operands is not supported");
    return;
  }
  if (base == "shfl") {
    in.op = Op::ShflSync;
    if (take(m, "up")) in.shfl = ShflMode::Up;
    else if (take(m, "down")) in.shfl = ShflMode::Down;
    else if (take(m, "bfly")) in.shfl = ShflMode::Bfly;
    else if (take(m, "idx")) in.shfl = ShflMode::Idx;
    else fail("'shfl' needs .up, .down, .bfly or .idx");
    if (opcode.find(".sync") == std::string_view::npos)
      fail("'shfl' without .sync (removed since sm_70); use __shfl_*_sync");
    set_types(1, 1);
    no_rest(m, opcode);
    size_t i = 0;
    if (raw.empty()) fail("'shfl' has no operands");
    in.ops[0] = raw[i++].op;
    if (i < raw.size() && raw[i].pipe) in.ops[1] = raw[i++].op;
    if (raw.size() - i != 4) fail("'" + std::string(opcode) + "' takes d[|p], a, b, c, membermask");
    for (int k = 0; k < 4; ++k) in.ops[2 + k] = raw[i + k].op;
    in.num_ops = 6;
    return;
  }
  if (base == "vote") {
    in.op = Op::VoteSync;
    if (take(m, "all")) in.vote = VoteMode::All;
    else if (take(m, "any")) in.vote = VoteMode::Any;
    else if (take(m, "uni")) in.vote = VoteMode::Uni;
    else if (take(m, "ballot")) in.vote = VoteMode::Ballot;
    else fail("'vote' needs .all, .any, .uni or .ballot");
    if (opcode.find(".sync") == std::string_view::npos) fail("'vote' without .sync is not supported; use __*_sync");
    set_types(1, 1);
    no_rest(m, opcode);
    check_count(raw, 3, 3, opcode);
    copy_ops(in, raw);
    return;
  }
  if (base == "match") {
    in.op = Op::MatchSync;
    if (take(m, "any")) in.vote = VoteMode::Any;
    else if (take(m, "all")) in.vote = VoteMode::All;
    else fail("'match' needs .any or .all");
    set_types(1, 1);
    no_rest(m, opcode);
    size_t i = 0;
    if (raw.empty()) fail("'match' has no operands");
    in.ops[0] = raw[i++].op;
    if (i < raw.size() && raw[i].pipe) in.ops[1] = raw[i++].op;
    if (raw.size() - i != 2) fail("'" + std::string(opcode) + "' takes d[|p], a, membermask");
    in.ops[2] = raw[i].op;
    in.ops[3] = raw[i + 1].op;
    in.num_ops = 4;
    return;
  }
  if (base == "redux") {
    in.op = Op::ReduxSync;
    static const struct { std::string_view n; ReduxOp r; } kRedux[] = {
        {"add", ReduxOp::Add}, {"min", ReduxOp::Min}, {"max", ReduxOp::Max},
        {"and", ReduxOp::And}, {"or", ReduxOp::Or},   {"xor", ReduxOp::Xor}};
    for (const auto& e : kRedux)
      if (take(m, e.n)) in.redux = e.r;
    if (in.redux == ReduxOp::None) fail("'redux' needs an operation");
    take(m, "abs");
    set_types(1, 1);
    no_rest(m, opcode);
    check_count(raw, 3, 3, opcode);
    copy_ops(in, raw);
    return;
  }
  if (base == "pmevent") {
    in.op = Op::Nop;
    return;
  }
  // griddepcontrol.wait / .launch_dependents (PTX ISA, "griddepcontrol",
  // sm_90: programmatic dependent launch, which CUB and thrust emit): wait
  // holds the grid until the grids it depends on have completed and their
  // writes are visible; launch_dependents lets dependent grids start early.
  // Every lab launch ends before the next begins, so the wait is already met
  // and there is nothing to start early: both do nothing here.
  if (base == "griddepcontrol") {
    if (opcode != "griddepcontrol.wait" && opcode != "griddepcontrol.launch_dependents")
      fail("'" + std::string(opcode) + "': griddepcontrol takes .wait or .launch_dependents");
    in.op = Op::Nop;
    return;
  }

  // ---- TMA: cp.async.bulk.tensor (PTX ISA 9.7.9.25.5.1) ---------------------
  //   cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes{.L2::cache_hint}
  //     [dstMem], [tensorMap, {c0, ..., cN-1}], [mbar] {, cache-policy}
  // ops: 0 dst, 1 tensor map, 2 coordinates (Vec, c0 innermost), 3 mbarrier.
  // shape_m holds the dimension count N.
  if (base == "cp" && is_tensor_to_shared(opcode)) {
    take(m, "async");
    take(m, "bulk");
    take(m, "tensor");
    take(m, "tile");
    take(m, "mbarrier::complete_tx::bytes");
    int dims = 0;
    for (int d = 1; d <= 5; ++d)
      if (take(m, std::string(1, char('0' + d)) + "d")) dims = d;
    if (!dims) fail("'" + std::string(opcode) + "' needs a dimension count (.1d to .5d)");
    in.op = Op::CpAsyncBulkTensor;
    in.space = Space::Shared;
    in.shape_m = uint8_t(dims);
    no_rest(m, opcode);
    check_count(raw, 4, m.cache_hint_operand ? 5 : 4, opcode);
    copy_ops(in, raw);
    in.num_ops = 4;  // a cache policy is a hint: dropped
    if (in.ops[0].kind != OperandKind::Addr || in.ops[1].kind != OperandKind::Addr || in.ops[3].kind != OperandKind::Addr)
      fail("'" + std::string(opcode) + "': expected [dst], [tensorMap, {coordinates}], [mbar]");
    require_vec(in.ops[2], opcode, "the coordinates");
    if (in.ops[2].vec_len != dims)
      fail("'" + std::string(opcode) + "': " + std::to_string(dims) + " dimensions need " + std::to_string(dims) +
           " coordinates, found " + std::to_string(in.ops[2].vec_len));
    return;
  }
  if (base == "setmaxnreg") {
    // setmaxnreg.{inc,dec}.sync.aligned.u32 imm (PTX ISA 9.7.17.1): imm in 24 .. 256, a multiple of 8.
    in.op = Op::Setmaxnreg;
    if (!take(m, "inc") && !take(m, "dec")) fail("'setmaxnreg' needs .inc or .dec");
    no_rest(m, opcode);
    check_count(raw, 1, 1, opcode);
    copy_ops(in, raw);
    if (in.ops[0].kind != OperandKind::Imm || in.ops[0].imm < 24 || in.ops[0].imm > 256 || in.ops[0].imm % 8)
      fail("'setmaxnreg' takes a constant register count in 24 .. 256, a multiple of 8 (PTX ISA, setmaxnreg)");
    return;
  }

  // ---- mbarrier (PTX ISA 9.7.13.15) ------------------------------------------
  // .sem (.release/.acquire/.relaxed) and .scope (.cta/.cluster) are dropped by
  // classify(): the interpreter runs one warp instruction at a time, so every
  // mbarrier operation is already ordered with the accesses around it.
  if (base == "mbarrier" || (base == "cp" && opcode.substr(0, 24) == "cp.async.mbarrier.arrive") ||
      (base == "cp" && is_bulk_to_shared(opcode))) {
    const std::string op_s(opcode);
    auto need_b64 = [&] {
      if (m.ntypes != 1 || m.types[0] != Type::B64) fail("'" + op_s + "' needs the .b64 type (the mbarrier object is 64 bits)");
      in.type = Type::B64;
    };
    // The object lives in shared memory; .shared::cluster names this CTA's own
    // shared memory when the launch has no clusters (one CTA per cluster).
    auto take_space = [&] {
      Space sp = one_space(m);
      if (sp == Space::SharedCluster) sp = Space::Shared;
      if (sp != Space::Shared && sp != Space::Generic)
        fail("'" + op_s + "': an mbarrier object lives in shared memory (.shared or a generic address of it)");
      in.space = sp;
    };
    auto addr_at = [&](int i) {
      if (in.ops[i].kind != OperandKind::Addr) fail("'" + op_s + "': expected the mbarrier's address [...]");
    };
    if (base == "cp" && is_bulk_to_shared(opcode)) {
      // cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.L2::cache_hint}
      //   [dstMem], [srcMem], size, [mbar]
      take(m, "async");
      take(m, "bulk");
      take(m, "mbarrier::complete_tx::bytes");
      in.op = Op::CpAsyncBulk;
      in.space = Space::Shared;
      no_rest(m, opcode);
      check_count(raw, 4, 4, opcode);
      copy_ops(in, raw);
      addr_at(0);
      addr_at(1);
      addr_at(3);
      return;
    }
    if (base == "cp") {
      take(m, "async");
      take(m, "mbarrier");
      take(m, "arrive");
      in.op = Op::CpAsyncMbarrierArrive;
      if (take(m, "noinc")) in.mode |= kMbarNoInc;
      need_b64();
      take_space();
      no_rest(m, opcode);
      check_count(raw, 1, 1, opcode);
      copy_ops(in, raw);
      addr_at(0);
      return;
    }
    if (take(m, "init")) {
      in.op = Op::MbarrierInit;  // mbarrier.init.b64 [addr], count
      check_count(raw, 2, 2, opcode);
    } else if (take(m, "inval")) {
      in.op = Op::MbarrierInval;  // mbarrier.inval.b64 [addr]
      check_count(raw, 1, 1, opcode);
    } else if (std::find(m.rest.begin(), m.rest.end(), "arrive") == m.rest.end() &&
               std::find(m.rest.begin(), m.rest.end(), "arrive_drop") == m.rest.end() && take(m, "expect_tx")) {
      in.op = Op::MbarrierExpectTx;  // mbarrier.expect_tx.b64 [addr], txCount (sm_90)
      check_count(raw, 2, 2, opcode);
    } else if (take(m, "complete_tx")) {
      in.op = Op::MbarrierCompleteTx;  // mbarrier.complete_tx.b64 [addr], txCount (sm_90)
      check_count(raw, 2, 2, opcode);
    } else if (take(m, "pending_count")) {
      in.op = Op::MbarrierPendingCount;  // mbarrier.pending_count.b64 count, state
      check_count(raw, 2, 2, opcode);
      need_b64();
      no_rest(m, opcode);
      if (m.nspaces) fail("'" + op_s + "' takes a state, not an address: no state space");
      copy_ops(in, raw);
      return;
    } else if (take(m, "test_wait") || (take(m, "try_wait") && (in.op = Op::MbarrierTryWait, true))) {
      // {test,try}_wait{.parity}.b64 waitComplete, [addr], state|phaseParity {, suspendTimeHint}
      if (in.op != Op::MbarrierTryWait) in.op = Op::MbarrierTestWait;
      if (take(m, "parity")) in.mode |= kMbarParity;
      check_count(raw, 3, in.op == Op::MbarrierTryWait ? 4 : 3, opcode);
    } else {
      // arrive{.noComplete} / arrive.expect_tx / arrive_drop{.noComplete} / arrive_drop.expect_tx:
      //   state, [addr] {, count | txCount}
      const bool drop = take(m, "arrive_drop");
      if (!drop && !take(m, "arrive"))
        fail("unsupported instruction '" + op_s + "': the lab models mbarrier.init, arrive, arrive_drop, expect_tx, "
             "complete_tx, test_wait, try_wait, pending_count and inval");
      in.op = Op::MbarrierArrive;
      if (drop) in.mode |= kMbarDrop;
      if (take(m, "noComplete")) in.mode |= kMbarNoComplete;
      if (take(m, "expect_tx")) in.mode |= kMbarExpectTx;
      check_count(raw, 2, 3, opcode);
      if ((in.mode & kMbarNoComplete) && raw.size() != 3) fail("'" + op_s + "' needs a count operand");
      if ((in.mode & kMbarExpectTx) && raw.size() != 3) fail("'" + op_s + "' needs a txCount operand");
    }
    need_b64();
    take_space();
    no_rest(m, opcode);
    copy_ops(in, raw);
    const bool has_dest = in.op == Op::MbarrierArrive || in.op == Op::MbarrierTestWait || in.op == Op::MbarrierTryWait;
    addr_at(has_dest ? 1 : 0);
    return;
  }

  // ---- async copy ----------------------------------------------------------
  if (base == "cp" && !m.rest.empty() && m.rest[0] == "async" && opcode.find("bulk") == std::string_view::npos &&
      opcode.find("mbarrier") == std::string_view::npos) {
    take(m, "async");
    if (take(m, "commit_group")) {
      in.op = Op::CpAsyncCommitGroup;
      no_rest(m, opcode);
      check_count(raw, 0, 0, opcode);
      return;
    }
    if (take(m, "wait_group")) {
      in.op = Op::CpAsyncWaitGroup;
      no_rest(m, opcode);
      check_count(raw, 1, 1, opcode);
      copy_ops(in, raw);
      if (in.ops[0].kind != OperandKind::Imm) fail("'cp.async.wait_group' needs a constant");
      return;
    }
    if (take(m, "wait_all")) {
      in.op = Op::CpAsyncWaitAll;
      no_rest(m, opcode);
      check_count(raw, 0, 0, opcode);
      return;
    }
    in.op = Op::CpAsync;
    if (m.nspaces != 2 || m.spaces[0] != Space::Shared || m.spaces[1] != Space::Global)
      fail("'" + std::string(opcode) + "': only cp.async.{ca,cg}.shared.global is supported");
    in.space = Space::Shared;
    no_rest(m, opcode);
    check_count(raw, 3, 4, opcode);
    copy_ops(in, raw);
    require_addr(in.ops[0], opcode);
    require_addr(in.ops[1], opcode);
    if (in.ops[2].kind != OperandKind::Imm) fail("'cp.async' copy size must be a constant (4, 8 or 16)");
    in.num_ops = 4;
    return;
  }

  // ---- matrix --------------------------------------------------------------
  if (base == "wmma") {
    bool load = take(m, "load"), store = !load && take(m, "store"), mma = !load && !store && take(m, "mma");
    if (!load && !store && !mma) fail("unsupported wmma form '" + std::string(opcode) + "'");
    if (!parse_shape(m, in)) fail("'" + std::string(opcode) + "' needs a shape (.m16n16k16)");
    if (load || store) {
      if (load) {
        if (take(m, "a")) in.op = Op::WmmaLoadA;
        else if (take(m, "b")) in.op = Op::WmmaLoadB;
        else if (take(m, "c")) in.op = Op::WmmaLoadC;
        else fail("'wmma.load' needs .a, .b or .c");
      } else {
        if (!take(m, "d")) fail("'wmma.store' needs .d");
        in.op = Op::WmmaStoreD;
      }
      uint8_t lay[2];
      if (take_layouts(m, lay, 1) != 1) fail("'" + std::string(opcode) + "' needs .row or .col");
      in.layout_a = in.layout_b = lay[0];
      in.space = one_space(m);
      set_types(1, 1);
      if (in.op == Op::WmmaLoadA || in.op == Op::WmmaLoadB) in.type2 = in.type;
      no_rest(m, opcode);
      check_count(raw, 2, 3, opcode);
      copy_ops(in, raw);
      in.num_ops = 3;
      require_vec(in.ops[store ? 1 : 0], opcode, "the fragment");
      require_addr(in.ops[store ? 0 : 1], opcode);
      return;
    }
    in.op = Op::WmmaMma;
    uint8_t lay[2];
    if (take_layouts(m, lay, 2) != 2) fail("'wmma.mma' needs two layouts (.row.col)");
    in.layout_a = lay[0];
    in.layout_b = lay[1];
    // PTX ISA 9.7.14.5.3: `.dtype.ctype` for f16/f32 (A/B are f16), else
    // `.dtype.atype.btype.ctype`.
    if (m.ntypes == 2) {
      in.type = m.types[0];
      in.type2 = Type::F16;
      in.type3 = m.types[1];
    } else if (m.ntypes == 4) {
      in.type = m.types[0];
      in.type2 = m.types[1];
      in.type3 = m.types[3];
    } else {
      fail("'" + std::string(opcode) + "': unexpected type list");
    }
    no_rest(m, opcode);
    check_count(raw, 4, 4, opcode);
    copy_ops(in, raw);
    for (int i = 0; i < 4; ++i) require_vec(in.ops[i], opcode, "each fragment");
    return;
  }
  if (base == "mma") {
    in.op = Op::Mma;
    if (!parse_shape(m, in)) fail("'" + std::string(opcode) + "' needs a shape (.m16n8k16)");
    uint8_t lay[2] = {0, 1};
    int nl = take_layouts(m, lay, 2);
    if (nl != 0 && nl != 2) fail("'mma' needs .row.col");
    in.layout_a = lay[0];
    in.layout_b = lay[1];
    if (m.ntypes == 4) {
      in.type = m.types[0];
      in.type2 = m.types[1];
      in.type3 = m.types[3];
    } else if (m.ntypes == 2) {  // .f16 dtype/ctype forms: mma.sync.m16n8k8.row.col.f16.f16.f16.f16 has 4, but accept d.c
      in.type = m.types[0];
      in.type2 = Type::F16;
      in.type3 = m.types[1];
    } else {
      fail("'" + std::string(opcode) + "': unexpected type list");
    }
    no_rest(m, opcode);
    check_count(raw, 4, 4, opcode);
    copy_ops(in, raw);
    for (int i = 0; i < 4; ++i) require_vec(in.ops[i], opcode, "each fragment");
    return;
  }
  if (base == "wgmma") {
    // PTX ISA 9.7.15 (warpgroup-level matrix multiply-accumulate, sm_90a).
    if (take(m, "fence")) in.op = Op::WgmmaFence;
    else if (take(m, "commit_group")) in.op = Op::WgmmaCommitGroup;
    else if (take(m, "wait_group")) in.op = Op::WgmmaWaitGroup;
    else if (take(m, "mma_async")) in.op = Op::WgmmaMmaAsync;
    else fail("unsupported wgmma form '" + std::string(opcode) + "'");
    if (!(m.flags & kFlagAligned)) fail("'" + std::string(opcode) + "' needs .sync.aligned");
    if (in.op == Op::WgmmaFence || in.op == Op::WgmmaCommitGroup) {
      no_rest(m, opcode);
      check_count(raw, 0, 0, opcode);
      return;
    }
    if (in.op == Op::WgmmaWaitGroup) {  // wgmma.wait_group.sync.aligned N
      no_rest(m, opcode);
      check_count(raw, 1, 1, opcode);
      copy_ops(in, raw);
      if (in.ops[0].kind != OperandKind::Imm) fail("'wgmma.wait_group' takes a constant group count");
      return;
    }
    // wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16}
    //   d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b
    // ops: 0 d (Vec), 1 a-desc, 2 b-desc, 3 scale-d (predicate or constant);
    // imm-scale-a/b are kWgmmaNegA/B in `mode` (-1 negates), imm-trans-a/b
    // are layout_a/layout_b (1: the operand is MN-major, "transposed").
    if (!parse_shape(m, in)) fail("'" + std::string(opcode) + "' needs a shape (.m64n128k16)");
    no_rest(m, opcode);
    if (m.ntypes != 3) fail("'" + std::string(opcode) + "' needs .dtype.atype.btype (.f32.f16.f16)");
    in.type = m.types[0];
    in.type2 = m.types[1];
    in.type3 = m.types[2];
    if (raw.size() >= 2 && raw[1].op.kind == OperandKind::Vec)
      fail("'" + std::string(opcode) + "' with A in registers is not modelled; read A from shared memory through a "
           "matrix descriptor");
    if (raw.size() != 8 && raw.size() != 6)
      fail("'" + std::string(opcode) + "' takes d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, "
           "imm-trans-b");
    require_vec(raw[0].op, opcode, "the accumulator");
    for (int i = 4; i < int(raw.size()); ++i)
      if (raw[i].op.kind != OperandKind::Imm) fail("'" + std::string(opcode) + "': imm-scale and imm-trans must be constants");
    if (raw[4].op.imm != 1 && raw[4].op.imm != -1) fail("'" + std::string(opcode) + "': imm-scale-a must be 1 or -1");
    if (raw[5].op.imm != 1 && raw[5].op.imm != -1) fail("'" + std::string(opcode) + "': imm-scale-b must be 1 or -1");
    if (raw[4].op.imm < 0) in.mode |= kWgmmaNegA;
    if (raw[5].op.imm < 0) in.mode |= kWgmmaNegB;
    if (raw.size() == 8) {
      in.layout_a = uint8_t(raw[6].op.imm != 0);
      in.layout_b = uint8_t(raw[7].op.imm != 0);
    }
    std::vector<RawOperand> four(raw.begin(), raw.begin() + 4);
    copy_ops(in, four);
    return;
  }
  if (base == "ldmatrix" || base == "stmatrix") {
    bool st = base == "stmatrix";
    in.op = st ? Op::Stmatrix : Op::Ldmatrix;
    if (!parse_shape(m, in)) fail("'" + std::string(opcode) + "' needs a shape (.m8n8)");
    if (take(m, "x1")) in.vec = 1;
    else if (take(m, "x2")) in.vec = 2;
    else if (take(m, "x4")) in.vec = 4;
    else fail("'" + std::string(opcode) + "' needs .x1, .x2 or .x4");
    if (take(m, "trans")) in.flags |= kFlagTrans;
    in.space = one_space(m);
    if (in.space == Space::Generic) in.space = Space::Shared;
    set_types(1, 1);
    no_rest(m, opcode);
    check_count(raw, 2, 2, opcode);
    copy_ops(in, raw);
    require_vec(in.ops[st ? 1 : 0], opcode, "the fragment");
    require_addr(in.ops[st ? 0 : 1], opcode);
    if (in.ops[st ? 1 : 0].vec_len != in.vec) fail("'" + std::string(opcode) + "': vector length does not match .x count");
    return;
  }

  if (base == "call") fail("device function calls are not supported");
  const char* why = unsupported_family(opcode);
  fail("unsupported instruction '" + std::string(opcode) + "' (" + (why ? why : "the lab's simulator does not model it") + ")");
}

}  // namespace lab::ptx::detail
