// lab/ptx/names.cpp: printable names of types and opcodes, for messages.
#include "lab/ptx/module.h"

namespace lab::ptx {

const char* type_name(Type t) {
  switch (t) {
    case Type::None: return "";
    case Type::Pred: return ".pred";
    case Type::B8: return ".b8";
    case Type::B16: return ".b16";
    case Type::B32: return ".b32";
    case Type::B64: return ".b64";
    case Type::B128: return ".b128";
    case Type::U8: return ".u8";
    case Type::U16: return ".u16";
    case Type::U32: return ".u32";
    case Type::U64: return ".u64";
    case Type::S8: return ".s8";
    case Type::S16: return ".s16";
    case Type::S32: return ".s32";
    case Type::S64: return ".s64";
    case Type::F16: return ".f16";
    case Type::F16x2: return ".f16x2";
    case Type::BF16: return ".bf16";
    case Type::BF16x2: return ".bf16x2";
    case Type::TF32: return ".tf32";
    case Type::F32: return ".f32";
    case Type::F64: return ".f64";
    case Type::E4M3: return ".e4m3";
    case Type::E5M2: return ".e5m2";
  }
  return "?";
}

const char* op_name(Op op) {
  switch (op) {
    case Op::Invalid: return "invalid";
    case Op::Add: return "add";
    case Op::Sub: return "sub";
    case Op::Mul: return "mul";
    case Op::Mad: return "mad";
    case Op::Mul24: return "mul24";
    case Op::Mad24: return "mad24";
    case Op::Sad: return "sad";
    case Op::Div: return "div";
    case Op::Rem: return "rem";
    case Op::Abs: return "abs";
    case Op::Neg: return "neg";
    case Op::Min: return "min";
    case Op::Max: return "max";
    case Op::Popc: return "popc";
    case Op::Clz: return "clz";
    case Op::Bfind: return "bfind";
    case Op::Fns: return "fns";
    case Op::Brev: return "brev";
    case Op::Bfe: return "bfe";
    case Op::Bfi: return "bfi";
    case Op::Prmt: return "prmt";
    case Op::Dp4a: return "dp4a";
    case Op::Dp2a: return "dp2a";
    case Op::AddCC: return "add.cc";
    case Op::AddC: return "addc";
    case Op::SubCC: return "sub.cc";
    case Op::SubC: return "subc";
    case Op::MadCC: return "mad.cc";
    case Op::MadC: return "madc";
    case Op::And: return "and";
    case Op::Or: return "or";
    case Op::Xor: return "xor";
    case Op::Not: return "not";
    case Op::Cnot: return "cnot";
    case Op::Lop3: return "lop3";
    case Op::Shl: return "shl";
    case Op::Shr: return "shr";
    case Op::Shf: return "shf";
    case Op::Fma: return "fma";
    case Op::Rcp: return "rcp";
    case Op::Sqrt: return "sqrt";
    case Op::Rsqrt: return "rsqrt";
    case Op::Sin: return "sin";
    case Op::Cos: return "cos";
    case Op::Lg2: return "lg2";
    case Op::Ex2: return "ex2";
    case Op::Tanh: return "tanh";
    case Op::Copysign: return "copysign";
    case Op::Testp: return "testp";
    case Op::Setp: return "setp";
    case Op::Set: return "set";
    case Op::Selp: return "selp";
    case Op::Slct: return "slct";
    case Op::Mov: return "mov";
    case Op::Cvt: return "cvt";
    case Op::Cvta: return "cvta";
    case Op::Ld: return "ld";
    case Op::Ldu: return "ldu";
    case Op::St: return "st";
    case Op::Prefetch: return "prefetch";
    case Op::Isspacep: return "isspacep";
    case Op::Atom: return "atom";
    case Op::Red: return "red";
    case Op::Bra: return "bra";
    case Op::Call: return "call";
    case Op::Ret: return "ret";
    case Op::Exit: return "exit";
    case Op::BarSync: return "bar.sync";
    case Op::BarArrive: return "bar.arrive";
    case Op::BarRed: return "bar.red";
    case Op::Membar: return "membar";
    case Op::Fence: return "fence";
    case Op::ShflSync: return "shfl.sync";
    case Op::VoteSync: return "vote.sync";
    case Op::MatchSync: return "match.sync";
    case Op::Activemask: return "activemask";
    case Op::ReduxSync: return "redux.sync";
    case Op::Nanosleep: return "nanosleep";
    case Op::BarWarpSync: return "bar.warp.sync";
    case Op::CpAsync: return "cp.async";
    case Op::CpAsyncCommitGroup: return "cp.async.commit_group";
    case Op::CpAsyncWaitGroup: return "cp.async.wait_group";
    case Op::CpAsyncWaitAll: return "cp.async.wait_all";
    case Op::WmmaLoadA: return "wmma.load.a";
    case Op::WmmaLoadB: return "wmma.load.b";
    case Op::WmmaLoadC: return "wmma.load.c";
    case Op::WmmaStoreD: return "wmma.store.d";
    case Op::WmmaMma: return "wmma.mma";
    case Op::Mma: return "mma";
    case Op::Ldmatrix: return "ldmatrix";
    case Op::Stmatrix: return "stmatrix";
    case Op::Nop: return "nop";
    case Op::Count_: break;
  }
  return "?";
}

}  // namespace lab::ptx
