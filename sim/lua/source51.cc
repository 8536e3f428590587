// Lua 5.1 source rules on top of the 5.4 parser: a small tokenizer of our
// own (lexer51.h: names, numbers, short strings, long strings, comments, operators)
// runs over every script body before 5.4 compiles it. It does two things.
//
// 1. Edits that make 5.4 read the text as 5.1 read it:
//    - An unknown escape in a short string is the escaped character in 5.1
//      ("\q" is "q", "\x41" is "x41", "\u{41}" is "u{41}", "\z" is "z");
//      the backslash is dropped.
//    - Every number literal is a float literal (5.1 has only doubles), so
//      the VM's arithmetic is 5.1's: 4294967296*4294967296 and
//      65536*65536*65536*65536 are 1.8446744073709552e+19, not 5.4's
//      wrapped 0; x % 0 is nan, not "attempt to perform 'n%%0'"; -0 is -0.
//      A hex literal past 2^64 keeps its value.
//    - Since the VM's `..` prints an integral float as "3.0", every chain
//      `a .. b .. c` becomes kConcatName("names", a, b, c) (concat51.cc):
//      operands are found by a small precedence parser over the tokens
//      (arithmetic and unary operators bind tighter than `..`; comparison,
//      and, or, brackets and separators end an operand), and each lone
//      name is classified local / upvalue / global by tracking blocks and
//      function bodies, so errors name operands as 5.1 does. A chain whose
//      operands it does not understand (a function literal) stays the VM's.
//    - `goto` used as a name (5.1 has no goto statement) becomes kGotoName;
//      `t.goto` and `{goto = 1}` index the string "goto"; `obj:goto(...)`
//      becomes kSelfCallName(obj, "goto", ...) and `function t:goto(a)`
//      becomes `t["goto"] = function(self, a)`.
//    - `#x` becomes kLenName("name", x) (numbers51.cc): the length as a
//      double (the number model, internal.h), without a table's __len,
//      which 5.1 never calls; errors name the operand as 5.1 does. In a
//      script that never writes "len" (so has no __len), `(#x+0.0)`.
//    - `a % b` becomes kModName("names", a, b): 5.1's a - floor(a/b)*b
//      (the VM's float modulo is fmod based).
//    - Zero constants take the sign of the first zero constant of their
//      function body, as 5.1's shared constant does (zeros51.cc),
//      zeros folded from constant expressions included.
//    Without the number model (for 5.4's compile error messages) only
//    integer literals of 2^32 or more become floats and a literal 0 after
//    `%` becomes 0.0.
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
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/lua/internal.h"
#include "sim/lua/lexer51.h"

namespace redsim::sim::lua {
namespace {

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

// ---- The number model: `..` chains -------------------------------------------

// Every number literal is a float (5.1 has only doubles), so the VM's own
// arithmetic is 5.1's. The VM's `..` would print an integral float as "5.0";
// each chain `a .. b .. c` therefore becomes a call of the concat function
// (concat51 in sandbox.cc) that prints numbers as 5.1 does. Its first
// argument names the operands for 5.1's error text ("local 'x'", "global
// 'y'", "field 'z'", or nothing), separated by '|'.
class ConcatRewriter {
 public:
  ConcatRewriter(std::string_view src, const std::vector<Token>& toks)
      : src_(src), toks_(toks), match_(toks.size(), kNone) {
    std::vector<size_t> open;
    for (size_t k = 0; k < toks.size(); ++k) {
      if (toks[k].kind != Tok::kOp) continue;
      const std::string& op = toks[k].text;
      if (op == "(" || op == "[" || op == "{") {
        open.push_back(k);
      } else if ((op == ")" || op == "]" || op == "}") && !open.empty()) {
        const std::string& o = toks[open.back()].text;
        if ((o == "(" && op == ")") || (o == "[" && op == "]") || (o == "{" && op == "}")) {
          match_[k] = open.back();
          match_[open.back()] = k;
        }
        open.pop_back();
      }
    }
    classify_names();
  }

