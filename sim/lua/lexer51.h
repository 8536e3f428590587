// The tokenizer of adapt_source51 (source51.cc): Lua source text as the
// 5.1 lexer (llex.c of 5.1.5) splits it into names, keywords, numbers,
// short and long strings and operators, comments skipped. One thing it
// does beyond splitting: an unknown escape in a short string ("\q",
// "\x41", "\u{41}", "\z") is the escaped character in 5.1, so it becomes
// an Edit that drops the backslash. Also the token predicates and the
// zero-constant pass (zeros51.cc) adapt_source51 uses. Internal to sim/lua.
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

// A token a prefix expression can end with, so that a following '(',
// '{', string or '[' continues it (a call or an index).
inline bool ends_prefix51(const std::vector<Token>& toks, size_t k) {
  const Token& t = toks[k];
  const bool op = t.kind == Tok::kOp;
  return t.kind == Tok::kName || t.kind == Tok::kString ||
         (op && (t.text == ")" || t.text == "]" || t.text == "}"));
}
// A token a value can end with (so a '-' after it is binary).
inline bool ends_value51(const std::vector<Token>& toks, size_t k) {
  const Token& t = toks[k];
  const bool kw = t.kind == Tok::kKeyword;
  return ends_prefix51(toks, k) || t.kind == Tok::kNumber ||
         (t.kind == Tok::kOp && t.text == "...") ||
         (kw && (t.text == "nil" || t.text == "true" || t.text == "false" || t.text == "end"));
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

// ---- zeros51.cc -------------------------------------------------------------

struct ZeroEdits {
  std::vector<std::string> text;  // at a span's first token: what the span becomes
  std::vector<size_t> last;       // at a span's first token: its last token
  std::vector<bool> covered;      // every token of a replaced span
};

// Lua 5.1's shared zero constant (zeros51.cc has the rules): per function
// body, the zero constants (numerals and folded constant expressions)
// whose sign differs from the body's first zero constant, as edits of
// their whole span to that zero ("0.0" or "(-0.0)").
ZeroEdits zero_constants51(const std::vector<Token>& toks);

}  // namespace redsim::sim::lua
