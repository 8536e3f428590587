// The expression rewrites of adapt_source51: see exprs51.h.
#include "sim/lua/exprs51.h"

#include <algorithm>
#include <utility>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

// The bytes of a short string literal's body as 5.1's lexer reads them
// (read_string in llex.c): \n \t and the other C escapes, \ddd (up to
// three digits), a backslash before a line break keeps the break, and
// any other escaped character is that character.
std::string unescape51(std::string_view body) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    switch (e) {
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      default:
        if (is_digit(e)) {
          int value = 0;
          size_t n = 0;
          for (; n < 3 && i < body.size() && is_digit(body[i]); ++n, ++i) {
            value = value * 10 + (body[i] - '0');
          }
          --i;
          out += static_cast<char>(value);
        } else {
          out += e;
        }
    }
  }
  return out;
}

}  // namespace

ExprRewriter51::ExprRewriter51(std::string_view src, const std::vector<Token>& toks)
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
int ExprRewriter51::run(std::vector<Edit>& edits) {
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
int ExprRewriter51::length_edits(bool helper, std::vector<Edit>& edits, std::vector<Edit>& opens,
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
bool ExprRewriter51::self_call_edits(size_t colon, std::vector<Edit>& edits,
                                     std::vector<Edit>& opens, std::vector<Edit>& closes) const {
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
int ExprRewriter51::mod_edits(std::vector<Edit>& edits, std::vector<Edit>& opens,
                              std::vector<Edit>& closes) const {
  int count = 0;
  for (size_t k = toks_.size(); k-- > 1;) {
    if (!is_op(k, "%")) continue;
    size_t start = term_before(k - 1);
    size_t e = unary_end(k + 1);
    if (start == kNone || e == kNone || e <= k + 1) continue;
    std::string names = left_name(k, k - 1, false) + "|" + right_name('%', k + 1, false);
    opens.push_back({toks_[start].offset, 0, std::string(kModName) + "(\"" + names + "\", "});
    edits.push_back({toks_[k].offset, 1, ","});
    closes.push_back({toks_[e - 1].end, 0, ")"});
    ++count;
  }
  std::reverse(closes.end() - count, closes.end());  // inner (left) ones close first
  return count;
}

// One past the operand of a unary operator starting at i: more unary
// operators, a suffixed primary or literal, and a `^` chain (which binds
// tighter than the unary operators).
size_t ExprRewriter51::unary_end(size_t i) const {
  for (;;) {
    while (is_kw(i, "not") || is_op(i, "#") || is_op(i, "-")) ++i;
    if (i >= toks_.size()) return kNone;
    size_t e = primary_after(i);
    if (e == kNone || e >= toks_.size() || !is_op(e, "^")) return e;
    i = e + 1;
  }
}

bool ExprRewriter51::is_op(size_t k, std::string_view op) const {
  return k < toks_.size() && toks_[k].kind == Tok::kOp && toks_[k].text == op;
}

bool ExprRewriter51::is_kw(size_t k, std::string_view w) const {
  return k < toks_.size() && toks_[k].kind == Tok::kKeyword && toks_[k].text == w;
}

bool ExprRewriter51::is_arith(size_t k) const {
  return is_op(k, "+") || is_op(k, "-") || is_op(k, "*") || is_op(k, "/") || is_op(k, "%") ||
         is_op(k, "^");
}

// Start of the suffixed primary expression or literal ending at j.
size_t ExprRewriter51::primary_before(size_t j) const {
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
size_t ExprRewriter51::term_before(size_t j) const {
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
size_t ExprRewriter51::operand_before(size_t j) const {
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
size_t ExprRewriter51::primary_after(size_t i) const {
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

size_t ExprRewriter51::operand_after(size_t i) const {
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
std::string ExprRewriter51::describe(size_t first, size_t last, bool raw) const {
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
      // 7.0.15: "field 'a b'", "field ''", "field 'q\"'"). For the helper
      // calls' names, which travel in a "..." literal separated by '|', one
      // with escapes, a '"' or a '|' stays '?'; `raw` names decode escapes.
      bool quoted = (quote == '"' || quote == '\'') && key.end - key.offset >= 2;
      if (quoted && raw) return "field '" + unescape51(body) + "'";
      if (quoted && body.find_first_of("\\\"|") == std::string_view::npos) {
        return "field '" + std::string(body) + "'";
      }
    }
    return "field '?'";
  }
  return {};
}

// Marks each name token 'l' (a local of the current function), 'u' (a
// local of an enclosing one) or 'g'. As in 5.1's parser (adjustlocalvars),
// a `local` statement's names are visible from the end of the statement
// (`local x = x + 1` reads the outer x), a `for`'s from its `do`, and a
// `repeat` block's locals in its `until` condition.
void ExprRewriter51::classify_names() {
  kinds_.assign(toks_.size(), 0);
  struct Block {
    std::vector<std::string> names;
    std::vector<std::string> loop_names;  // a `for`'s, visible from its `do`
    bool awaiting_do = false;
    bool function_body = false;
  };
  // A `local` statement's names, visible from the end of the statement.
  struct Pending {
    size_t at;
    size_t block;
    std::vector<std::string> names;
  };
  std::vector<Pending> pending;
  std::vector<size_t> pops;  // a `repeat` block closes after its condition
  // One past the expression list starting at token i.
  auto list_end = [&](size_t i) {
    size_t j = i;
    while (j < toks_.size() && toks_[j].kind != Tok::kEof) {
      if (is_op(j, "(") || is_op(j, "[") || is_op(j, "{")) {
        if (match_[j] == kNone) return toks_.size();
        j = match_[j];
      } else if (is_kw(j, "function")) {
        int depth = 1;
        while (depth > 0 && ++j < toks_.size()) {
          if (toks_[j].kind != Tok::kKeyword) continue;
          const std::string& w = toks_[j].text;
          if (w == "function" || w == "if" || w == "do" || w == "repeat") ++depth;
          if (w == "end" || w == "until") --depth;
        }
        if (j >= toks_.size()) return toks_.size();
      }
      if (!ends_value(j)) {
        ++j;
        continue;
      }
      size_t n = j + 1;
      if (n >= toks_.size()) return n;
      const Token& u = toks_[n];
      static constexpr std::string_view kGoesOn[] = {"+",  "-",  "*", "/",  "%", "^",  "..",
                                                     "==", "~=", "<", "<=", ">", ">=", ",",
                                                     ".",  ":",  "(", "[",  "{"};
      bool goes_on = u.kind == Tok::kString || is_kw(n, "and") || is_kw(n, "or");
      for (std::string_view op : kGoesOn) goes_on = goes_on || is_op(n, op);
      if (!goes_on) return n;
      j = n;
    }
    return j;
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
    for (size_t p = 0; p < pending.size();) {
      if (pending[p].at > k) {
        ++p;
        continue;
      }
      if (pending[p].block < blocks.size()) {
        std::vector<std::string>& names = blocks[pending[p].block].names;
        names.insert(names.end(), pending[p].names.begin(), pending[p].names.end());
      }
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(p));
    }
    for (size_t p = 0; p < pops.size();) {
      if (pops[p] <= k) {
        pop();
        pops.erase(pops.begin() + static_cast<std::ptrdiff_t>(p));
      } else {
        ++p;
      }
    }
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
      Pending p{k + 1, blocks.size() - 1, {}};
      for (size_t j = k + 1; j < toks_.size() && toks_[j].kind == Tok::kName; j += 2) {
        p.names.push_back(toks_[j].text);
        p.at = j + 1;
        if (!is_op(j + 1, ",")) break;
      }
      if (is_op(p.at, "=")) p.at = list_end(p.at + 1);
      pending.push_back(std::move(p));
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
        b.loop_names.push_back(toks_[j].text);
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
        blocks.back().names = std::move(blocks.back().loop_names);
      } else {
        blocks.emplace_back();
      }
    } else if (w == "if" || w == "repeat") {
      blocks.emplace_back();
    } else if (w == "elseif" || w == "else") {
      blocks.back().names.clear();
    } else if (w == "end") {
      pop();
    } else if (w == "until") {
      pops.push_back(list_end(k + 1));  // the condition sees the block's locals
    }
  }
}

namespace {

// 5.1's binary operator priorities (lparser.c's priority[]: the left one).
int priority51(const Token& t) {
  if (t.kind == Tok::kKeyword) return t.text == "and" ? 2 : t.text == "or" ? 1 : 0;
  if (t.kind != Tok::kOp) return 0;
  const std::string& o = t.text;
  if (o == "^") return 10;
  if (o == "*" || o == "/" || o == "%") return 7;
  if (o == "+" || o == "-") return 6;
  if (o == "..") return 5;
  if (o == "==" || o == "~=" || o == "<" || o == "<=" || o == ">" || o == ">=") return 3;
  return 0;
}

}  // namespace

bool ExprRewriter51::is_unary(size_t k) const {
  if (is_kw(k, "not") || is_op(k, "#")) return true;
  return is_op(k, "-") && (k == 0 || !ends_value(k - 1));
}

std::string ExprRewriter51::primary_name(size_t first, size_t last, bool raw) const {
  if (is_op(first, "(") && match_[first] == last) {
    if (first + 1 < last && primary_after(first + 1) == last) {
      return primary_name(first + 1, last - 1, raw);
    }
    return {};
  }
  return describe(first, last, raw);
}

std::string ExprRewriter51::left_name(size_t op, size_t j, bool raw, bool* numeric) const {
  if (numeric != nullptr) *numeric = false;
  size_t s = primary_before(j);
  if (s == kNone) return {};
  bool pow = is_op(op, "^");  // binds tighter than anything to its left
  // Left-associative: a preceding operator as tight takes the operand.
  if (s > 0 && !pow && (is_unary(s - 1) || priority51(toks_[s - 1]) >= priority51(toks_[op]))) {
    if (numeric != nullptr) *numeric = true;  // an arithmetic, `#` or `not` result
    return {};
  }
  if (numeric != nullptr) *numeric = s == j && toks_[s].kind == Tok::kNumber;
  return primary_name(s, j, raw);
}

std::string ExprRewriter51::right_name(char op, size_t i, bool raw, bool* numeric) const {
  if (numeric != nullptr) *numeric = false;
  if (i >= toks_.size()) return {};
  size_t e = is_unary(i) ? i : primary_after(i);
  if (e == kNone || e == 0) return {};
  bool temporary = e == i;  // a unary operator's result
  if (e < toks_.size() && !temporary) {
    int next = priority51(toks_[e]);
    if (op == '^' || op == 'u') {
      temporary = is_op(e, "^");  // right-associative / tighter than unary
    } else {
      int mine = op == '*' || op == '/' || op == '%' ? 7 : 6;
      temporary = next > mine;
    }
  }
  if (temporary) {
    if (numeric != nullptr) *numeric = true;  // an arithmetic, `#` or `not` result
    return {};
  }
  if (numeric != nullptr) *numeric = e == i + 1 && toks_[i].kind == Tok::kNumber;
  return primary_name(i, e - 1, raw);
}

void ExprRewriter51::arith_sites(std::vector<ArithSite51>& out) const {
  for (size_t k = 0; k < toks_.size(); ++k) {
    const Token& t = toks_[k];
    if (t.kind != Tok::kOp || t.text.size() != 1) continue;
    char c = t.text[0];
    if (c != '+' && c != '-' && c != '*' && c != '/' && c != '^') continue;
    bool unary = c == '-' && is_unary(k);
    if (!unary && k == 0) continue;
    ArithSite51 site;
    site.line = t.line;
    site.op = unary ? 'u' : c;
    // 5.1 codes the instruction once the right operand is read: its line
    // is that operand's last token's.
    size_t end = unary_end(k + 1);
    if (!unary && (c == '+' || c == '-')) {
      while (end != kNone && end < toks_.size() &&
             (is_op(end, "*") || is_op(end, "/") || is_op(end, "%"))) {
        end = unary_end(end + 1);
      }
    }
    site.line51 = end != kNone && end > k + 1 ? toks_[end - 1].line : t.line;
    if (unary) {
      site.left = right_name('u', k + 1, true, &site.left_numeric);
    } else {
      site.left = left_name(k, k - 1, true, &site.left_numeric);
      site.right = right_name(site.op, k + 1, true, &site.right_numeric);
    }
    out.push_back(std::move(site));
  }
}

}  // namespace redsim::sim::lua