  // Appends the edits of every chain that parses; returns how many.
  int run(std::vector<Edit>& edits) {
    int chains = 0;
    std::vector<bool> seen(toks_.size(), false);
    for (size_t d = 1; d < toks_.size(); ++d) {
      if (seen[d] || !is_op(d, "..")) continue;
      seen[d] = true;
      size_t start = operand_before(d - 1);
      if (start == kNone) continue;
      std::vector<size_t> ops{d};
      std::vector<size_t> starts{start, d + 1};
      size_t e = operand_after(d + 1);
      while (e != kNone && is_op(e, "..")) {
        seen[e] = true;
        ops.push_back(e);
        starts.push_back(e + 1);
        e = operand_after(e + 1);
      }
      if (e == kNone) continue;
      std::string names;
      for (size_t i = 0; i < starts.size(); ++i) {
        if (i > 0) names += '|';
        size_t last = i + 1 < starts.size() ? ops[i] - 1 : e - 1;
        names += describe(starts[i], last);
      }
      edits.push_back({toks_[start].offset, 0, std::string(kConcatName) + "(\"" + names + "\", "});
      for (size_t op : ops) edits.push_back({toks_[op].offset, 2, ","});
      edits.push_back({toks_[e - 1].end, 0, ")"});
      ++chains;
    }
    return chains;
  }

  // `#x` gives a 5.4 integer; each becomes `(#x+0.0)`, a float as in 5.1
  // (one more VM instruction). `opens` are the "(" and `closes` the
  // "+0.0)", in the order that nests them inside any other insertion at
  // the same offset (see adapt_source51). An operand this pass does not
  // understand (a function literal) is left as it is.
  // `#x` becomes kLenName("name", x) (5.1's length: no __len for tables,
  // a double, the operand named in the error) when `helper`, else
  // `(#x+0.0)` (the VM's length as a double, errors named by the VM);
  // returns how many helper calls.
  int length_edits(bool helper, std::vector<Edit>& edits, std::vector<Edit>& opens,
                   std::vector<Edit>& closes) const {
    int count = 0;
    for (size_t k = toks_.size(); k-- > 0;) {
      if (!is_op(k, "#")) continue;
      size_t e = unary_end(k + 1);
      if (e == kNone || e == 0 || e <= k + 1) continue;
      if (!helper) {
        opens.push_back({toks_[k].offset, 0, "("});
        closes.push_back({toks_[e - 1].end, 0, "+0.0)"});
        continue;
      }
      edits.push_back(
          {toks_[k].offset, 1, std::string(kLenName) + "(\"" + describe(k + 1, e - 1) + "\", "});
      closes.push_back({toks_[e - 1].end, 0, ")"});
      ++count;
    }
    return count;
  }

  // `obj:goto(args)` (5.1 allows any name after ':') becomes
  // kSelfCallName(obj, "goto", args); `colon` is the ':' token. False when
  // the call is not one this pass understands.
  bool self_call_edits(size_t colon, std::vector<Edit>& edits, std::vector<Edit>& opens,
                       std::vector<Edit>& closes) const {
    if (colon == 0) return false;
    size_t start = primary_before(colon - 1);
    size_t a = colon + 2;  // the arguments
    if (start == kNone || a >= toks_.size()) return false;
    std::vector<Edit> mine;
    if (is_op(a, "(")) {
      if (match_[a] == kNone) return false;
      mine.push_back({toks_[a].offset, 1, is_op(a + 1, ")") ? "" : ", "});
    } else if (toks_[a].kind == Tok::kString || is_op(a, "{")) {
      size_t last = is_op(a, "{") ? match_[a] : a;
      if (last == kNone) return false;
      mine.push_back({toks_[a].offset, 0, ", "});
      closes.push_back({toks_[last].end, 0, ")"});
    } else {
      return false;
    }
    opens.push_back({toks_[start].offset, 0, std::string(kSelfCallName) + "("});
    edits.push_back({toks_[colon].offset, 1, ", \"" + toks_[colon + 1].text + "\""});
    edits.push_back({toks_[colon + 1].offset, toks_[colon + 1].end - toks_[colon + 1].offset, {}});
    edits.insert(edits.end(), mine.begin(), mine.end());
    return true;
  }

