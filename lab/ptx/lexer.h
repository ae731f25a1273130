// lab/ptx/lexer.h: PTX text -> tokens (internal to the parser).
//
// A token is a word (identifiers, opcodes with their dotted modifiers,
// registers, directives, numbers), a string literal, or one punctuation
// character. Comments are dropped. Every token carries its PTX line.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace lab::ptx::detail {

enum class Tok : uint8_t { Word, String, Punct, End };

struct Token {
  Tok kind = Tok::End;
  char punct = 0;          // for Punct
  uint32_t line = 0;
  std::string_view text;   // Word: the word; String: contents without quotes
};

// Throws ParseError (origin, line) for an unterminated comment or string.
std::vector<Token> tokenize(std::string_view text, std::string_view origin);

}  // namespace lab::ptx::detail
