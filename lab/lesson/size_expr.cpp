// lab/lesson/size_expr.cpp: recursive-descent evaluator for size expressions.
#include "lab/lesson/size_expr.h"

#include <cctype>

namespace lab::lesson {
namespace {

struct Parser {
  const std::string& s;
  const SizeVars& vars;
  size_t i = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw SizeExprError("size expression \"" + s + "\": " + what);
  }
  void skip() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  bool eat(char c) {
    skip();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  int64_t expr() {
    int64_t v = term();
    for (;;) {
      if (eat('+')) v += term();
      else if (eat('-')) v -= term();
      else return v;
    }
  }
  int64_t term() {
    int64_t v = unary();
    for (;;) {
      if (eat('*')) {
        v *= unary();
      } else if (eat('/')) {
        int64_t d = unary();
        if (d == 0) fail("division by zero");
        v /= d;
      } else if (eat('%')) {
        int64_t d = unary();
        if (d == 0) fail("division by zero");
        v %= d;
      } else {
        return v;
      }
    }
  }
  int64_t unary() {
    if (eat('-')) return -unary();
    return primary();
  }
  int64_t primary() {
    skip();
    if (i >= s.size()) fail("unexpected end");
    if (eat('(')) {
      int64_t v = expr();
      if (!eat(')')) fail("missing ')'");
      return v;
    }
    char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) v = v * 10 + (s[i++] - '0');
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t b = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      std::string name = s.substr(b, i - b);
      if (eat('(')) {
        int64_t a = expr();
        if (!eat(',')) fail(name + "() takes two arguments");
        int64_t b2 = expr();
        if (!eat(')')) fail("missing ')' after " + name + "(...)");
        if (name == "cdiv") {
          if (b2 == 0) fail("cdiv by zero");
          return (a + b2 - 1) / b2;
        }
        if (name == "min") return a < b2 ? a : b2;
        if (name == "max") return a > b2 ? a : b2;
        fail("unknown function '" + name + "' (known: cdiv, min, max)");
      }
      auto it = vars.find(name);
      if (it == vars.end()) fail("unknown size '" + name + "'");
      return it->second;
    }
    fail(std::string("unexpected '") + c + "'");
  }
};

}  // namespace

int64_t eval_size(const std::string& text, const SizeVars& vars) {
  Parser p{text, vars};
  int64_t v = p.expr();
  p.skip();
  if (p.i != text.size()) p.fail("unexpected '" + text.substr(p.i) + "'");
  return v;
}

std::string validate_size(const std::string& text, const SizeVars& sample) {
  try {
    SizeVars ones;
    for (auto& [k, v] : sample) ones[k] = v == 0 ? 1 : v;
    eval_size(text, ones);
    return "";
  } catch (const SizeExprError& e) {
    return e.what();
  }
}

}  // namespace lab::lesson
