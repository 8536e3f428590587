// The tokenizer of adapt_source51 (source51.cc): Lua source text as the
// 5.1 lexer (llex.c of 5.1.5) splits it into names, keywords, numbers,
// short and long strings and operators, comments skipped. One thing it
// does beyond splitting: an unknown escape in a short string ("\q",
// "\x41", "\u{41}", "\z") is the escaped character in 5.1, so it becomes
// an Edit that drops the backslash. Internal to sim/lua.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace redsim::sim::lua {

inline bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }
inline bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

enum class Tok { kName, kKeyword, kNumber, kString, kOp, kEof };

struct Token {
  Tok kind = Tok::kEof;
  std::string text;  // the name, keyword, operator; a number's source text
  size_t offset = 0;
  size_t end = 0;  // one past the token's last byte
  int line = 1;
};

inline bool is_keyword(std::string_view s) {
  static constexpr std::string_view kWords[] = {
      "and", "break",    "do",     "else", "elseif", "end",   "false",
      "for", "function", "if",     "in",   "local",  "nil",   "not",
      "or",  "repeat",   "return", "then", "true",   "until", "while"};
  for (std::string_view w : kWords) {
    if (s == w) return true;
  }
  return false;
}

struct Edit {
  size_t offset;
  size_t length;
  std::string text;
};

// The tokens of a whole script body, the last one kEof; the unknown-escape
// edits (sorted by offset) are appended to `edits`. Never fails: what 5.1
// would refuse (an unfinished string) is tokenized as far as it goes and
// left for the compiler to report.
std::vector<Token> tokenize51(std::string_view src, std::vector<Edit>& edits);

}  // namespace redsim::sim::lua
