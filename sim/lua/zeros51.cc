// The zero-constant rewrite of adapt_source51 (source51.cc), Lua 5.1's
// shared zero constant under the 5.4 VM; declared in lexer51.h.
// Source: Lua 5.1.5 lcode.c (constfolding, codearith, addk), ltable.c
// (hashnum); checked against redis-server 7.0.15; facts only.
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/lua/lexer51.h"

namespace redsim::sim::lua {
namespace {

// 5.1 keeps one constant per value in a function, and 0 == -0 (its
// constant table is a Lua table, whose hashnum puts -0 on 0's node):
// whichever zero reaches a function's constants first is the value of every
// zero constant of that function. redis-server 7.0.15: `local a = 0; local
// b = -0; return tostring(b)` is "0", `local a = -0; local b = 0; return
// tostring(b)` is "-0", `local a = 1-1; local b = -0; return tostring(b)`
// is "0" and `local a = 0*-1; local b = 0; return tostring(b)` is "-0".
//
// What reaches the constants is what 5.1's code generator (lcode.c of
// 5.1.5) emits: a numeral, or what constfolding made of an arithmetic
// expression whose operands are all numerals (`1 - 1`, `-(-0)`, `0 * -5`,
// `(2)^2`), unless the fold is refused (a division or modulo by zero, a NaN
// result): then the operands enter, the right one first (codearith). A
// numeral beside an operand that is not a constant enters as it is. The
// expressions are found by a precedence parser over the tokens (5.1's
// priorities; `..`, comparisons, `and`, `or` and anything else end a
// constant expression); `%` is rewritten into a call (kModName) and ends it
// too. Returns the zero constants whose sign differs from their function's
// first zero, as edits of their whole span to that zero ("0.0" or
// "(-0.0)"), which 5.4 evaluates at run time to the value 5.1 shared.
// Known gaps: a numeral left of an operator whose right operand holds zero
// constants enters after them in 5.1 (`-0 + (x * 0)`); a zero after a loop
// header's `do` is left alone.
class ZeroConstants51 {
 public:
  explicit ZeroConstants51(const std::vector<Token>& toks) : toks_(toks) {}

  ZeroEdits run() {
    ZeroEdits out;
    out.text.assign(toks_.size(), {});
    out.last.assign(toks_.size(), 0);
    out.covered.assign(toks_.size(), false);
    std::vector<Block> blocks{{true, false, 0}};
    auto function_block = [&]() -> Block& {
      for (size_t b = blocks.size(); b-- > 1;) {
        if (blocks[b].function) return blocks[b];
      }
      return blocks[0];
    };
    for (size_t k = 0; k < toks_.size();) {
      const Token& t = toks_[k];
      if (t.kind == Tok::kKeyword) {
        const std::string& w = t.text;
        if (w == "function" || w == "if" || w == "repeat") {
          blocks.push_back({w == "function", false, 0});
        } else if (w == "while" || w == "for") {
          blocks.push_back({false, true, 0});
        } else if (w == "do") {
          if (blocks.back().awaiting_do) {
            blocks.back().awaiting_do = false;
          } else {
            blocks.push_back({false, false, 0});
          }
        } else if ((w == "end" || w == "until") && blocks.size() > 1) {
          blocks.pop_back();
        }
        ++k;
        continue;
      }
      if (!starts_constant(k)) {
        ++k;
        continue;
      }
      Node node;
      size_t next = k;
      Parse p = parse(k, context_limit(k), node, next);
      if (p == Parse::kNone || (k > 0 && is_kw(k - 1, "not"))) {
        ++k;
        continue;
      }
      if (node.numeral) node.entries.push_back({node.value, node.first, node.last});
      for (const Entry& e : node.entries) {
        if (e.value != 0 || is_kw(e.last + 1, "do")) continue;
        int sign = std::signbit(e.value) ? -1 : 1;
        Block& f = function_block();
        if (f.first_zero == 0) {
          f.first_zero = sign;
          continue;
        }
        if (sign == f.first_zero) continue;
        out.text[e.first] = f.first_zero > 0 ? "0.0" : "(-0.0)";
        out.last[e.first] = e.last;
        for (size_t m = e.first; m <= e.last; ++m) out.covered[m] = true;
      }
      k = next > k ? next : k + 1;
    }
    return out;
  }

 private:
  struct Block {
    bool function = false;
    bool awaiting_do = false;
    int first_zero = 0;  // 0: none yet, else the sign of the function's first zero constant
  };
  struct Entry {
    double value;
    size_t first;
    size_t last;
  };
  // An expression of constants: a numeral (folded) or not (a refused fold),
  // the constants it sent to the function's table, its token span.
  struct Node {
    bool numeral = false;
    double value = 0;
    size_t first = 0;
    size_t last = 0;
    std::vector<Entry> entries;
  };
  enum class Parse { kNone, kPartial, kComplete };

  bool is_op(size_t k, std::string_view op) const {
    return k < toks_.size() && toks_[k].kind == Tok::kOp && toks_[k].text == op;
  }
  bool is_kw(size_t k, std::string_view w) const {
    return k < toks_.size() && toks_[k].kind == Tok::kKeyword && toks_[k].text == w;
  }
  // True when the token before a '-' at k ends a value (so the '-' is
  // binary).
  bool binary_minus(size_t k) const { return k > 0 && ends_value51(toks_, k - 1); }

