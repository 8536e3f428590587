// Lua 5.1 source rules on top of the 5.4 parser: a small tokenizer of our
// own (names, numbers, short strings, long strings, comments, operators)
// runs over every script body before 5.4 compiles it. It does two things.
//
// 1. Edits that make 5.4 read the text as 5.1 read it:
//    - An unknown escape in a short string is the escaped character in 5.1
//      ("\q" is "q", "\x41" is "x41", "\u{41}" is "u{41}", "\z" is "z");
//      the backslash is dropped.
//    - An integer literal of 2^32 or more becomes a float literal (5.1 has
//      only doubles): 4294967296*4294967296 is 1.8446744073709552e+19, not
//      5.4's wrapped integer 0; a hex literal past 2^64 keeps its value.
//      Below 2^32 literals stay 5.4 integers, so that `..` prints them as
//      5.1 does ("3", where a 5.4 float would print "3.0").
//    - An integer literal 0 right after `%` becomes 0.0: 1%0 is nan, as in
//      5.1, not 5.4's "attempt to perform 'n%%0'".
//
// 2. Syntax 5.1 does not have, refused with the message redis-server 7.0.15
//    gives (checked on it): `//`, `<<`, `>>` ("unexpected symbol near '/'"),
//    `&`, `|`, `~` (after an expression the statement ends there, so the
//    parser expects what closes it: "'<eof>' expected near '&'" after a
//    return, "')' expected near '|'" inside parentheses, "'then' expected
//    near '&'" in an if ...; elsewhere "unexpected symbol near '~'"), labels
//    `::x::` ("unexpected symbol near ':'"), `goto x` (a name in 5.1: "'='
//    expected near 'x'"), and the attributes of `local x <const>` /
//    `<close>` ("unexpected symbol near '<'"). 5.1's check_match wording
//    "(to close 'if' at line 3)" is used when the opener is on another line.
//
// Not covered: `goto` used as a variable name (5.1 allows it, 5.4 does not
// compile it); a runtime `x % 0` with an integer zero still raises; integer
// arithmetic on values below 2^32 that overflows 2^63 still wraps (5.4's VM
// cannot be changed from outside).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// 5.1's escapes after a backslash (digits start a \ddd escape).
bool valid_escape51(char c) {
  switch (c) {
    case 'a':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
    case 'v':
    case '\\':
    case '"':
    case '\'':
    case '\n':
    case '\r':
      return true;
    default:
      return is_digit(c);
  }
}

enum class Tok { kName, kKeyword, kNumber, kString, kOp, kEof };

struct Token {
  Tok kind = Tok::kEof;
  std::string text;  // the name, keyword, operator; a number's source text
  size_t offset = 0;
  int line = 1;
};

