// Lua 5.1 source rules on top of the 5.4 parser, found by one lexical pass:
//
// - An unknown escape in a short string is the escaped character in 5.1
//   ("\q" is "q", "\x41" is "x41"); 5.4 rejects or reinterprets it. The
//   backslash is dropped before 5.4 compiles the code.
// - Operators that exist only in 5.3+ (//, &, |, ~ alone, <<, >>, ::) are
//   syntax errors in 5.1. A script using them must fail here as it fails
//   on Redis, not run. The message is 5.1's most common one for them,
//   "unexpected symbol near '<first char>'"; 5.1 may word it differently
//   depending on the statement around it.
//
// Not covered: goto and <const>/<close> (5.4 keywords / attributes).
#include <string>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }

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

class Scanner {
 public:
  explicit Scanner(std::string_view src) : src_(src) {}

  Source51 run() {
    Source51 out;
    while (i_ < src_.size()) {
      char c = src_[i_];
      if (c == '\n' || c == '\r') {
        newline();
      } else if (c == '-' && peek(1) == '-') {
        i_ += 2;
        size_t level = 0;
        if (long_bracket(&level)) {
          skip_long(level);
        } else {
          while (i_ < src_.size() && src_[i_] != '\n' && src_[i_] != '\r') ++i_;
        }
      } else if (c == '[') {
        size_t level = 0;
        if (long_bracket(&level)) {
          skip_long(level);
        } else {
          ++i_;
        }
      } else if (c == '"' || c == '\'') {
        short_string(c);
      } else if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
        number();
      } else if (is_name_char(c)) {
        while (i_ < src_.size() && is_name_char(src_[i_])) ++i_;
      } else {
        if (out.error.empty()) out.error = operator_error(c);
        ++i_;
      }
    }
    if (!dropped_.empty()) {
      // Rebuild the code without the dropped backslashes.
      std::string rebuilt;
      rebuilt.reserve(src_.size());
      size_t from = 0;
      for (size_t at : dropped_) {
        rebuilt.append(src_.substr(from, at - from));
        from = at + 1;
      }
      rebuilt.append(src_.substr(from));
      out.code = std::move(rebuilt);
    } else {
      out.code.assign(src_);
    }
    return out;
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

  void short_string(char quote) {
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
        dropped_.push_back(i_);  // 5.1 reads "\q" as "q"
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

  std::string operator_error(char c) const {
    bool bad = false;
    switch (c) {
      case '/':
        bad = peek(1) == '/';
        break;
      case '&':
      case '|':
        bad = true;
        break;
      case '~':
        bad = peek(1) != '=';
        break;
      case '<':
        bad = peek(1) == '<';
        break;
      case '>':
        bad = peek(1) == '>';
        break;
      case ':':
        bad = peek(1) == ':';
        break;
      default:
        break;
    }
    if (!bad) return {};
    return "user_script:" + std::to_string(line_) + ": unexpected symbol near '" + c + "'";
  }

  std::string_view src_;
  size_t i_ = 0;
  int line_ = 1;
  std::vector<size_t> dropped_;
};

}  // namespace

Source51 adapt_source51(std::string_view code) { return Scanner(code).run(); }

}  // namespace redsim::sim::lua
