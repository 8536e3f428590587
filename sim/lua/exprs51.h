// The expression rewrites of adapt_source51 (source51.cc) that need to
// know where an operand starts and ends: `..` chains become kConcatName
// calls, `#x` kLenName calls, `a % b` kModName calls, `obj:goto(...)`
// kSelfCallName calls (internal.h has the helpers). A small precedence
// parser over the tokens of lexer51.h finds the operands (arithmetic and
// unary operators bind tighter than `..`; comparison, and, or, brackets and
// separators end an operand), and each lone name is classified local /
// upvalue / global by tracking blocks and function bodies, so errors name
// operands as 5.1 does (lgetobjname in ldebug.c of Lua 5.1.5). Internal to
// sim/lua.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sim/lua/internal.h"
#include "sim/lua/lexer51.h"

namespace redsim::sim::lua {

// Every number literal is a float (5.1 has only doubles), so the VM's own
// arithmetic is 5.1's. The VM's `..` would print an integral float as "5.0";
// each chain `a .. b .. c` therefore becomes a call of the concat function
// (concat51.cc) that prints numbers as 5.1 does. Its first argument names
// the operands for 5.1's error text ("local 'x'", "global 'y'", "field
// 'z'", or nothing), separated by '|'.
class ExprRewriter51 {
 public:
  // `toks` (tokenize51's, of `src`) must outlive the rewriter.
  ExprRewriter51(std::string_view src, const std::vector<Token>& toks);

  // Appends the edits of every chain that parses; returns how many.
  int run(std::vector<Edit>& edits);

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
                   std::vector<Edit>& closes) const;

  // `obj:goto(args)` (5.1 allows any name after ':') becomes
  // kSelfCallName(obj, "goto", args); `colon` is the ':' token. False when
  // the call is not one this pass understands.
  bool self_call_edits(size_t colon, std::vector<Edit>& edits, std::vector<Edit>& opens,
                       std::vector<Edit>& closes) const;

  // `a % b` becomes kModName("names", a, b): the VM's float modulo is 5.4's
  // (fmod based: -0 % 3 is -0, 2^32 % x keeps digits 5.1 loses); 5.1's is
  // a - floor(a/b)*b. The left operand is the multiplicative term before
  // the '%' (unary operators and `^` included, `*` `/` `%` to the left),
  // the right one the unary expression after it. Returns how many.
  int mod_edits(std::vector<Edit>& edits, std::vector<Edit>& opens,
                std::vector<Edit>& closes) const;

  // Every binary + - * / ^ and unary - (`%` is mod_edits') with the names
  // 5.1's lgetobjname gives its operands, in token order. An operand is
  // named only when it is one primary expression (a name, `t.f`, `t[k]`,
  // parentheses around one): anything an operator computed is a temporary.
  void arith_sites(std::vector<ArithSite51>& out) const;

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  // One past the operand of a unary operator starting at i: more unary
  // operators, a suffixed primary or literal, and a `^` chain (which binds
  // tighter than the unary operators).
  size_t unary_end(size_t i) const;

  bool is_op(size_t k, std::string_view op) const;
  bool is_kw(size_t k, std::string_view w) const;
  bool is_arith(size_t k) const;
  bool ends_prefix(size_t k) const { return ends_prefix51(toks_, k); }
  bool ends_value(size_t k) const { return ends_value51(toks_, k); }

  // Start of the suffixed primary expression or literal ending at j.
  size_t primary_before(size_t j) const;

  // Start of the multiplicative term ending at token j (the left operand of
  // a '%').
  size_t term_before(size_t j) const;

  // Start of the operand of `..` that ends at token j: operators binding
  // tighter than `..` (arithmetic, unary) included.
  size_t operand_before(size_t j) const;

  // One past the suffixed primary or literal starting at i.
  size_t primary_after(size_t i) const;

  size_t operand_after(size_t i) const;

  // 5.1's name of an operand in a concat error (lgetobjname): a lone name
  // is a local, an upvalue or a global; `x.k` and `x["k"]` are field 'k',
  // other indexes field '?'; anything else has no name.
  // `raw`: a string key's bytes as they are (an ArithSite51 name), else
  // only keys that can travel in a helper call's names literal.
  std::string describe(size_t first, size_t last, bool raw = false) const;

  // describe() of the operand [first, last] when it is one primary
  // expression or parentheses around one, else empty.
  std::string primary_name(size_t first, size_t last, bool raw) const;
  // A `-` that is a unary minus, a `not` or a `#`.
  bool is_unary(size_t k) const;
  // The name of the operand of the arithmetic operator at `op` ('u' for a
  // unary minus) that ends at token j (left) or starts at token i (right);
  // *numeric (when given): the operand is a number literal or the result
  // of an arithmetic, `#` or `not`, so never a string.
  std::string left_name(size_t op, size_t j, bool raw, bool* numeric = nullptr) const;
  std::string right_name(char op, size_t i, bool raw, bool* numeric = nullptr) const;

  // Marks each name token 'l' (a local of the current function), 'u' (a
  // local of an enclosing one) or 'g', with 5.1's scopes: a `local`
  // statement's names from the end of the statement, a `for`'s from its
  // `do`, a `repeat` block's until its condition is read.
  void classify_names();

  std::string_view src_;
  const std::vector<Token>& toks_;
  std::vector<size_t> match_;
  std::vector<char> kinds_;
};

}  // namespace redsim::sim::lua