bool is_keyword(std::string_view s) {
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

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  // The tokens of the whole body; unknown-escape edits land in `edits`.
  std::vector<Token> run(std::vector<Edit>& edits) {
    std::vector<Token> out;
    for (;;) {
      Token t = next(edits);
      bool eof = t.kind == Tok::kEof;
      out.push_back(std::move(t));
      if (eof) return out;
    }
  }

 private:
  char peek(size_t ahead) const { return i_ + ahead < src_.size() ? src_[i_ + ahead] : '\0'; }

  void newline() {
    // "\r\n" and "\n\r" count once, as Lua's lexer counts them.
    char c = src_[i_++];
    if (i_ < src_.size() && (src_[i_] == '\n' || src_[i_] == '\r') && src_[i_] != c) ++i_;
    ++line_;
  }

  // At '[': true for "[[" or "[=*[", with *level the number of '='.
  bool long_bracket(size_t* level) {
    size_t j = i_;
    if (j >= src_.size() || src_[j] != '[') return false;
    ++j;
    size_t eq = 0;
    while (j < src_.size() && src_[j] == '=') {
      ++eq;
      ++j;
    }
    if (j >= src_.size() || src_[j] != '[') return false;
    *level = eq;
    i_ = j + 1;
    return true;
  }

  void skip_long(size_t level) {
    while (i_ < src_.size()) {
      char c = src_[i_];
      if (c == '\n' || c == '\r') {
        newline();
        continue;
      }
      if (c == ']') {
        size_t j = i_ + 1;
        size_t eq = 0;
        while (j < src_.size() && src_[j] == '=') {
          ++eq;
          ++j;
        }
        if (eq == level && j < src_.size() && src_[j] == ']') {
          i_ = j + 1;
          return;
        }
      }
      ++i_;
    }
  }

  void short_string(char quote, std::vector<Edit>& edits) {
    ++i_;
    while (i_ < src_.size()) {
      char c = src_[i_];
      if (c == quote) {
        ++i_;
        return;
      }
      if (c == '\n' || c == '\r') return;  // unfinished: the parser reports it
      if (c == '\\' && i_ + 1 < src_.size()) {
        char e = src_[i_ + 1];
        if (valid_escape51(e)) {
          if (e == '\n' || e == '\r') {
            ++i_;
            newline();
          } else {
            i_ += 2;
          }
          continue;
        }
        edits.push_back({i_, 1, {}});  // 5.1 reads "\q" as "q"
        ++i_;
        continue;
      }
      ++i_;
    }
  }

  void number() {
    while (i_ < src_.size()) {
      char c = src_[i_];
      if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') && (peek(1) == '+' || peek(1) == '-')) {
        i_ += 2;
      } else if (is_name_char(c) || c == '.') {
        ++i_;
      } else {
        break;
      }
    }
  }

  Token next(std::vector<Edit>& edits) {
    for (;;) {
      if (i_ >= src_.size()) return {Tok::kEof, "<eof>", i_, line_};
      char c = src_[i_];
      if (c == '\n' || c == '\r') {
        newline();
      } else if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
        ++i_;
      } else if (c == '-' && peek(1) == '-') {
        i_ += 2;
        size_t level = 0;
        if (long_bracket(&level)) {
          skip_long(level);
        } else {
          while (i_ < src_.size() && src_[i_] != '\n' && src_[i_] != '\r') ++i_;
        }
      } else {
        break;
      }
    }
    Token t;
    t.offset = i_;
    t.line = line_;
    char c = src_[i_];
    size_t level = 0;
    if (c == '[' && long_bracket(&level)) {
      skip_long(level);
      t.kind = Tok::kString;
    } else if (c == '"' || c == '\'') {
      short_string(c, edits);
      t.kind = Tok::kString;
    } else if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
      number();
      t.kind = Tok::kNumber;
      t.text.assign(src_.substr(t.offset, i_ - t.offset));
    } else if (is_name_start(c)) {
      while (i_ < src_.size() && is_name_char(src_[i_])) ++i_;
      t.text.assign(src_.substr(t.offset, i_ - t.offset));
      t.kind = is_keyword(t.text) ? Tok::kKeyword : Tok::kName;
    } else {
      t.kind = Tok::kOp;
      static constexpr std::string_view kTwo[] = {"==", "~=", "<=", ">=", "//",
                                                  "<<", ">>", "::", ".."};
      std::string_view rest = src_.substr(i_);
      if (rest.substr(0, 3) == "...") {
        t.text = "...";
      } else {
        t.text.assign(1, c);
        for (std::string_view two : kTwo) {
          if (rest.substr(0, 2) == two) t.text.assign(two);
        }
      }
      i_ += t.text.size();
    }
    return t;
  }

  std::string_view src_;
  size_t i_ = 0;
  int line_ = 1;
};

// Decimal or hex integer literal without fraction or exponent: its value
// (as strtod reads it, which is what 5.1 does), else false.
bool integer_literal(const std::string& text, double* value) {
  bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  for (size_t k = hex ? 2 : 0; k < text.size(); ++k) {
    if (hex ? !is_hex(text[k]) : !is_digit(text[k])) return false;
  }
  *value = std::strtod(text.c_str(), nullptr);
  return true;
}

