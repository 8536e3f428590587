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
//      (ExprRewriter51, exprs51.cc)
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
//    - Not an edit: every other arithmetic operator (binary + - * / ^,
//      unary -) is recorded in Source51::arith with its line and 5.1's
//      names of its operands (exprs51.cc), from which string_arith51
//      (numbers51.cc) words 5.1's "attempt to perform arithmetic on local
//      'x' (a string value)" when a string does not convert.
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

#include "sim/lua/exprs51.h"
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

Source51 adapt_uncached(std::string_view code, bool number_model) {
  Source51 out;
  std::vector<Edit> edits;
  std::vector<Token> toks = tokenize51(code, edits);
  ExprRewriter51 exprs(code, toks);

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
    exprs.arith_sites(out.arith);
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

// The adaptation is a pure function of (code, number_model), and the same
// few scripts are adapted over and over: every world's servers compile a
// lock's acquire, release and renew scripts again, an exhaustive search
// builds a world per schedule, a script that fails to compile is adapted
// twice (load_code) and again at every EVAL, since Redis caches no failed
// script. Each thread keeps its last kMemoEntries results for bodies up to
// kMemoMaxBytes and hands out copies (no lock: `--jobs` threads each have
// their own).
constexpr size_t kMemoEntries = 16;
constexpr size_t kMemoMaxBytes = 16 * 1024;

struct MemoEntry {
  std::string code;
  bool number_model = false;
  Source51 adapted;
};

thread_local std::vector<MemoEntry> memo;  // least recently used first

}  // namespace

Source51 adapt_source51(std::string_view code, bool number_model) {
  if (code.size() > kMemoMaxBytes) return adapt_uncached(code, number_model);
  auto hit = std::find_if(memo.begin(), memo.end(), [&](const MemoEntry& e) {
    return e.number_model == number_model && e.code == code;
  });
  if (hit != memo.end()) {
    std::rotate(hit, hit + 1, memo.end());
    return memo.back().adapted;
  }
  if (memo.size() == kMemoEntries) memo.erase(memo.begin());
  memo.push_back({std::string(code), number_model, adapt_uncached(code, number_model)});
  return memo.back().adapted;
}

}  // namespace redsim::sim::lua
