// The tokenizer of adapt_source51: see lexer51.h.
#include "sim/lua/lexer51.h"

#include <string>
#include <string_view>
#include <vector>

namespace redsim::sim::lua {
namespace {

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
      if (i_ >= src_.size()) return {Tok::kEof, "<eof>", i_, i_, line_};
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
    t.end = i_;
    return t;
  }

  std::string_view src_;
  size_t i_ = 0;
  int line_ = 1;
};

}  // namespace

std::vector<Token> tokenize51(std::string_view src, std::vector<Edit>& edits) {
  return Lexer(src).run(edits);
}

}  // namespace redsim::sim::lua
