// lab/ptx/lexer.cpp: the PTX tokenizer. One linear pass over the text.
#include "lab/ptx/lexer.h"

#include "lab/ptx/parser.h"

namespace lab::ptx::detail {
namespace {

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '%' || c == '.';
}

// A decimal float such as 1.5e-3 keeps its exponent sign inside the word.
bool is_decimal_exponent_word(std::string_view w) {
  if (w.empty() || w[0] < '0' || w[0] > '9') return false;
  if (w.size() > 1 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X' || w[1] == 'f' || w[1] == 'F' ||
                                      w[1] == 'd' || w[1] == 'D'))
    return false;
  char last = w.back();
  return last == 'e' || last == 'E';
}

}  // namespace

std::vector<Token> tokenize(std::string_view text, std::string_view origin) {
  std::vector<Token> out;
  out.reserve(text.size() / 5 + 16);
  uint32_t line = 1;
  size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '\n') { ++line; ++i; continue; }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') { ++i; continue; }
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      uint32_t start = line;
      i += 2;
      while (i + 1 < n && !(text[i] == '*' && text[i + 1] == '/')) {
        if (text[i] == '\n') ++line;
        ++i;
      }
      if (i + 1 >= n)
        throw ParseError(std::string(origin) + ":" + std::to_string(start) +
                             ": unterminated /* comment (add the closing */)",
                         std::string(origin), start, "", "");
      i += 2;
      continue;
    }
    if (c == '"') {
      size_t s = ++i;
      while (i < n && text[i] != '"' && text[i] != '\n') {
        if (text[i] == '\\' && i + 1 < n) ++i;
        ++i;
      }
      if (i >= n || text[i] != '"')
        throw ParseError(std::string(origin) + ":" + std::to_string(line) +
                             ": unterminated string literal",
                         std::string(origin), line, "", "");
      out.push_back({Tok::String, 0, line, text.substr(s, i - s)});
      ++i;
      continue;
    }
    if (is_word_char(c)) {
      size_t s = i;
      for (;;) {
        while (i < n && is_word_char(text[i])) ++i;
        // `.L2::128B`, `.shared::cta`: scope qualifiers stay inside the word.
        if (i + 2 < n && text[i] == ':' && text[i + 1] == ':' && is_word_char(text[i + 2])) {
          i += 2;
          continue;
        }
        if (i + 1 < n && (text[i] == '-' || text[i] == '+') && text[i + 1] >= '0' &&
            text[i + 1] <= '9' && is_decimal_exponent_word(text.substr(s, i - s))) {
          ++i;
          continue;
        }
        break;
      }
      out.push_back({Tok::Word, 0, line, text.substr(s, i - s)});
      continue;
    }
    out.push_back({Tok::Punct, c, line, text.substr(i, 1)});
    ++i;
  }
  out.push_back({Tok::End, 0, line, {}});
  return out;
}

}  // namespace lab::ptx::detail