  // `a % b` becomes kModName("names", a, b): the VM's float modulo is 5.4's
  // (fmod based: -0 % 3 is -0, 2^32 % x keeps digits 5.1 loses); 5.1's is
  // a - floor(a/b)*b. The left operand is the multiplicative term before
  // the '%' (unary operators and `^` included, `*` `/` `%` to the left),
  // the right one the unary expression after it. Returns how many.
  int mod_edits(std::vector<Edit>& edits, std::vector<Edit>& opens,
                std::vector<Edit>& closes) const {
    int count = 0;
    for (size_t k = toks_.size(); k-- > 1;) {
      if (!is_op(k, "%")) continue;
      size_t start = term_before(k - 1);
      size_t e = unary_end(k + 1);
      if (start == kNone || e == kNone || e <= k + 1) continue;
      std::string names = describe(start, k - 1) + "|" + describe(k + 1, e - 1);
      opens.push_back({toks_[start].offset, 0, std::string(kModName) + "(\"" + names + "\", "});
      edits.push_back({toks_[k].offset, 1, ","});
      closes.push_back({toks_[e - 1].end, 0, ")"});
      ++count;
    }
    std::reverse(closes.end() - count, closes.end());  // inner (left) ones close first
    return count;
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  // One past the operand of a unary operator starting at i: more unary
  // operators, a suffixed primary or literal, and a `^` chain (which binds
  // tighter than the unary operators).
  size_t unary_end(size_t i) const {
    for (;;) {
      while (is_kw(i, "not") || is_op(i, "#") || is_op(i, "-")) ++i;
      if (i >= toks_.size()) return kNone;
      size_t e = primary_after(i);
      if (e == kNone || e >= toks_.size() || !is_op(e, "^")) return e;
      i = e + 1;
    }
  }

  bool is_op(size_t k, std::string_view op) const {
    return k < toks_.size() && toks_[k].kind == Tok::kOp && toks_[k].text == op;
  }
  bool is_kw(size_t k, std::string_view w) const {
    return k < toks_.size() && toks_[k].kind == Tok::kKeyword && toks_[k].text == w;
  }
  bool is_arith(size_t k) const {
    return is_op(k, "+") || is_op(k, "-") || is_op(k, "*") || is_op(k, "/") || is_op(k, "%") ||
           is_op(k, "^");
  }
  bool ends_prefix(size_t k) const { return ends_prefix51(toks_, k); }
  bool ends_value(size_t k) const { return ends_value51(toks_, k); }

  // Start of the suffixed primary expression or literal ending at j.
  size_t primary_before(size_t j) const {
    for (;;) {
      const Token& t = toks_[j];
      if (t.kind == Tok::kNumber || is_op(j, "...") || is_kw(j, "nil") || is_kw(j, "true") ||
          is_kw(j, "false")) {
        return j;
      }
      if (t.kind == Tok::kString) {
        if (j > 0 && ends_prefix(j - 1)) {
          --j;
          continue;
        }
        return j;
      }
      if (t.kind == Tok::kName) {
        if (j >= 2 && (is_op(j - 1, ".") || is_op(j - 1, ":"))) {
          j -= 2;
          continue;
        }
        return j;
      }
      if (is_op(j, ")") || is_op(j, "]") || is_op(j, "}")) {
        size_t m = match_[j];
        if (m == kNone) return kNone;
        if (m > 0 && ends_prefix(m - 1)) {
          j = m - 1;
          continue;
        }
        return is_op(j, "]") ? kNone : m;
      }
      return kNone;
    }
  }

  // Start of the multiplicative term ending at token j (the left operand of
  // a '%').
  size_t term_before(size_t j) const {
    for (;;) {
      size_t s = primary_before(j);
      if (s == kNone) return kNone;
      if (s >= 2 && is_op(s - 1, "^")) {  // a ^ b: b was the primary
        j = s - 2;
        continue;
      }
      while (s > 0 && (is_kw(s - 1, "not") || is_op(s - 1, "#") ||
                       (is_op(s - 1, "-") && (s < 2 || !ends_value(s - 2))))) {
        --s;
      }
      if (s >= 2 && (is_op(s - 1, "*") || is_op(s - 1, "/") || is_op(s - 1, "%"))) {
        j = s - 2;
        continue;
      }
      return s;
    }
  }

  // Start of the operand of `..` that ends at token j: operators binding
  // tighter than `..` (arithmetic, unary) included.
  size_t operand_before(size_t j) const {
    for (;;) {
      size_t s = primary_before(j);
      if (s == kNone) return kNone;
      while (s > 0 && (is_kw(s - 1, "not") || is_op(s - 1, "#") ||
                       (is_op(s - 1, "-") && (s < 2 || !ends_value(s - 2))))) {
        --s;
      }
      if (s >= 2 && is_arith(s - 1)) {
        j = s - 2;
        continue;
      }
      return s;
    }
  }

  // One past the suffixed primary or literal starting at i.
  size_t primary_after(size_t i) const {
    const Token& t = toks_[i];
    if (t.kind == Tok::kNumber || t.kind == Tok::kString || is_op(i, "...") || is_kw(i, "nil") ||
        is_kw(i, "true") || is_kw(i, "false")) {
      return i + 1;
    }
    if (is_op(i, "{")) return match_[i] == kNone ? kNone : match_[i] + 1;
    if (t.kind == Tok::kName) {
      ++i;
    } else if (is_op(i, "(")) {
      if (match_[i] == kNone) return kNone;
      i = match_[i] + 1;
    } else {
      return kNone;
    }
    for (;;) {
      if ((is_op(i, ".") || is_op(i, ":")) && i + 1 < toks_.size() &&
          toks_[i + 1].kind == Tok::kName) {
        bool method = is_op(i, ":");
        i += 2;
        if (!method) continue;
        if (i >= toks_.size()) return kNone;
        if (toks_[i].kind == Tok::kString) {
          ++i;
          continue;
        }
        if (!is_op(i, "(") && !is_op(i, "{")) return kNone;
      }
      if (is_op(i, "(") || is_op(i, "[") || is_op(i, "{")) {
        if (match_[i] == kNone) return kNone;
        i = match_[i] + 1;
      } else if (i < toks_.size() && toks_[i].kind == Tok::kString) {
        ++i;
      } else {
        return i;
      }
    }
  }

  size_t operand_after(size_t i) const {
    for (;;) {
      while (is_kw(i, "not") || is_op(i, "#") || is_op(i, "-")) ++i;
      if (i >= toks_.size()) return kNone;
      i = primary_after(i);
      if (i == kNone || i >= toks_.size()) return kNone;
      if (!is_arith(i)) return i;
      ++i;
    }
  }

  // 5.1's name of an operand in a concat error (lgetobjname): a lone name
  // is a local, an upvalue or a global; `x.k` and `x["k"]` are field 'k',
  // other indexes field '?'; anything else has no name.
  std::string describe(size_t first, size_t last) const {
    const Token& t = toks_[last];
    if (first == last && t.kind == Tok::kName) {
      const char* kind = kinds_[last] == 'l' ? "local" : kinds_[last] == 'u' ? "upvalue" : "global";
      return std::string(kind) + " '" + t.text + "'";
    }
    if (last > first && t.kind == Tok::kName && is_op(last - 1, ".")) {
      return "field '" + t.text + "'";
    }
    if (is_op(last, "]") && match_[last] != kNone && match_[last] > first) {
      size_t m = match_[last];
      if (m + 2 == last && toks_[m + 1].kind == Tok::kString) {
        const Token& key = toks_[m + 1];
        std::string_view body;
        char quote = src_[key.offset];
        if ((quote == '"' || quote == '\'') && key.end - key.offset >= 2) {
          body = src_.substr(key.offset + 1, key.end - key.offset - 2);
        }
        // 5.1 names a constant string key by its bytes (redis-server
        // 7.0.15: "field 'a b'", "field ''"). One with escapes (which would
        // need decoding here), a '"' (the names travel in a "..." literal)
        // or a '|' (their separator) stays '?'.
        bool quoted = (quote == '"' || quote == '\'') && key.end - key.offset >= 2;
        if (quoted && body.find_first_of("\\\"|") == std::string_view::npos) {
          return "field '" + std::string(body) + "'";
        }
      }
      return "field '?'";
    }
    return {};
  }

  // Marks each name token 'l' (a local of the current function), 'u' (a
  // local of an enclosing one) or 'g'. Locals are visible from the token
  // after their name (5.1 from the end of the statement: `local x = x ..`
  // differs).
  void classify_names() {
    kinds_.assign(toks_.size(), 0);
    struct Block {
      std::vector<std::string> names;
      bool awaiting_do = false;
      bool function_body = false;
    };
    std::vector<Block> blocks(1);
    std::vector<size_t> fn_base{0};
    auto declare = [&](size_t k) {
      if (k < toks_.size() && toks_[k].kind == Tok::kName)
        blocks.back().names.push_back(toks_[k].text);
    };
    auto pop = [&]() {
      if (blocks.size() <= 1) return;
      if (blocks.back().function_body && fn_base.size() > 1) fn_base.pop_back();
      blocks.pop_back();
    };
    for (size_t k = 0; k < toks_.size(); ++k) {
      const Token& t = toks_[k];
      if (t.kind == Tok::kName) {
        if (k > 0 && (is_op(k - 1, ".") || is_op(k - 1, ":"))) continue;
        char kind = 'g';
        for (size_t b = blocks.size(); b-- > 0 && kind == 'g';) {
          for (const std::string& n : blocks[b].names) {
            if (n == t.text) {
              kind = b >= fn_base.back() ? 'l' : 'u';
              break;
            }
          }
        }
        kinds_[k] = kind;
        continue;
      }
      if (t.kind != Tok::kKeyword) continue;
      const std::string& w = t.text;
      if (w == "local") {
        if (is_kw(k + 1, "function")) {
          declare(k + 2);
          continue;
        }
        for (size_t j = k + 1; j < toks_.size() && toks_[j].kind == Tok::kName; j += 2) {
          declare(j);
          if (!is_op(j + 1, ",")) break;
        }
      } else if (w == "function") {
        size_t j = k + 1;
        bool method = false;
        while (j < toks_.size() && toks_[j].kind == Tok::kName) {
          if (is_op(j + 1, ".") || is_op(j + 1, ":")) {
            method = is_op(j + 1, ":");
            j += 2;
          } else {
            ++j;
            break;
          }
        }
        Block body;
        body.function_body = true;
        if (method) body.names.push_back("self");
        if (is_op(j, "(")) {
          for (++j; j < toks_.size() && !is_op(j, ")"); ++j) {
            if (toks_[j].kind == Tok::kName) body.names.push_back(toks_[j].text);
          }
        }
        blocks.push_back(std::move(body));
        fn_base.push_back(blocks.size() - 1);
      } else if (w == "for") {
        Block b;
        b.awaiting_do = true;
        for (size_t j = k + 1; j < toks_.size() && toks_[j].kind == Tok::kName; j += 2) {
          b.names.push_back(toks_[j].text);
          if (!is_op(j + 1, ",")) break;
        }
        blocks.push_back(std::move(b));
      } else if (w == "while") {
        Block b;
        b.awaiting_do = true;
        blocks.push_back(std::move(b));
      } else if (w == "do") {
        if (blocks.back().awaiting_do) {
          blocks.back().awaiting_do = false;
        } else {
          blocks.emplace_back();
        }
      } else if (w == "if" || w == "repeat") {
        blocks.emplace_back();
      } else if (w == "elseif" || w == "else") {
        blocks.back().names.clear();
      } else if (w == "end" || w == "until") {
        pop();
      }
    }
  }

  std::string_view src_;
  const std::vector<Token>& toks_;
  std::vector<size_t> match_;
  std::vector<char> kinds_;
};

// True when the `goto` name at k ends the name of a function statement
// (`function a.b:goto(x)`), which 5.4 cannot parse; *method for ':'.
bool goto_function_name(const std::vector<Token>& toks, size_t k, bool* method) {
  auto sep = [&](size_t j) {
    return toks[j].kind == Tok::kOp && (toks[j].text == "." || toks[j].text == ":");
  };
  if (k < 2 || !sep(k - 1) || k + 1 >= toks.size() || toks[k + 1].text != "(") return false;
  *method = toks[k - 1].text == ":";
  size_t j = k;
  while (j >= 2 && sep(j - 1) && toks[j - 2].kind == Tok::kName) j -= 2;
  return j >= 1 && toks[j - 1].kind == Tok::kKeyword && toks[j - 1].text == "function";
}

}  // namespace

Source51 adapt_source51(std::string_view code, bool number_model) {
  Source51 out;
  std::vector<Edit> edits;
  std::vector<Token> toks = tokenize51(code, edits);
  ConcatRewriter exprs(code, toks);

  // Insertions that must nest inside others at the same offset: `opens`
  // go after every other edit, `closes` before (see the sort below).
  std::vector<Edit> opens;
  std::vector<Edit> closes;
  ZeroEdits zeros;
  if (number_model) zeros = zero_constants51(toks);

  std::vector<std::string> open;  // brackets open at the token
  for (size_t k = 0; k < toks.size(); ++k) {
    const Token& t = toks[k];
    const Token* prev = k > 0 ? &toks[k - 1] : nullptr;
    if (number_model && zeros.covered[k]) {
      if (!zeros.text[k].empty()) {
        const Token& last = toks[zeros.last[k]];
        edits.push_back({t.offset, last.end - t.offset, zeros.text[k]});
      }
      continue;
    }
    if (t.kind == Tok::kOp) {
      if (t.text == "(" || t.text == "[" || t.text == "{") open.push_back(t.text);
      if ((t.text == ")" || t.text == "]" || t.text == "}") && !open.empty()) open.pop_back();
      continue;
    }
    if (t.kind == Tok::kName && t.text == "goto") {
      // A name in 5.1, a keyword in 5.4: `t.goto` and `{goto = 1}` index
      // the string "goto", `t:goto(...)` calls kSelfCallName, `function
      // t:goto(a)` becomes `t["goto"] = function(self, a)`, any other use
      // is the variable kGotoName.
      bool method = false;
      if (goto_function_name(toks, k, &method)) {
        size_t j = k;
        while (j >= 2 && (toks[j - 1].text == "." || toks[j - 1].text == ":")) j -= 2;
        const Token& fn = toks[j - 1];
        edits.push_back({fn.offset, fn.end - fn.offset, {}});
        edits.push_back({prev->offset, 1, {}});
        edits.push_back({t.offset, t.end - t.offset, "[\"goto\"]"});
        std::string params = " = function(";
        if (method)
          params += (toks[k + 2].kind == Tok::kOp && toks[k + 2].text == ")") ? "self" : "self, ";
        edits.push_back({toks[k + 1].offset, 1, params});
        continue;
      }
      if (prev != nullptr && prev->kind == Tok::kOp && prev->text == ":" &&
          exprs.self_call_edits(k - 1, edits, opens, closes)) {
        continue;
      }
      bool prev_dot = prev != nullptr && prev->kind == Tok::kOp && prev->text == ".";
      bool key = prev != nullptr && prev->kind == Tok::kOp &&
                 (prev->text == "{" || prev->text == "," || prev->text == ";") && !open.empty() &&
                 open.back() == "{" && k + 1 < toks.size() && toks[k + 1].kind == Tok::kOp &&
                 toks[k + 1].text == "=";
      if (prev_dot) edits.push_back({prev->offset, 1, {}});
      edits.push_back({t.offset, t.end - t.offset,
                       prev_dot || key ? std::string("[\"goto\"]") : std::string(kGotoName)});
      continue;
    }
    if (t.kind != Tok::kNumber) continue;
    double value = 0;
    if (!integer_literal(t.text, &value)) continue;
    bool after_mod = prev != nullptr && prev->kind == Tok::kOp && prev->text == "%";
    if (number_model || value >= 4294967296.0) {
      edits.push_back({t.offset, t.text.size(), float_literal(value)});
    } else if (value == 0 && after_mod) {
      edits.push_back({t.offset, t.text.size(), "0.0"});
    }
  }
  // Nesting at one offset, outermost first: a `%` call holds a `#x` or a
  // self call, a `#x` holds a self call (`closes` in the reverse order).
  std::vector<Edit> len_opens;
  std::vector<Edit> len_closes;
  std::vector<Edit> mod_opens;
  std::vector<Edit> mod_closes;
  if (number_model) {
    // Only a table whose metatable has __len tells 5.1's `#` from 5.4's,
    // and a script can only make one by naming "__len" (readonly globals:
    // no table crosses from one script to the next): the VM's `#` (a C
    // call less, 1.4x faster in a `t[#t+1] = v` loop) for the others.
    bool len_helper = code.find("len") != std::string_view::npos;
    if (exprs.length_edits(len_helper, edits, len_opens, len_closes) > 0) {
      std::string name(kLenName);
      edits.push_back({0, 0, "local " + name + "=" + name + ";"});
    }
    if (exprs.mod_edits(edits, mod_opens, mod_closes) > 0) {
      std::string name(kModName);
      edits.push_back({0, 0, "local " + name + "=" + name + ";"});
    }
    std::vector<Edit> chains;
    if (exprs.run(chains) > 0) {
      std::string name(kConcatName);
      edits.push_back({0, 0, "local " + name + "=" + name + ";"});
      edits.insert(edits.end(), chains.begin(), chains.end());
    }
  }
  closes.insert(closes.end(), len_closes.begin(), len_closes.end());
  closes.insert(closes.end(), mod_closes.begin(), mod_closes.end());
  mod_opens.insert(mod_opens.end(), len_opens.begin(), len_opens.end());
  mod_opens.insert(mod_opens.end(), opens.begin(), opens.end());
  edits.insert(edits.begin(), closes.begin(), closes.end());
  edits.insert(edits.end(), mod_opens.begin(), mod_opens.end());

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
  // At one offset insertions come first, in the order they were made.
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    return a.offset < b.offset || (a.offset == b.offset && a.length == 0 && b.length != 0);
  });
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
