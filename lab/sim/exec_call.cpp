// lab/sim/exec_call.cpp: the two CUDA device-runtime functions a kernel
// calls as written: vprintf (printf) and __assertfail (assert). The parser
// leaves them as one `call` whose operands are the local-frame offsets of the
// call's .param variables (ptx::DeviceCall); everything else is inlined.
//
// printf: the PTX passes a generic pointer to the format string (a .global
// or .const array) and a generic pointer to an argument buffer in local
// memory, each argument at an offset aligned to its size, floats promoted to
// double (CUDA C++ Programming Guide, "Formatted Output"). The text is kept
// per thread and put in warp order at the end of the launch (launch.cpp).
//
// assert: __assertfail(message, file, line, function, char size) stops the
// block with an `assert` error naming the expression, file and line; the
// CUDA runtime turns that into cudaErrorAssert.
#include <cstdio>

#include <fmt/format.h>

#include "lab/sim/exec.h"
#include "lab/sim/exec_memory.h"

namespace lab::sim {
namespace {

// Reads `bytes` bytes at generic address `addr` for one lane. False (with a
// fault raised) when the address is outside every space.
bool read_lane(WarpContext& c, uint32_t lane, uint64_t addr, void* out, uint32_t bytes) {
  Access a;
  a.bytes = bytes;
  if (addr - ptx::kSharedWindow < ptx::kWindowSize) {
    a.where = ptx::Space::Shared;
    a.addr[lane] = addr - ptx::kSharedWindow;
  } else if (addr - ptx::kLocalWindow < ptx::kWindowSize) {
    a.where = ptx::Space::Local;
    a.addr[lane] = addr - ptx::kLocalWindow;
  } else {
    a.where = ptx::Space::Global;
    a.addr[lane] = addr;
  }
  if (!resolve(c, a, 1u << lane, false, 1)) return false;
  std::memcpy(out, a.host[lane], bytes);
  return true;
}

// A NUL-terminated string in device memory (at most `limit` bytes).
bool read_string(WarpContext& c, uint32_t lane, uint64_t addr, std::string& out, size_t limit = 4096) {
  out.clear();
  for (size_t i = 0; i < limit; ++i) {
    char ch = 0;
    if (!read_lane(c, lane, addr + i, &ch, 1)) return false;
    if (ch == 0) return true;
    out += ch;
  }
  return true;
}

// The call's .param variable `o` (a local-frame offset) for one lane.
uint64_t param_value(WarpContext& c, const ptx::Operand& o, uint32_t lane, uint32_t bytes) {
  uint64_t v = 0;
  read_lane(c, lane, ptx::kLocalWindow + uint64_t(o.imm), &v, bytes);
  return v;
}

// Formats one printf call the way the device's printf does: each conversion
// takes the next argument from the buffer at its natural alignment.
// Returns the argument count (vprintf's result), or -1 after a fault.
int format_printf(WarpContext& c, uint32_t lane, const std::string& fmt_text, uint64_t args, std::string& out) {
  uint64_t off = 0;
  int count = 0;
  auto next_arg = [&](uint32_t size, uint64_t& value) {
    off = (off + size - 1) / size * size;
    value = 0;
    bool ok = args != 0 && read_lane(c, lane, args + off, &value, size);
    off += size;
    return ok;
  };
  char buf[512];
  for (size_t i = 0; i < fmt_text.size(); ++i) {
    char ch = fmt_text[i];
    if (ch != '%') { out += ch; continue; }
    if (i + 1 < fmt_text.size() && fmt_text[i + 1] == '%') { out += '%'; ++i; continue; }
    // %[flags][width][.precision][length]conversion
    size_t start = i++;
    std::string spec = "%";
    while (i < fmt_text.size() && std::strchr("-+ #0", fmt_text[i])) spec += fmt_text[i++];
    auto number = [&] {
      if (i < fmt_text.size() && fmt_text[i] == '*') {
        uint64_t v;
        if (!next_arg(4, v)) return false;
        spec += std::to_string(int32_t(v));
        ++count;
        ++i;
      }
      while (i < fmt_text.size() && std::isdigit(static_cast<unsigned char>(fmt_text[i]))) spec += fmt_text[i++];
      return true;
    };
    if (!number()) return -1;
    if (i < fmt_text.size() && fmt_text[i] == '.') {
      spec += fmt_text[i++];
      if (!number()) return -1;
    }
    bool wide = false;
    while (i < fmt_text.size() && std::strchr("hlLqjzt", fmt_text[i])) {
      wide |= std::strchr("lLqjzt", fmt_text[i]) != nullptr;
      ++i;
    }
    if (i >= fmt_text.size()) { out += fmt_text.substr(start); break; }
    char conv = fmt_text[i];
    uint64_t v = 0;
    ++count;
    switch (conv) {
      case 'd': case 'i':
        if (!next_arg(wide ? 8 : 4, v)) return -1;
        std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), wide ? (long long)int64_t(v) : (long long)int32_t(v));
        break;
      case 'u': case 'x': case 'X': case 'o': {
        if (!next_arg(wide ? 8 : 4, v)) return -1;
        std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), (unsigned long long)(wide ? v : uint32_t(v)));
        break;
      }
      case 'c':
        if (!next_arg(4, v)) return -1;
        std::snprintf(buf, sizeof buf, (spec + "c").c_str(), int(int32_t(v)));
        break;
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
        if (!next_arg(8, v)) return -1;
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), std::bit_cast<double>(v));
        break;
      case 'p':
        if (!next_arg(8, v)) return -1;
        std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
        break;
      case 's': {
        if (!next_arg(8, v)) return -1;
        std::string s;
        if (v == 0) s = "(null)";
        else if (!read_string(c, lane, v, s)) return -1;
        std::snprintf(buf, sizeof buf, (spec + "s").c_str(), s.c_str());
        break;
      }
      default:  // %n and unknown conversions print as written, as the device does not support them
        --count;
        out += fmt_text.substr(start, i - start + 1);
        continue;
    }
    out += buf;
  }
  return count;
}