std::string float_literal(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  std::string s(buf);
  if (std::isinf(value)) return "1e999";
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// The blocks and brackets open at a token, for 5.1's "'x' expected" texts.
struct Frame {
  enum Kind { kTop, kParen, kBracket, kBrace, kBlock, kCond } kind;
  std::string opener;  // "function", "if", "while", "(" ...
  std::string closer;  // what 5.1 expects: "end", "until", ")", "then", "do" ...
  int line;
  bool returned = false;  // a return statement was read in this block
};

class Checker {
 public:
  explicit Checker(const std::vector<Token>& toks) : toks_(toks) {}

  // The first 5.1 syntax error (empty if none), with the line it is on.
  std::string run(int* line) {
    frames_.push_back({Frame::kTop, "", "<eof>", 1});
    bool in_local_names = false;
    for (size_t k = 0; k + 1 < toks_.size(); ++k) {
      const Token& t = toks_[k];
      const Token& n = toks_[k + 1];
      const Token* prev = k > 0 ? &toks_[k - 1] : nullptr;
      *line = t.line;
      current_line_ = t.line;
      if (t.kind == Tok::kOp) {
        const std::string& op = t.text;
        if (op == "//" || op == "<<" || op == ">>") {
          return "unexpected symbol near '" + op.substr(1) + "'";
        }
        if (op == "::") return "unexpected symbol near ':'";
        if (op == "<" && in_local_names && prev != nullptr && prev->kind == Tok::kName) {
          return "unexpected symbol near '<'";
        }
        if (op == "&" || op == "|" || op == "~") {
          if (prev != nullptr && ends_expression(*prev)) return after_expression(op);
          return "unexpected symbol near '" + op + "'";
        }
        if (op == "(" || op == "[" || op == "{") {
          Frame::Kind kind = op == "("   ? Frame::kParen
                             : op == "[" ? Frame::kBracket
                                         : Frame::kBrace;
          frames_.push_back({kind, op, op == "(" ? ")" : op == "[" ? "]" : "}", t.line});
        } else if (op == ")" || op == "]" || op == "}") {
          pop_if(op == ")" ? Frame::kParen : op == "]" ? Frame::kBracket : Frame::kBrace);
        }
        if (op != ",") in_local_names = false;
        continue;
      }
      if (t.kind == Tok::kName) {
        // 5.1: `goto` is a name, `goto x` an assignment missing its '='.
        if (t.text == "goto" && n.kind == Tok::kName && !continues_expression(prev)) {
          *line = n.line;
          return "'=' expected near '" + n.text + "'";
        }
        continue;
      }
      if (t.kind != Tok::kKeyword) {
        in_local_names = false;
        continue;
      }
      const std::string& w = t.text;
      in_local_names = w == "local" && !(n.kind == Tok::kKeyword && n.text == "function");
      if (w == "function") {
        frames_.push_back({Frame::kBlock, "function", "end", t.line});
      } else if (w == "if") {
        frames_.push_back({Frame::kCond, "if", "then", t.line});
      } else if (w == "elseif") {
        if (frames_.back().kind == Frame::kBlock && frames_.back().opener == "if") {
          frames_.back().kind = Frame::kCond;
          frames_.back().closer = "then";
          frames_.back().returned = false;
        }
      } else if (w == "else") {
        frames_.back().returned = false;
      } else if (w == "then") {
        if (frames_.back().kind == Frame::kCond && frames_.back().closer == "then") {
          frames_.back().kind = Frame::kBlock;
          frames_.back().closer = "end";
        }
      } else if (w == "while" || w == "for") {
        frames_.push_back({Frame::kCond, w, "do", t.line});
      } else if (w == "do") {
        if (frames_.back().kind == Frame::kCond && frames_.back().closer == "do") {
          frames_.back().kind = Frame::kBlock;
          frames_.back().closer = "end";
        } else {
          frames_.push_back({Frame::kBlock, "do", "end", t.line});
        }
      } else if (w == "repeat") {
        frames_.push_back({Frame::kBlock, "repeat", "until", t.line});
      } else if (w == "end" || w == "until") {
        pop_if(Frame::kBlock);
      } else if (w == "return") {
        frames_.back().returned = true;
      }
    }
    return {};
  }

 private:
  static bool ends_expression(const Token& t) {
    switch (t.kind) {
      case Tok::kName:
      case Tok::kNumber:
      case Tok::kString:
        return true;
      case Tok::kKeyword:
        return t.text == "true" || t.text == "false" || t.text == "nil" || t.text == "end";
      case Tok::kOp:
        return t.text == ")" || t.text == "]" || t.text == "}" || t.text == "...";
      case Tok::kEof:
        return false;
    }
    return false;
  }

  // True when the token before a name makes that name part of an
  // expression (x.goto, a = goto), not the start of a statement.
  static bool continues_expression(const Token* prev) {
    if (prev == nullptr) return false;
    if (prev->kind == Tok::kOp) {
      return prev->text != ";" && prev->text != ")" && prev->text != "]" && prev->text != "}";
    }
    if (prev->kind == Tok::kKeyword) {
      static constexpr std::string_view kExpr[] = {"and",   "or", "not",    "return", "local", "in",
                                                   "until", "if", "elseif", "while",  "for"};
      for (std::string_view w : kExpr) {
        if (prev->text == w) return true;
      }
    }
    return false;
  }

  void pop_if(Frame::Kind kind) {
    if (frames_.size() > 1 && frames_.back().kind == kind) frames_.pop_back();
  }

  // 5.1 after a complete expression meets a token that is no operator: the
  // expression (and maybe the statement) ends there and the parser checks
  // for what must follow.
  std::string after_expression(const std::string& op) const {
    const Frame& f = frames_.back();
    std::string near = " near '" + op + "'";
    switch (f.kind) {
      case Frame::kBracket:
      case Frame::kCond:
        return "'" + f.closer + "' expected" + near;
      case Frame::kParen:
      case Frame::kBrace:
        return match(f, near);
      case Frame::kTop:
        if (f.returned) return "'<eof>' expected" + near;
        break;
      case Frame::kBlock:
        if (f.returned) return match(f, near);
        break;
    }
    return "unexpected symbol" + near;
  }

  // 5.1's check_match wording.
  std::string match(const Frame& f, const std::string& near) const {
    std::string msg = "'" + f.closer + "' expected";
    if (f.line != current_line_) {
      msg += " (to close '" + f.opener + "' at line " + std::to_string(f.line) + ")";
    }
    return msg + near;
  }

  const std::vector<Token>& toks_;
  std::vector<Frame> frames_;
  int current_line_ = 1;
};

}  // namespace