  // A numeral, a unary minus or a grouping parenthesis at k.
  bool starts_constant(size_t k) const {
    if (toks_[k].kind == Tok::kNumber) return true;
    if (is_op(k, "-")) return !binary_minus(k);
    if (is_op(k, "(")) return k == 0 || !ends_prefix51(toks_, k - 1);
    return false;
  }

  // 5.1's binary priorities (left, right); {0, 0} for no binary operator.
  std::pair<int, int> priority(size_t k) const {
    if (k >= toks_.size()) return {0, 0};
    const Token& t = toks_[k];
    if (t.kind == Tok::kKeyword) {
      if (t.text == "and") return {2, 2};
      if (t.text == "or") return {1, 1};
      return {0, 0};
    }
    if (t.kind != Tok::kOp) return {0, 0};
    const std::string& o = t.text;
    if (o == "+" || o == "-") return {6, 6};
    if (o == "*" || o == "/" || o == "%") return {7, 7};
    if (o == "^") return {10, 9};
    if (o == "..") return {5, 4};
    if (o == "==" || o == "~=" || o == "<" || o == "<=" || o == ">" || o == ">=") return {3, 3};
    return {0, 0};
  }

  // The priority limit of an operand starting at k: the right priority of
  // the binary operator before it, 8 after a unary operator, else 0.
  int context_limit(size_t k) const {
    if (k == 0) return 0;
    if (is_op(k - 1, "-") && !binary_minus(k - 1)) return 8;
    if (is_op(k - 1, "#") || is_kw(k - 1, "not")) return 8;
    return priority(k - 1).second;
  }

  static bool arith(std::string_view op) {
    return op == "+" || op == "-" || op == "*" || op == "/" || op == "^";
  }

  // 5.1's constfolding; false when it refuses.
  static bool fold(std::string_view op, double a, double b, double* r) {
    if (op == "+") *r = a + b;
    if (op == "-") *r = a - b;
    if (op == "*") *r = a * b;
    if (op == "/") {
      if (b == 0) return false;
      *r = a / b;
    }
    if (op == "^") *r = std::pow(a, b);
    return !std::isnan(*r);
  }

  // subexpr(limit) of 5.1's parser over constants from k. kComplete: the
  // whole operand is made of constants and ends before `next`; kPartial:
  // `node` is the constant left operand of the operator at `next`, whose
  // right operand is not constant; kNone: no constant at k.
  Parse parse(size_t k, int limit, Node& node, size_t& next) const {
    node = Node{};
    if (k >= toks_.size()) return Parse::kNone;
    if (is_op(k, "-")) {
      Node operand;
      size_t j = k;
      if (parse(k + 1, 8, operand, j) != Parse::kComplete) return Parse::kNone;
      node = std::move(operand);
      node.first = k;
      if (node.numeral && !std::isnan(-node.value)) {
        node.value = -node.value;
      } else if (node.numeral) {
        node.entries.push_back({node.value, k + 1, node.last});
        node.numeral = false;
      }
      k = j;
    } else if (is_op(k, "(")) {
      Node inner;
      size_t j = k;
      if (parse(k + 1, 0, inner, j) != Parse::kComplete || !is_op(j, ")")) return Parse::kNone;
      // `(0)(x)`, `(0).x`, `(0)[1]`, `(0):f()`: a prefix expression.
      if (is_op(j + 1, "(") || is_op(j + 1, "[") || is_op(j + 1, ".") || is_op(j + 1, ":") ||
          is_op(j + 1, "{") || (j + 1 < toks_.size() && toks_[j + 1].kind == Tok::kString)) {
        return Parse::kNone;
      }
      node = std::move(inner);
      node.first = k;
      node.last = j;
      k = j + 1;
    } else if (toks_[k].kind == Tok::kNumber) {
      char* end = nullptr;
      double v = std::strtod(toks_[k].text.c_str(), &end);
      if (end == toks_[k].text.c_str()) return Parse::kNone;
      node = Node{true, v, k, k, {}};
      ++k;
    } else {
      return Parse::kNone;
    }
    for (;;) {
      auto [left, right] = priority(k);
      if (left <= limit) break;
      const std::string& op = toks_[k].text;
      if (!arith(op)) break;  // `..`, comparisons, and, or: the constant is their operand
      Node rhs;
      size_t j = k;
      if (parse(k + 1, right, rhs, j) != Parse::kComplete) {
        next = k;
        return Parse::kPartial;
      }
      double r = 0;
      if (node.numeral && rhs.numeral && fold(op, node.value, rhs.value, &r)) {
        node.value = r;
      } else {
        // codearith: the right operand's constant first, then the left's.
        node.entries.insert(node.entries.end(), rhs.entries.begin(), rhs.entries.end());
        if (rhs.numeral) node.entries.push_back({rhs.value, rhs.first, rhs.last});
        if (node.numeral) node.entries.push_back({node.value, node.first, node.last});
        node.numeral = false;
      }
      node.last = rhs.last;
      k = j;
    }
    if (is_op(k, "%") && priority(k).first > limit) {
      next = k;
      return Parse::kPartial;
    }
    next = k;
    return Parse::kComplete;
  }

  const std::vector<Token>& toks_;
};

}  // namespace

ZeroEdits zero_constants51(const std::vector<Token>& toks) { return ZeroConstants51(toks).run(); }

}  // namespace redsim::sim::lua