void do_printf(const ptx::Instr& in, WarpContext& c) {
  WorkerState& W = *c.W;
  each_lane(c.mask, [&](uint32_t lane) {
    if (c.warp->status != WarpStatus::Ready) return;
    uint64_t fmt_addr = param_value(c, in.ops[1], lane, 8);
    uint64_t args = param_value(c, in.ops[2], lane, 8);
    std::string fmt_text, text;
    int result = -1;
    if (read_string(c, lane, fmt_addr, fmt_text)) result = format_printf(c, lane, fmt_text, args, text);
    if (result < 0) return;  // a bad pointer faulted
    if (W.printf_bytes + text.size() > LaunchResult::kPrintfLimitBytes) {
      ++W.printf_dropped;
    } else {
      W.printf_bytes += text.size();
      W.printf_lines.push_back({c.B->linear, c.warp->index, lane, c.warp->steps, std::move(text)});
    }
    if (in.ops[0].kind == ptx::OperandKind::Addr) {
      uint32_t r = uint32_t(result);
      Access a;
      a.where = ptx::Space::Local;
      a.bytes = 4;
      a.addr[lane] = uint64_t(in.ops[0].imm);
      if (resolve(c, a, 1u << lane, true, 4)) std::memcpy(a.host[lane], &r, 4);
    }
  });
}

void do_assertfail(const ptx::Instr& in, WarpContext& c) {
  uint32_t lane = uint32_t(std::countr_zero(c.mask));
  std::string message, file, function;
  if (!read_string(c, lane, param_value(c, in.ops[1], lane, 8), message)) return;
  if (!read_string(c, lane, param_value(c, in.ops[2], lane, 8), file)) return;
  uint32_t line = uint32_t(param_value(c, in.ops[3], lane, 4));
  if (!read_string(c, lane, param_value(c, in.ops[4], lane, 8), function)) return;
  // The device's own words (Assertion `expr` failed, in which function); the
  // error's file and line come from the .loc table, its block and thread
  // name the offender. Without line info the message carries file:line.
  const bool has_loc = c.L->kernel->code[c.pc].loc != 0;
  raise_fault(c, "assert",
              fmt::format("{}Assertion `{}` failed in {} ({} thread{} of this warp)",
                          has_loc ? "" : fmt::format("{}:{}: ", file, line), message, function, lanes_in(c.mask),
                          lanes_in(c.mask) == 1 ? "" : "s"),
              lane);
}

}  // namespace

void exec_device_call(const ptx::Instr& in, WarpContext& c) {
  switch (ptx::DeviceCall(in.mode)) {
    case ptx::DeviceCall::Vprintf: do_printf(in, c); break;
    case ptx::DeviceCall::Assertfail: do_assertfail(in, c); break;
    default: break;
  }
}

}  // namespace lab::sim