Source51 adapt_source51(std::string_view code) {
  Source51 out;
  std::vector<Edit> edits;
  std::vector<Token> toks = Lexer(code).run(edits);

  // Number literal edits, in source order among the escape edits.
  for (size_t k = 0; k < toks.size(); ++k) {
    const Token& t = toks[k];
    if (t.kind != Tok::kNumber) continue;
    double value = 0;
    if (!integer_literal(t.text, &value)) continue;
    bool after_mod = k > 0 && toks[k - 1].kind == Tok::kOp && toks[k - 1].text == "%";
    if (value >= 4294967296.0) {
      edits.push_back({t.offset, t.text.size(), float_literal(value)});
    } else if (value == 0 && after_mod) {
      edits.push_back({t.offset, t.text.size(), "0.0"});
    }
  }

  int line = 0;
  std::string error = Checker(toks).run(&line);
  if (!error.empty()) {
    out.error = "user_script:" + std::to_string(line) + ": " + error;
    out.error_line = line;
  }

  if (edits.empty()) {
    out.code.assign(code);
    return out;
  }
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.offset < b.offset; });
  out.code.reserve(code.size() + 16);
  size_t from = 0;
  for (const Edit& e : edits) {
    out.code.append(code.substr(from, e.offset - from));
    out.code.append(e.text);
    from = e.offset + e.length;
  }
  out.code.append(code.substr(from));
  return out;
}

}  // namespace redsim::sim::lua
